/**
 * The live space page in a real headless Chromium, as a new user meets it:
 * open the link `npm run dev` printed, see the demo agent's reply stream in,
 * answer its `space` tool through the form generated from the tool's result
 * schema, and see the agent carry on; a connection cut in the middle of a
 * streamed reply loses and repeats nothing; `switchboard watch` in a "second
 * terminal" sees the same messages; saying "form" brings the form back and
 * `switchboard answer <callId> <json>` answers it; a failed run shows with its error.
 * Nothing is loaded from outside the gateway.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page, WebSocketRoute } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../cli/src/main";
import { demoTexts, formWord } from "../../scripts/seed-demo.mjs";
import { launchChromium } from "./chromium";
import { expiredCallDeadLetter, receiver, subscriptionDeadLetter } from "./dead-letters";
import { admin, gateway } from "./gateway";

let browser: Browser;
let page: Page;
const requests: string[] = [];
const pageErrors: string[] = [];
/** Stream connections the page opened, and a switch to cut the live one at the next streamed text. */
const sockets: { route: WebSocketRoute; url: string }[] = [];
let cutAtNextStreaming = false;
let cuts = 0;

beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("request", (request) => requests.push(request.url()));
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.routeWebSocket(/\/api\/spaces\/[^/]+\/stream/, (route) => {
    const server = route.connectToServer();
    sockets.push({ route, url: route.url() });
    server.onMessage((frame) => {
      route.send(frame);
      if (cutAtNextStreaming && typeof frame === "string" && frame.includes('"space.message.streaming"')) {
        cutAtNextStreaming = false;
        cuts += 1;
        // Like a dropped network: the page's socket closes; frames after this one never reach it on this connection.
        void route.close({ code: 4000, reason: "test: connection cut" });
        void server.close();
      }
    });
  });
});

afterAll(async () => {
  await browser?.close();
});

/** Records, in the page, every status a tool card shows and whether the connection went to reconnecting. */
async function recordInPage(): Promise<void> {
  await page.evaluate(() => {
    const seen = { cardStatuses: [] as string[], connection: [] as string[], draftTexts: [] as string[], seqs: [] as number[] };
    const page = window as unknown as {
      recorded: typeof seen;
      switchboardPage: { live: { subscription: { on(type: "event", listener: (event: { seq: number }) => void): void } } };
    };
    page.recorded = seen;
    // Every event the page's subscription delivers, from here on.
    page.switchboardPage.live.subscription.on("event", (event) => seen.seqs.push(event.seq));
    new MutationObserver(() => {
      for (const card of document.querySelectorAll<HTMLElement>(".tool-card")) {
        const status = `${card.dataset.toolName}:${card.dataset.status}${card.classList.contains("streaming") ? ":streaming" : ""}`;
        if (seen.cardStatuses.at(-1) !== status) seen.cardStatuses.push(status);
      }
      const connection = document.getElementById("connection")?.dataset.status;
      if (connection && seen.connection.at(-1) !== connection) seen.connection.push(connection);
      for (const draft of document.querySelectorAll(".message.draft .text")) seen.draftTexts.push(draft.textContent ?? "");
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

const recorded = () => page.evaluate(() => (window as unknown as { recorded: { cardStatuses: string[]; connection: string[]; draftTexts: string[]; seqs: number[] } }).recorded);

/** The page's messages, in order, as a person reads them. */
const timeline = () =>
  page.$$eval(".timeline > li.message", (items) =>
    items.map((item) => ({
      id: (item as HTMLElement).dataset.messageId ?? "",
      seq: Number((item as HTMLElement).dataset.seq),
      text: item.querySelector(".text")?.textContent ?? "",
    })),
  );

describe("the live space page", () => {
  it("signs in from the printed link and shows the demo space with the agent's greeting", async () => {
    await page.goto(gateway.link);
    await page.getByText(demoTexts.greeting).waitFor({ timeout: 20_000 });
    expect(await page.locator("#me").textContent()).toBe("Demo person");
    expect(await page.locator(".space-header h1").textContent()).toBe("Demo space");
    // The credentials left the address bar.
    expect(page.url()).not.toContain("token=");
    await page.locator('#connection[data-status="open"]').waitFor({ timeout: 10_000 });
  });

  it("a message from the page gets a streamed reply and a space tool card with a form; answering it lets the agent carry on", async () => {
    await recordInPage();
    await page.fill("#composer", "Hello from Chromium");
    await page.keyboard.press("Enter");
    await page.locator(".message.mine", { hasText: "Hello from Chromium" }).waitFor({ timeout: 10_000 });
    await page.getByText(demoTexts.ask).waitFor({ timeout: 20_000 });
    const card = page.locator('.tool-card[data-tool-name="ask_feedback"][data-status="requires_action"]');
    await card.locator("form.answer-form").waitFor({ timeout: 20_000 });
    expect(await card.locator(".tool-args pre").textContent()).toContain("How is the demo going?");
    // The form comes from the tool's resultSchema: a 1–5 number, a choice, a comment.
    const rating = card.locator('input[name="rating"]');
    expect(await rating.getAttribute("min")).toBe("1");
    expect(await rating.getAttribute("max")).toBe("5");
    expect(await card.locator('select[name="favourite"] option').allTextContents()).toEqual(["Choose…", "Streaming text", "Tool cards", "The CLI", "Nothing yet"]);
    // Required fields are checked before anything is sent.
    await card.getByRole("button", { name: "Send answer" }).click();
    await card.locator(".problems", { hasText: "rating: required" }).waitFor();

    await rating.fill("4");
    await card.locator('select[name="favourite"]').selectOption({ label: "Tool cards" });
    await card.locator('textarea[name="comment"]').fill("Lovely");
    cutAtNextStreaming = true; // the agent's next streamed reply loses its connection half-way
    await card.getByRole("button", { name: "Send answer" }).click();

    const done = page.locator('.tool-card[data-tool-name="ask_feedback"][data-status="complete"]');
    await done.waitFor({ timeout: 20_000 });
    expect(JSON.parse((await done.locator(".tool-result pre").textContent()) ?? "null")).toEqual({ rating: 4, favourite: "Tool cards", comment: "Lovely" });
    await page.locator(".message:not(.draft) .text", { hasText: demoTexts.thanks }).waitFor({ timeout: 20_000 });

    const seen = await recorded();
    expect(seen.cardStatuses.filter((status) => status.startsWith("ask_feedback:")).map((status) => status.split(":")[1])).toEqual(
      expect.arrayContaining(["requires_action", "complete"]),
    );
    const statuses = seen.cardStatuses.map((status) => status.split(":")[1]);
    expect(statuses.lastIndexOf("requires_action")).toBeLessThan(statuses.indexOf("complete"));
    // The reply was seen while it streamed, before it was stored.
    expect(seen.draftTexts.some((text) => text.length > 0 && demoTexts.ask.startsWith(text.replace("▍", "")))).toBe(true);
  });

  it("the connection cut in the middle of the streamed reply came back and resumed: no event lost, none repeated", async () => {
    expect(cuts).toBe(1);
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    const resumedFrom = Number(new URL(sockets.at(-1)!.url).searchParams.get("afterSeq"));
    expect(resumedFrom).toBeGreaterThan(0);
    const seen = await recorded();
    expect(seen.connection).toEqual(expect.arrayContaining(["reconnecting", "open"]));
    // The events delivered across the cut: consecutive seqs, each once.
    expect(seen.seqs.length).toBeGreaterThan(10);
    expect(seen.seqs).toEqual(seen.seqs.map((_, index) => seen.seqs[0] + index));
    expect(seen.seqs).toContain(resumedFrom + 1);
    const items = await timeline();
    // Every message once, in seq order, and the reply whole (its text exactly, not doubled, not cut).
    expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
    expect(items.map((item) => item.seq)).toEqual([...items.map((item) => item.seq)].sort((a, b) => a - b));
    expect(items.filter((item) => item.text === demoTexts.thanks)).toHaveLength(1);
    expect(items.filter((item) => item.text === demoTexts.ask)).toHaveLength(1);
    expect(items.filter((item) => item.text === demoTexts.greeting)).toHaveLength(1);
    await page.locator(".banner").waitFor({ state: "attached" });
  });

  it("`switchboard watch` in a second terminal shows the same conversation", async () => {
    const controller = new AbortController();
    const events: { type: string; data: { id?: string; text?: string; parts?: unknown[] } }[] = [];
    let out = "";
    const watching = runCli(["watch", "--json", "--url", gateway.baseUrl, "--dev-vars", gateway.envFile, "--state-dir", gateway.stateDir], {
      out: (text) => {
        out += text;
        let newline = out.indexOf("\n");
        while (newline !== -1) {
          const line = out.slice(0, newline);
          out = out.slice(newline + 1);
          const event = JSON.parse(line);
          events.push(event);
          if (event.type === "space.message" && event.data.text === demoTexts.thanks) controller.abort();
          newline = out.indexOf("\n");
        }
      },
      err: () => undefined,
      cwd: gateway.stateDir,
      env: {},
      signal: controller.signal,
    });
    const deadline = setTimeout(() => controller.abort(), 20_000);
    expect(await watching).toBe(0);
    clearTimeout(deadline);
    const watched = events.filter((event) => event.type === "space.message" && !event.data.parts).map((event) => [event.data.id, event.data.text]);
    const shown = (await timeline()).filter((item) => item.text !== "").map((item) => [item.id, item.text]);
    expect(watched).toEqual(shown);
  });

  it(`saying "${formWord}" brings the form back, and \`switchboard answer <callId> <json>\` answers it from a terminal while the page follows`, async () => {
    await page.fill("#composer", formWord);
    await page.keyboard.press("Enter");
    const asking = page.locator('.tool-card[data-tool-name="ask_feedback"][data-status="requires_action"]:not(.streaming)');
    await asking.locator("form.answer-form").waitFor({ timeout: 20_000 });
    // The card asks the demo person: the focus is on its first field, and the status line waits for them.
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "rating", undefined, { timeout: 5_000 });
    expect(await page.locator(".thinking").textContent()).toBe("Demo agent is waiting for you");
    const callId = (await asking.getAttribute("data-tool-call-id")) ?? "";
    expect(callId).not.toBe("");

    let printed = "";
    const answer = { rating: 5, favourite: "The CLI", comment: "Answered from a terminal" };
    const code = await runCli(["answer", callId, JSON.stringify(answer), "--url", gateway.baseUrl, "--dev-vars", gateway.envFile, "--state-dir", gateway.stateDir], {
      out: (text) => (printed += text),
      err: (text) => (printed += text),
      cwd: gateway.stateDir,
      env: {},
    });
    expect(printed).toBe(`answered ${callId}\n`);
    expect(code).toBe(0);
    const done = page.locator(`.tool-card[data-tool-call-id="${callId}"][data-status="complete"]`);
    await done.waitFor({ timeout: 20_000 });
    expect(JSON.parse((await done.locator(".tool-result pre").textContent()) ?? "null")).toEqual(answer);
    expect(await done.locator(".badge").textContent()).toBe("complete");
    await page.waitForFunction(
      (thanks) => [...document.querySelectorAll(".message:not(.draft) .text")].filter((text) => text.textContent === thanks).length === 2,
      demoTexts.thanks,
      {
        timeout: 20_000,
      },
    );
  });

  it("a run that fails shows in the space with its error", async () => {
    // A local model server that is not running (connection refused on loopback): the run fails at its model call.
    const offline = await admin.agents.create({
      agent: { name: "Offline model agent" },
      model: { provider: "openai-compatible", name: "llama3.1", baseURL: "http://127.0.0.1:9/v1" },
    });
    await admin.spaces.addMember(gateway.demo.spaceId, offline.id);
    await page.fill("#composer", "Anyone there?");
    await page.keyboard.press("Enter");
    const failure = page.locator(".run-failed", { hasText: "Offline model agent's run failed" }).first();
    await failure.waitFor({ timeout: 30_000 });
    const error = (await failure.locator(".error-text").textContent()) ?? "";
    const [run] = (await admin.agents.runs(offline.id, { limit: 1 })).runs;
    expect(run.status).toBe("failed");
    expect(error.length).toBeGreaterThan(0);
    expect(run.error).toContain(error.slice(0, 40));
    expect(await failure.locator("small").textContent()).toMatch(/^run_/);
  });

  it("loaded nothing from outside the gateway, and threw no error", async () => {
    const outside = requests.filter((url) => !url.startsWith(gateway.baseUrl) && !url.startsWith("data:"));
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
    const directory = process.env.SWITCHBOARD_SCREENSHOTS ?? join(gateway.stateDir, "..");
    mkdirSync(directory, { recursive: true });
    await page.screenshot({ path: join(directory, "live-space-page.png"), fullPage: false });
  });
});

describe("the operator's page", () => {
  it("an operator signs in with the secret key, sees the dead letters and redelivers one: the receiver gets it once", async () => {
    const listening = await receiver(200);
    const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
    try {
      const seeded = await subscriptionDeadLetter(listening.url);
      const expired = await expiredCallDeadLetter();
      const operator = await context.newPage();
      const errors: string[] = [];
      operator.on("pageerror", (error) => errors.push(error.message));
      await operator.goto(`${gateway.baseUrl}/`);
      await operator.locator(".operator-sign-in summary").click();
      // A wrong key is refused on the spot, with the gateway's reason.
      await operator.locator("#secretKey").fill("not-the-secret-key");
      await operator.getByRole("button", { name: "Sign in as operator" }).click();
      await operator.locator(".sign-in .problems").filter({ hasText: "Could not sign in as operator" }).waitFor();
      await operator.locator(".operator-sign-in summary").click();
      await operator.locator("#secretKey").fill(gateway.vars.GATEWAY_SECRET_KEY);
      await operator.getByRole("button", { name: "Sign in as operator" }).click();

      const letter = operator.locator(`li.dead-letter[data-dead-letter-id="${seeded.id}"]`);
      await letter.waitFor();
      expect(await letter.getAttribute("data-status")).toBe("dead");
      expect(await letter.locator("strong").textContent()).toBe("run.completed");
      expect(await letter.locator(".error-line").textContent()).toBe("HTTP 503");
      // Newest first: the expired call's dead letter landed after the seeded one.
      const ids = await operator.locator("li.dead-letter").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.deadLetterId));
      expect(ids.indexOf(expired.deadLetter.id)).toBeLessThan(ids.indexOf(seeded.id));
      const directory = process.env.SWITCHBOARD_SCREENSHOTS ?? join(gateway.stateDir, "..");
      mkdirSync(directory, { recursive: true });
      await operator.screenshot({ path: join(directory, "dead-letters-page.png") });

      await letter.getByRole("button", { name: "Redeliver" }).click();
      await operator.locator(`li.dead-letter[data-dead-letter-id="${seeded.id}"][data-status="redelivering"]`).waitFor();
      const deadline = Date.now() + 20_000;
      while ((await operator.locator(`li.dead-letter[data-dead-letter-id="${seeded.id}"]`).getAttribute("data-status")) !== "delivered") {
        if (Date.now() > deadline) throw new Error("the page never showed the redelivery as delivered");
        await operator.locator("#refresh-dead-letters").click();
        await operator.locator(`li.dead-letter[data-dead-letter-id="${seeded.id}"]`).waitFor();
      }
      expect(listening.pushes.map((push) => push.headers["webhook-id"])).toEqual([seeded.webhookId]);
      expect(await operator.locator(`li.dead-letter[data-dead-letter-id="${seeded.id}"] button.redeliver`).isDisabled()).toBe(true);

      // The expired call cannot be pushed again: the page says why.
      const gone = operator.locator(`li.dead-letter[data-dead-letter-id="${expired.deadLetter.id}"]`);
      await gone.getByRole("button", { name: "Redeliver" }).click();
      await gone.locator(".outcome").filter({ hasText: "Not redelivered" }).waitFor();
      expect(await gone.locator(".outcome").textContent()).toContain("expired");
      await operator.screenshot({ path: join(directory, "dead-letters-redelivered.png") });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await listening.close();
    }
  });
});
