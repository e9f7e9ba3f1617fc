/**
 * The operator console (`/console`) in a real headless Chromium against a
 * real `npm run dev`, every view on real data: sign-in with the secret key (a
 * wrong one refused, the key kept in the tab only); an agent created from a
 * template with the model form; a config the gateway refuses, its problems
 * shown at the lines their paths name (and a syntax error caught before
 * anything is sent); a tool and an MCP server added with the forms and
 * saved; export and import back as a new agent; a run as a timeline; a
 * pending call cancelled; a webhook subscription made, refused and deleted,
 * and a dead letter redelivered; every delivery attempt shown live from the
 * agents' streams, against what the receiver got, and the streams closed
 * when the view is left; the tool statistics drawn as charts.
 * Screenshots go to SWITCHBOARD_SCREENSHOTS (default: a folder in the
 * system's tmp).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run } from "../../client/src/index";
import { type Delivery, DeliveryList } from "../../web/src/console/delivery-list";
import { launchChromium } from "./chromium";
import { agentEvent, receiver, subscriptionDeadLetter } from "./dead-letters";
import { admin, gateway } from "./gateway";

const shots = process.env.SWITCHBOARD_SCREENSHOTS ?? join(tmpdir(), "switchboard-console");
mkdirSync(shots, { recursive: true });

let browser: Browser;
let context: BrowserContext;
let page: Page;
const requests: string[] = [];
const pageErrors: string[] = [];
/** The page's agent stream requests still open, as Chromium sees them (the console's own bookkeeping is not trusted for this). */
const openStreams = new Set<Request>();
const isAgentStream = (request: Request) => /\/api\/agents\/[^/]+\/stream(\?|$)/.test(request.url());
/** The agent whose run, pending call and statistics the views show. */
const busy = { agentId: "", runId: "", pendingCallId: "" };
/** The agent the console creates from a template. */
let createdAgentId = "";

/** Something a test waits on may have changed: a request of the page began or ended, or a receiver got a push. */
const changes = new EventTarget();
const changed = () => changes.dispatchEvent(new Event("change"));

/** `read`'s value once it has one: read now, then again at each change (never on a timer), until `timeoutMs`. */
async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Listening before reading: a change during the read is not missed.
    const next = new Promise<void>((resolve) => changes.addEventListener("change", () => resolve(), { once: true }));
    const value = await read();
    if (value !== undefined) return value;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<void>((resolve) => (timer = setTimeout(resolve, remaining)));
    await Promise.race([next, expired]);
    clearTimeout(timer);
  }
}

const shoot = (name: string, fullPage = false) => page.screenshot({ path: join(shots, `${name}.png`), fullPage });

/** Goes to a view by its fragment and waits until the view says it is drawn. */
async function openView(hash: string): Promise<void> {
  await page.evaluate((target) => {
    if (location.hash === target) location.hash = "";
    location.hash = target;
  }, hash);
  await page.waitForFunction((target) => location.hash === target && document.getElementById("console-main")?.dataset.ready === "true", hash);
}

/** The 1-based line of the editor's text on which `fragment` first appears. */
async function lineOf(fragment: string): Promise<number> {
  const text = await page.inputValue("#config-text");
  const index = text.indexOf(fragment);
  if (index === -1) throw new Error(`"${fragment}" is not in the editor`);
  return text.slice(0, index).split("\n").length;
}

beforeAll(async () => {
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  page.on("request", (request) => requests.push(request.url()));
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("request", (request) => isAgentStream(request) && openStreams.add(request));
  page.on("requestfinished", (request) => openStreams.delete(request));
  page.on("requestfailed", (request) => openStreams.delete(request));
  page.on("request", changed);
  page.on("requestfinished", changed);
  page.on("requestfailed", changed);

  // An agent with a run to show: a call that works, one that fails inside the tool, one refused for its
  // arguments, and one left pending for an answer; then a reply.
  const agent = await admin.agents.create({
    agent: { name: "Console busy agent" },
    model: {
      provider: "scripted",
      turns: [
        {
          toolCalls: [
            { name: "current_time", args: { timezone: "UTC" } },
            { name: "current_time", args: { timezone: "Not/AZone" } },
            { name: "reserve", args: {} },
            { name: "reserve", args: { item: "desk" } },
          ],
        },
        { text: "Reserved, waiting for the warehouse." },
      ],
    },
    builtins: ["spaces", "knowledge", "calls", "time"],
    tools: [
      {
        name: "reserve",
        description: "Reserve an item",
        executionType: "external",
        isAsync: true,
        visible: false,
        inputSchema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
      },
    ],
  });
  busy.agentId = agent.id;
  const finished = agentEvent(agent.id, "agent.cycle.finished");
  await admin.agents.pushInbox(agent.id, { hello: "console" });
  await finished;
  const run = (await admin.agents.runs(agent.id, { limit: 1 })).runs.find((candidate) => candidate.status === "completed");
  if (run === undefined) throw new Error("the busy agent's cycle finished without a completed run");
  busy.runId = run.id;
  // The call was left pending by the cycle that just finished.
  const [pending] = (await admin.agents.pendingToolCalls(agent.id, { status: "pending" })).pendingToolCalls;
  if (typeof pending !== "object" || pending === null || !("toolCallId" in pending) || typeof pending.toolCallId !== "string") throw new Error("not a pending call");
  busy.pendingCallId = pending.toolCallId;
});

afterAll(async () => {
  await browser?.close();
});

describe("the operator console", () => {
  it("refuses a wrong key, signs in with the secret key and keeps it in this tab only", async () => {
    await page.goto(`${gateway.baseUrl}/console`);
    await page.fill("#secretKey", "not-the-secret-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    const refused = page.locator(".sign-in .problems");
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/^Could not sign in: .*401/);
    await shoot("console-sign-in-refused");

    await page.fill("#secretKey", gateway.vars.GATEWAY_SECRET_KEY);
    await page.getByRole("button", { name: "Sign in" }).click();
    const row = page.locator(`#agents-table tr[data-agent-id="${busy.agentId}"]`);
    await row.waitFor();
    expect(await row.locator(".agent-name").textContent()).toBe("Console busy agent");
    expect(await page.locator(`#agents-table tr[data-agent-id="${gateway.demo.agentId}"]`).count()).toBe(1);
    expect(page.url()).not.toContain(gateway.vars.GATEWAY_SECRET_KEY);
    const stored = await page.evaluate(() => ({ session: JSON.stringify(sessionStorage), local: JSON.stringify(localStorage) }));
    expect(stored.session).toContain(gateway.vars.GATEWAY_SECRET_KEY);
    expect(stored.local).not.toContain(gateway.vars.GATEWAY_SECRET_KEY);
    await shoot("console-agents", true);
  });

  it("creates an agent from a template, its model and key's name chosen with the model form", async () => {
    await page.selectOption("#template", "openai");
    await page.getByRole("button", { name: "Open in the editor" }).click();
    await page.locator("#config-text").waitFor();
    expect(JSON.parse(await page.inputValue("#config-text")).model).toEqual({ provider: "openai", name: "gpt-4.1-mini", apiKeyEnv: "OPENAI_API_KEY" });
    // A key's value is refused by the form: only a secret's name goes in a config.
    await page.fill("#model-api-key-env", "sk-proj-abc123");
    await page.getByRole("button", { name: "Set model" }).click();
    await page.locator("#model-form .form-outcome.refused").waitFor();
    await page.fill("#model-name", "gpt-4.1");
    await page.fill("#model-api-key-env", "CONSOLE_OPENAI_KEY");
    await page.getByRole("button", { name: "Set model" }).click();
    expect(JSON.parse(await page.inputValue("#config-text")).model).toEqual({ provider: "openai", name: "gpt-4.1", apiKeyEnv: "CONSOLE_OPENAI_KEY" });
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.waitForFunction(() => /^#agents\/agt_/.test(location.hash) && document.getElementById("console-main")?.dataset.ready === "true");
    createdAgentId = decodeURIComponent(new URL(page.url()).hash.slice("#agents/".length));
    const created = await admin.agents.get(createdAgentId);
    expect(created.name).toBe("OpenAI agent");
    expect(created.config.model).toEqual({ provider: "openai", name: "gpt-4.1", apiKeyEnv: "CONSOLE_OPENAI_KEY" });
    // The editor now holds the stored config, defaults filled in.
    expect(JSON.parse(await page.inputValue("#config-text")).limits.toolTimeout).toBe(30_000);
  });

  it("shows the gateway's refusal at the lines its paths name, and a syntax error before anything is sent", async () => {
    const stored = await page.inputValue("#config-text");
    const broken = stored.replace('"apiKeyEnv": "CONSOLE_OPENAI_KEY"', '"apiKeyEnv": "GATEWAY_SECRET_KEY"').replace('"maxSteps": 10', '"maxSteps": 0');
    await page.fill("#config-text", broken);
    await page.click("#save-agent");
    await page.locator("#console-main .problems", { hasText: "Not saved: 2 problems" }).waitFor();
    const keyLine = await lineOf('"apiKeyEnv"');
    const stepsLine = await lineOf('"maxSteps"');
    expect(await page.locator(".gutter-line.has-problem").evaluateAll((lines) => lines.map((line) => Number((line as HTMLElement).dataset.line)))).toEqual(
      [stepsLine, keyLine].sort((a, b) => a - b),
    );
    const keyNote = page.locator(`.line-note[data-line="${keyLine}"]`);
    expect(await keyNote.textContent()).toContain("gateway's own keys");
    expect(await keyNote.getAttribute("data-path")).toBe("model.apiKeyEnv");
    expect(await page.locator(`.line-note[data-line="${stepsLine}"]`).getAttribute("data-path")).toBe("loop.maxSteps");
    expect(await page.locator('.editor-problems li[data-path="model.apiKeyEnv"]').textContent()).toContain(`line ${keyLine}`);
    await shoot("console-config-error");
    // Nothing was saved.
    expect((await admin.agents.get(createdAgentId)).config.model).toEqual({ provider: "openai", name: "gpt-4.1", apiKeyEnv: "CONSOLE_OPENAI_KEY" });

    const puts = requests.length;
    const withoutComma = stored.replace('"provider": "openai",', '"provider": "openai"');
    await page.fill("#config-text", withoutComma);
    await page.click("#save-agent");
    const syntaxLine = (await lineOf('"provider": "openai"')) + 1;
    await page.locator(`.line-note[data-line="${syntaxLine}"]`, { hasText: 'Expected "," or "}"' }).waitFor();
    expect(requests.slice(puts).filter((url) => url.includes(`/api/agents/${createdAgentId}`))).toEqual([]);
    await page.fill("#config-text", stored);
  });

  it("adds a tool and an MCP server with the forms, saves, and the gateway has them", async () => {
    await page.fill("#tool-name", "get_weather");
    await page.fill("#tool-description", "Current weather for a city");
    await page.selectOption("#tool-execution-type", "gateway");
    await page.fill("#tool-url", "https://api.example.com/weather?city={{city}}");
    await page.fill("#tool-arguments", "city");
    await page.getByRole("button", { name: "Add tool" }).click();
    await page.fill("#mcp-name", "docs");
    await page.fill("#mcp-url", "https://mcp.example.com/mcp");
    await page.fill("#mcp-allowed-tools", "search, fetch");
    await page.getByRole("button", { name: "Add MCP server" }).click();
    await page.click("#save-agent");
    await page.locator("#save-status", { hasText: "Saved" }).waitFor();
    const saved = await admin.agents.get(createdAgentId);
    expect(saved.config.tools).toEqual([
      expect.objectContaining({
        name: "get_weather",
        executionType: "gateway",
        execution: expect.objectContaining({ url: "https://api.example.com/weather?city={{city}}", method: "GET" }),
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      }),
    ]);
    expect(saved.config.mcp?.servers).toEqual([expect.objectContaining({ name: "docs", url: "https://mcp.example.com/mcp", allowedTools: ["search", "fetch"] })]);
    expect(await page.locator(".gutter-line.has-problem").count()).toBe(0);
    await page.locator("#config-text").evaluate((textarea) => (textarea.scrollTop = 0));
    await shoot("console-editor-saved");
  });

  it("exports the agent as a document and imports it back as a new agent", async () => {
    const downloading = page.waitForEvent("download");
    await page.click("#export-agent");
    const download = await downloading;
    expect(download.suggestedFilename()).toBe("openai-agent.agent.json");
    const path = join(shots, "exported.agent.json");
    await download.saveAs(path);
    const exported = JSON.parse(readFileSync(path, "utf8"));
    expect(exported.format).toBe("switchboard.agent");
    expect(exported.agent.config).toEqual((await admin.exportAgent(createdAgentId)).agent.config);

    await openView("#agents");
    await page.setInputFiles("#import-file", path);
    await page.fill("#import-name", "Imported copy");
    await page.getByRole("button", { name: "Import" }).click();
    await page.waitForFunction((original) => /^#agents\/agt_/.test(location.hash) && !location.hash.endsWith(original), createdAgentId);
    await page.locator("#config-text").waitFor();
    const importedId = decodeURIComponent(new URL(page.url()).hash.slice("#agents/".length));
    const imported = await admin.exportAgent(importedId);
    expect(imported.agent.name).toBe("Imported copy");
    expect({ ...imported.agent.config, agent: { ...imported.agent.config.agent, name: "OpenAI agent" } }).toEqual(exported.agent.config);

    // A file that is not JSON is refused with its line, before anything is sent.
    await openView("#agents");
    await page.setInputFiles("#import-file", { name: "broken.json", mimeType: "application/json", buffer: Buffer.from('{\n  "format": "switchboard.agent",\n  oops\n}') });
    await page.getByRole("button", { name: "Import" }).click();
    expect(await page.locator("#import-agent .problems").textContent()).toBe('broken.json is not JSON: Expected a member name in double quotes, found "o" (line 3, column 3)');
  });

  it("shows a run as a timeline of steps and tool calls with arguments, results, latency and errors", async () => {
    await openView(`#runs/${busy.agentId}`);
    const row = page.locator(`#runs-table tr[data-run-id="${busy.runId}"]`);
    expect(await row.getAttribute("data-status")).toBe("completed");
    expect(await row.locator("td").nth(5).textContent()).toBe("4 (2 failed)");
    await shoot("console-runs");
    await row.getByRole("link", { name: busy.runId }).click();
    await page.locator("#run-timeline").waitFor();
    const run: Run = await admin.runs.get(busy.runId);
    expect(await page.locator("#run-timeline > li.step").count()).toBe(run.steps.length);
    const calls = page.locator("#run-timeline li.call");
    expect(await calls.evaluateAll((items) => items.map((item) => `${(item as HTMLElement).dataset.toolName}:${(item as HTMLElement).dataset.status}`))).toEqual([
      "current_time:completed",
      "current_time:failed",
      "reserve:failed",
      "reserve:pending",
    ]);
    const completed = calls.nth(0);
    expect(JSON.parse((await completed.locator(".call-args pre").textContent()) ?? "null")).toEqual({ timezone: "UTC" });
    expect(JSON.parse((await completed.locator(".call-result pre").textContent()) ?? "null")).toMatchObject({ timeZone: "UTC" });
    expect(await completed.locator(".latency").textContent()).toMatch(/^\d+ ms$/);
    expect(await calls.nth(1).locator(".call-error").textContent()).toContain('Unknown time zone "Not/AZone"');
    expect(await calls.nth(1).locator(".badge.failure-kind").textContent()).toBe("internal");
    expect(await calls.nth(2).locator(".badge.failure-kind").textContent()).toBe("validation");
    expect(await page.locator('#run-timeline li.step[data-step="1"] .step-text').textContent()).toBe("Reserved, waiting for the warehouse.");
    expect(await page.locator(`.run-pending li[data-tool-call-id="${busy.pendingCallId}"]`).count()).toBe(1);
    await shoot("console-run-timeline", true);
  });

  it("cancels a pending call, with a reason noted on its run", async () => {
    await openView(`#pending/${busy.agentId}`);
    const call = page.locator(`li.pending-call[data-tool-call-id="${busy.pendingCallId}"]`);
    expect(await call.getAttribute("data-status")).toBe("pending");
    expect(JSON.parse((await call.locator(".call-args pre").textContent()) ?? "null")).toEqual({ item: "desk" });
    await shoot("console-pending-calls");
    await page.fill("#operator-reason", "the warehouse is closed today");
    await call.getByRole("button", { name: "Cancel" }).click();
    await page.locator("#pending-outcome", { hasText: "Cancelled reserve" }).waitFor();
    expect(await page.locator("#pending-outcome").textContent()).toContain("now resolved");
    // Gone from the open calls (once the list is read again, after the outcome line); shown with the resolved ones, with Redeliver.
    await page.locator(`li.pending-call[data-tool-call-id="${busy.pendingCallId}"]`).waitFor({ state: "detached" });
    const { pendingToolCalls } = await admin.agents.pendingToolCalls(busy.agentId, { status: "resolved" });
    expect(pendingToolCalls).toEqual([expect.objectContaining({ toolCallId: busy.pendingCallId, status: "resolved" })]);
    const run = await admin.runs.get(busy.runId);
    expect(run.notes).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "operator", message: expect.stringContaining("the warehouse is closed today") })]));
    await page.selectOption("#pending-filter", "resolved");
    const resolved = page.locator(`li.pending-call[data-tool-call-id="${busy.pendingCallId}"][data-status="resolved"]`);
    await resolved.waitFor();
    expect(await resolved.getByRole("button").allTextContents()).toEqual(["Redeliver"]);
    await shoot("console-pending-cancelled");
  });

  it("subscribes a webhook (a refused URL shown under its field), deletes one, and redelivers a dead letter", async () => {
    const listening = await receiver(200, changed);
    await openView("#webhooks");
    await page.fill("#webhook-url", "ftp://example.com/hook");
    await page.selectOption("#webhook-agent", busy.agentId);
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page.locator('#new-webhook .field-problem[data-path="url"]').filter({ hasText: /.+/ }).waitFor();
    await page.fill("#webhook-url", listening.url);
    await page.getByRole("button", { name: "Subscribe" }).click();
    const { webhooks } = await until("the subscription", async () => {
      const page_ = await admin.webhooks.list({ agentId: busy.agentId });
      return page_.webhooks.length > 0 ? page_ : undefined;
    });
    expect(webhooks).toEqual([expect.objectContaining({ url: listening.url, events: ["run.completed", "run.failed"], agentId: busy.agentId })]);
    const subscription = page.locator(`li.subscription[data-webhook-id="${webhooks[0].id}"]`);
    await subscription.waitFor();

    const seeded = await subscriptionDeadLetter(listening.url);
    await openView("#webhooks");
    const letter = page.locator(`li.dead-letter[data-dead-letter-id="${seeded.id}"]`);
    await letter.waitFor();
    expect(await letter.getAttribute("data-status")).toBe("dead");
    await shoot("console-webhooks", true);
    await letter.getByRole("button", { name: "Redeliver" }).click();
    await until("the redelivered push", async () => (listening.pushes.length > 0 ? true : undefined));
    expect(listening.pushes.map((push) => push.headers["webhook-id"])).toEqual([seeded.webhookId]);

    await page.locator(`li.subscription[data-webhook-id="${webhooks[0].id}"] .delete-subscription`).click();
    await subscription.waitFor({ state: "detached" });
    expect((await admin.webhooks.list({ agentId: busy.agentId })).webhooks).toEqual([]);
  });

  it("shows every delivery attempt live from the agents' streams, as the receiver got it, and closes the streams when the view is left", async () => {
    const hook = await receiver(503, changed);
    const subscribe = (target: { agentId: string } | { spaceId: string }) => admin.webhooks.create({ url: hook.url, events: ["run.completed"], ...target });
    // More agents with subscriptions than the console reads at once over HTTP/1.1 (4: `npm run dev` speaks HTTP/1.1),
    // subscribed first, so the two below are the newest and read.
    const unread = [];
    for (const index of [1, 2, 3]) {
      const agent = await admin.agents.create({ agent: { name: `Console quiet ${index}` }, model: { provider: "scripted", turns: [] } });
      unread.push(await subscribe({ agentId: agent.id }));
    }
    // One agent subscribed on its own, which also pushes a tool call to the same receiver (its deadline passes while the
    // receiver refuses it: a dead letter); one subscribed only through a space it is a member of.
    const direct = await admin.agents.create({
      agent: { name: "Console deliveries" },
      model: {
        provider: "scripted",
        turns: [
          {
            toolCalls: [
              { name: "reserve", args: {} },
              { name: "skip", args: {} },
            ],
          },
        ],
      },
      tools: [
        {
          name: "reserve",
          description: "Reserve",
          executionType: "external",
          isAsync: true,
          visible: false,
          inputSchema: { type: "object" },
          execution: { webhook: hook.url, expiresIn: 1_500 },
        },
      ],
    });
    const member = await admin.agents.create({ agent: { name: "Console space member" }, model: { provider: "scripted", turns: [] } });
    const space = await admin.spaces.create({ name: "Console deliveries", memberIds: [member.entityId] });
    const ownSubscription = await subscribe({ agentId: direct.id });
    const spaceSubscription = await subscribe({ spaceId: space.id });
    const expectedSubscription = new Map([
      [direct.id, ownSubscription.id],
      [member.id, spaceSubscription.id],
    ]);

    await openView("#webhooks");
    for (const agentId of [direct.id, member.id]) await page.locator(`#delivery-streams li[data-agent-id="${agentId}"][data-status="open"]`).waitFor();
    expect(await page.locator("#delivery-streams li").count()).toBe(4);
    await until("four stream requests open", async () => (openStreams.size === 4 ? true : undefined));
    expect(await page.locator("#deliveries-stream-bound").textContent()).toMatch(
      /agents have subscriptions .* at most 4 streams at once over http\/1\.1.*: the 4 found first .* are read, the other \d+ (or more )?are not\./,
    );
    const drawn = await page.locator("#console-main").getAttribute("data-drawn");

    await admin.agents.pushInbox(direct.id, { hello: "deliveries" });
    await admin.agents.pushInbox(member.id, { hello: "deliveries" });
    const bodyOf = (push: (typeof hook.pushes)[number]) => JSON.parse(push.body);
    const header = (push: (typeof hook.pushes)[number], name: string) => String(push.headers[name]);
    // The receiver refused the run events of both agents and the tool call, which became a dead letter.
    await until("both agents' run events and the tool call at the receiver", async () => {
      const agents = new Set(hook.pushes.filter((push) => bodyOf(push).type === "run.completed").map((push) => bodyOf(push).data.agentId));
      return agents.has(direct.id) && agents.has(member.id) && hook.pushes.some((push) => bodyOf(push).type === "tool.call") ? true : undefined;
    });
    const callPush = hook.pushes.find((push) => bodyOf(push).type === "tool.call");
    const callId = header(callPush as (typeof hook.pushes)[number], "webhook-id");
    const deadLettered = page.locator(`#deliveries-table tr.delivery[data-kind="call"][data-webhook-id="${callId}"][data-outcome="dead_lettered"]`);
    await deadLettered.waitFor({ timeout: 20_000 });
    expect(await deadLettered.locator("code").first().textContent()).toBe("tool.webhook.dead_lettered");
    expect(await deadLettered.locator(".delivery-target").textContent()).toContain("pushed tool call");

    // Every attempt the receiver answered with 503 is a failed row with HTTP 503, for the subscription that pushed it.
    const refused = hook.pushes.slice();
    expect(refused.every((push) => push.status === 503)).toBe(true);
    for (const push of refused) {
      const row = page.locator(
        `#deliveries-table tr.delivery[data-webhook-id="${header(push, "webhook-id")}"][data-attempt="${header(push, "x-switchboard-attempt")}"][data-outcome="failed"]`,
      );
      await row.waitFor();
      expect(await row.locator(".delivery-outcome .error-line").textContent()).toBe("HTTP 503");
      const body = bodyOf(push);
      if (body.type === "tool.call") {
        expect(await row.getAttribute("data-kind")).toBe("call");
        continue;
      }
      expect(await row.getAttribute("data-subscription-id")).toBe(expectedSubscription.get(body.data.agentId));
      await row.locator(".delivery-target .url", { hasText: hook.url }).waitFor();
    }
    // Newest first.
    const times = await page.locator("#deliveries-table tr.delivery time").evaluateAll((items) => items.map((item) => item.getAttribute("datetime") ?? ""));
    expect(times).toEqual([...times].sort().reverse());

    // The receiver is fixed; a new event is delivered, and its row comes without the view being drawn again.
    hook.answerWith(200);
    await admin.agents.pushInbox(direct.id, { hello: "again" });
    const delivered = await until("a push the receiver accepted", async () => hook.pushes.find((push) => push.status === 200 && bodyOf(push).type === "run.completed"));
    const deliveredRow = page.locator(
      `#deliveries-table tr.delivery[data-webhook-id="${header(delivered, "webhook-id")}"][data-attempt="${header(delivered, "x-switchboard-attempt")}"][data-outcome="delivered"]`,
    );
    await deliveredRow.waitFor();
    expect(await deliveredRow.getAttribute("data-subscription-id")).toBe(expectedSubscription.get(bodyOf(delivered).data.agentId));
    expect(await page.locator("#console-main").getAttribute("data-drawn")).toBe(drawn);
    await shoot("console-deliveries", true);

    // Pushed tool calls can be left out.
    await page.uncheck("#deliveries-show-calls");
    expect(await deadLettered.isVisible()).toBe(false);
    expect(await deliveredRow.isVisible()).toBe(true);

    // Drawn again, the view reads the same attempts from what the streams keep, with no more streams open than before.
    const shown = await page.locator("#deliveries-table tr.delivery").count();
    await openView("#webhooks");
    await deliveredRow.waitFor();
    await deadLettered.waitFor();
    await page.waitForFunction((count) => document.querySelectorAll("#deliveries-table tr.delivery").length >= count, shown);
    await until("four stream requests open", async () => (openStreams.size === 4 ? true : undefined));

    // Leaving the view closes every stream; so does signing out (then signed in again for the tests after this one).
    await openView("#agents");
    await until("every stream request closed after leaving the view", async () => (openStreams.size === 0 ? true : undefined));
    await openView("#webhooks");
    await until("four stream requests open", async () => (openStreams.size === 4 ? true : undefined));
    await page.click("#sign-out");
    await until("every stream request closed after signing out", async () => (openStreams.size === 0 ? true : undefined));
    await page.fill("#secretKey", gateway.vars.GATEWAY_SECRET_KEY);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForFunction(() => document.getElementById("console-main")?.dataset.ready === "true");

    for (const subscription of [...unread, ownSubscription, spaceSubscription]) await admin.webhooks.delete(subscription.id);
  });

  it("draws the tool statistics as charts: calls by outcome and failure kind, p50 and p95, and over time", async () => {
    await openView(`#stats/${busy.agentId}`);
    const { tools } = await admin.agents.toolStats(busy.agentId);
    const bars = (chart: string, label: string) =>
      page
        .locator(`#${chart} g.bar-row[data-label="${label}"] rect.bar`)
        .evaluateAll((rects) => Object.fromEntries(rects.map((rect) => [rect.getAttribute("data-series"), Number(rect.getAttribute("data-value"))])));
    const time = tools.find((tool) => tool.toolName === "current_time");
    const reserve = tools.find((tool) => tool.toolName === "reserve");
    expect(time).toMatchObject({ calls: 2, failed: 1, failures: { internal: 1 } });
    expect(reserve).toMatchObject({ calls: 2, failed: 1, failures: { validation: 1 } });
    expect(await bars("chart-calls", "current_time")).toEqual({ ok: 1, internal: 1 });
    expect(await bars("chart-calls", "reserve")).toEqual({ ok: 1, validation: 1 });
    expect(await bars("chart-latency", "reserve")).toEqual({ median: reserve?.latencyMs.median, p95: reserve?.latencyMs.p95 });
    // A bar is as long as its value says, against the same axis.
    const widths = await page.locator('#chart-calls g.bar-row[data-label="current_time"] rect.bar').evaluateAll((rects) => rects.map((rect) => rect.getBoundingClientRect().width));
    expect(widths).toHaveLength(2);
    expect(Math.abs(widths[0] - widths[1])).toBeLessThan(1);
    expect(widths[0]).toBeGreaterThan(50);
    expect(await page.locator("#stats-scope").textContent()).toContain("keeps no history of them over time");
    // Over time: every call of the recent runs counted once, as succeeded or failed.
    const columns = await page
      .locator("#chart-over-time rect.bar")
      .evaluateAll((rects) => rects.map((rect) => `${rect.getAttribute("data-series")}:${rect.getAttribute("data-value")}`));
    const counted = columns.reduce((sum, entry) => sum + Number(entry.split(":")[1]), 0);
    expect(counted).toBe(4);
    expect(columns.filter((entry) => entry.startsWith("failed:")).reduce((sum, entry) => sum + Number(entry.split(":")[1]), 0)).toBe(2);
    expect(await page.locator('#chart-over-time circle.point[data-series="p95"]').count()).toBeGreaterThan(0);
    await shoot("console-tool-stats", true);
  });

  it("loaded nothing from outside the gateway and threw no error", async () => {
    expect(requests.filter((url) => !url.startsWith(gateway.baseUrl) && !url.startsWith("data:") && !url.startsWith("blob:"))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

describe("the deliveries the console keeps", () => {
  const attempt = (agentId: string, seq: number, ms: number): Delivery => ({
    agentId,
    seq,
    at: new Date(Date.UTC(2026, 0, 1) + ms).toISOString(),
    type: "webhook.failed",
    kind: "subscription",
    outcome: "failed",
    subscriptionId: "whk_1",
    webhookId: `evt_${agentId}_${seq}`,
    attempt: 1,
    error: "HTTP 503",
  });
  const key = (delivery: Delivery) => `${delivery.agentId}:${delivery.seq}`;

  it("keeps the newest 500 attempts, newest first, whatever order the streams give them in", () => {
    const list = new DeliveryList(500);
    // What the page shows, kept the way the page keeps its rows: each attempt put at the index it is given, the row dropped taken off the end.
    const shown: Delivery[] = [];
    const add = (delivery: Delivery) => {
      const placed = list.add(delivery);
      if (!placed) return;
      shown.splice(placed.index, 0, delivery);
      if (placed.dropped) expect(shown.pop()).toBe(placed.dropped);
    };
    // One stream's whole history, then another's, whose attempts fall between the first one's.
    const first = Array.from({ length: 400 }, (_, index) => attempt("agt_a", index + 1, (index + 1) * 10));
    const second = Array.from({ length: 400 }, (_, index) => attempt("agt_b", index + 1, (index + 1) * 10 + 5));
    for (const delivery of [...first, ...second]) add(delivery);
    const newest = [...first, ...second].sort((a, b) => (a.at < b.at ? 1 : -1)).slice(0, 500);
    expect(shown.map(key)).toEqual(newest.map(key));
    expect(list.size).toBe(500);
    expect(list.dropped).toBe(300);
    // Older than every attempt kept, the list full: not kept. Seen already (a stream read again): not kept twice.
    expect(list.add(attempt("agt_c", 1, 0))).toBeUndefined();
    expect(list.dropped).toBe(301);
    expect(list.add(shown[0])).toBeUndefined();
    expect(list.dropped).toBe(301);
    // Two attempts of the same millisecond on one stream: the later seq first.
    const tie = new DeliveryList(10);
    expect(tie.add(attempt("agt_a", 1, 0))).toEqual({ index: 0 });
    expect(tie.add(attempt("agt_a", 2, 0))).toEqual({ index: 0 });
  });
});
