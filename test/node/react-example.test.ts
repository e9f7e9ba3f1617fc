/**
 * The React bindings (`@switchboard/react`) through their example app,
 * examples/react-space, as someone runs it: built with Vite into a
 * temporary folder, served by Vite's preview server with `/api` (requests
 * and the space's WebSocket) proxied to the live gateway, and opened in a
 * headless Chromium signed in as a person. A scripted agent in the person's
 * space streams its replies and asks through three `space` tools: one drawn
 * by the example's own component (`ask_feedback`), one by the registry's
 * Fallback (`pick_colour`), one the browser answers by itself with
 * `useToolHandler` (`browser_details`). A connection cut in the middle of a
 * streamed reply, and a view that goes to another space and comes back,
 * both resume after the last seq: nothing lost, nothing shown twice.
 * Screenshots go to SWITCHBOARD_SCREENSHOTS (default: a folder in the
 * system's tmp).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page, WebSocketRoute } from "playwright-core";
import { build, createLogger, type PreviewServer, preview } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signToken, type ToolCallPart, type ToolConfigInput } from "../../client/src/index";
import { feedbackTool } from "../../scripts/seed-demo.mjs";
import { launchChromium } from "./chromium";
import { admin, gateway, spaceEvent } from "./gateway";

const exampleRoot = join(import.meta.dirname, "..", "..", "examples", "react-space");
const shots = process.env.SWITCHBOARD_SCREENSHOTS ?? join(tmpdir(), "switchboard-react-example");
mkdirSync(shots, { recursive: true });

const texts = {
  intro: "Hello from a scripted agent! This reply streams into the React timeline a few characters at a time, then it is stored once.",
  thanks: "Thank you for the feedback. One more question, drawn by the fallback card this time.",
  done: "Got your colour and your browser's details. That is all for now.",
  more: "Here is a longer reply to cut in the middle: the connection drops while it streams, comes back by itself, and resumes after the last seq it had, so every word arrives exactly once.",
  missed: "You were in the other room when I said this; coming back, your view reads only what it missed.",
};

let browser: Browser;
let page: Page;
let server: PreviewServer;
let appUrl = "";
const outDir = mkdtempSync(join(tmpdir(), "switchboard-react-example-build-"));
const world = { personId: "", spaceId: "", sideSpaceId: "", agentId: "" };
const requests: string[] = [];
const pageErrors: string[] = [];
/** What the page's console said as an error or a warning (React's development build, which this test's NODE_ENV gives, warns of misuse there). */
const consoleProblems: string[] = [];
/** Every space stream the page opened: its URL and the seqs of the events passed on to the page. */
const sockets: { url: string; spaceId: string; seqs: number[] }[] = [];
let cutAtNextStreaming = false;
let cuts = 0;

async function shoot(what: Page | Locator, name: string): Promise<void> {
  await what.screenshot({ path: join(shots, `${name}.png`) });
}

beforeAll(async () => {
  const person = await admin.entities.create({ type: "human", name: "Pat" });
  const agent = await admin.agents.create({ agent: { name: "Helper" }, model: { provider: "scripted", turns: [] } });
  const space = await admin.spaces.create({ name: "Project room", memberIds: [person.id, agent.id] });
  const side = await admin.spaces.create({ name: "Side room", memberIds: [person.id] });
  Object.assign(world, { personId: person.id, spaceId: space.id, sideSpaceId: side.id, agentId: agent.id });
  const enter = { name: "enter_space", args: { spaceId: space.id } };
  const say = (text: string) => ({ name: "send_message", args: { text } });
  await admin.agents.update(agent.id, {
    agent: { name: "Helper" },
    model: {
      provider: "scripted",
      turns: [
        { toolCalls: [enter, say(texts.intro), { name: "ask_feedback", args: { question: "How is the React example?" } }] },
        { toolCalls: [say(texts.thanks), { name: "pick_colour", args: { question: "Which colour should the button be?" } }] },
        { toolCalls: [{ name: "browser_details", args: {} }] },
        { toolCalls: [say(texts.done), { name: "skip", args: {} }] },
        { toolCalls: [enter, say(texts.more), { name: "skip", args: {} }] },
        { toolCalls: [enter, say(texts.missed), { name: "skip", args: {} }] },
      ],
    },
    loop: { maxSteps: 6 },
    tools: [
      // The demo agent's own question (the example's custom card is made for its result schema); the gateway checks it at save.
      feedbackTool as ToolConfigInput,
      {
        name: "pick_colour",
        description: "Ask the person to pick a colour",
        executionType: "space",
        inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
        resultSchema: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] },
      },
      {
        name: "browser_details",
        description: "The person's browser: language, time zone, screen",
        executionType: "space",
        answeredBy: { entities: [person.id] },
        inputSchema: { type: "object", properties: {} },
      },
    ],
  });

  // The example as its docs build and serve it, from its own vite.config.ts; the proxy's target is this test's gateway.
  await build({ root: exampleRoot, logLevel: "warn", build: { outDir, emptyOutDir: true } });
  server = await preview({
    root: exampleRoot,
    customLogger: proxyLogger(),
    build: { outDir },
    preview: { host: "127.0.0.1", port: 0, proxy: { "/api": { target: gateway.baseUrl, ws: true, changeOrigin: true } } },
  });
  appUrl = (server.resolvedUrls?.local[0] ?? "").replace(/\/$/, "");
  expect(appUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
  page.on("request", (request) => requests.push(request.url()));
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") consoleProblems.push(`${message.type()}: ${message.text()} (${message.location().url})`);
  });
  await page.routeWebSocket(/\/api\/spaces\/[^/]+\/stream/, (route: WebSocketRoute) => {
    const upstream = route.connectToServer();
    const socket = { url: route.url(), spaceId: new URL(route.url()).pathname.split("/")[3], seqs: [] as number[] };
    sockets.push(socket);
    let cut = false;
    upstream.onMessage((frame) => {
      if (cut) return;
      route.send(frame);
      const seq = typeof frame === "string" ? seqOf(frame) : undefined;
      if (seq !== undefined) socket.seqs.push(seq);
      if (cutAtNextStreaming && typeof frame === "string" && frame.includes('"space.message.streaming"')) {
        cutAtNextStreaming = false;
        cut = true;
        cuts += 1;
        // Like a dropped network: the page's socket closes, and frames after this one never reach it on this connection.
        void route.close({ code: 4000, reason: "test: connection cut" });
        void upstream.close();
      }
    });
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(outDir, { recursive: true, force: true });
});

/**
 * Vite's logger at `warn`, less the proxy's report of a WebSocket the browser
 * dropped (the connection this test cuts, a page it closes): the proxy's
 * socket to the gateway is then reset, as expected.
 */
function proxyLogger() {
  const logger = createLogger("warn");
  const error = logger.error.bind(logger);
  logger.error = (message, options) => {
    if (!(message.includes("ws proxy") && message.includes("ECONNRESET"))) error(message, options);
  };
  return logger;
}

function seqOf(frame: string): number | undefined {
  try {
    const parsed: unknown = JSON.parse(frame);
    return typeof parsed === "object" && parsed !== null && "seq" in parsed && typeof parsed.seq === "number" ? parsed.seq : undefined;
  } catch {
    return undefined;
  }
}

/** The page's messages, in order, as a person reads them. */
const timeline = () =>
  page.$$eval(".timeline > li.message", (items) =>
    items.map((item) => ({
      id: (item as HTMLElement).dataset.messageId ?? "",
      seq: Number((item as HTMLElement).dataset.seq),
      text: item.querySelector(".text")?.firstChild?.textContent ?? "",
    })),
  );

/** Every message once, in seq order; each of `texts` exactly once. */
async function expectNoDuplicates(shown: string[]): Promise<void> {
  const items = await timeline();
  expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
  expect(items.map((item) => item.seq)).toEqual([...items.map((item) => item.seq)].sort((a, b) => a - b));
  for (const text of shown)
    expect(
      items.filter((item) => item.text === text),
      text,
    ).toHaveLength(1);
}

/** Records, in the page, the texts drafts show while they stream and each status the connection line goes through. */
async function recordInPage(): Promise<void> {
  await page.evaluate(() => {
    const seen = { drafts: [] as string[], connection: [] as string[] };
    (window as unknown as { recorded: typeof seen }).recorded = seen;
    new MutationObserver(() => {
      for (const draft of document.querySelectorAll('.message[data-draft="true"] .text')) seen.drafts.push(draft.firstChild?.textContent ?? "");
      const connection = document.getElementById("connection")?.dataset.status;
      if (connection && seen.connection.at(-1) !== connection) seen.connection.push(connection);
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

const recorded = () => page.evaluate(() => (window as unknown as { recorded: { drafts: string[]; connection: string[] } }).recorded);

/** The tool's card as the gateway stored it (with the result it was answered with). */
async function storedCard(toolName: string): Promise<ToolCallPart | undefined> {
  const { messages } = await admin.messages.list(world.spaceId, { limit: 200 });
  return messages.flatMap((message) => message.parts ?? []).find((part): part is ToolCallPart => part.type === "tool_call" && part.toolName === toolName);
}

describe("the React example app (examples/react-space), built with Vite, against the live gateway", () => {
  it("signs in as a person from the address, takes the credentials out of it, and shows the space live", async () => {
    const token = await signToken(world.personId, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" });
    await page.goto(`${appUrl}/?space=${world.spaceId}#${new URLSearchParams({ publicKey: gateway.vars.GATEWAY_PUBLIC_KEY, token })}`);
    await page.locator('#connection[data-status="open"]').waitFor({ timeout: 20_000 });
    expect(await page.locator("#me").textContent()).toBe("Pat");
    expect(await page.locator('.space-link[aria-current="page"]').textContent()).toBe("Project room");
    expect(page.url()).not.toContain("token=");
    // One stream for the space, though Strict Mode mounts every component twice.
    expect(sockets.filter((socket) => socket.spaceId === world.spaceId)).toHaveLength(1);
  });

  it("a message from the composer gets the agent's reply streamed word by word, then a card drawn by the example's own component", async () => {
    await recordInPage();
    await page.fill("#composer", "Hello from React");
    await page.keyboard.press("Enter");
    await page.locator(".message.mine .text", { hasText: "Hello from React" }).waitFor({ timeout: 10_000 });
    await page.locator('.message[data-draft="false"] .text', { hasText: texts.intro }).waitFor({ timeout: 20_000 });
    // The reply was on the page while it streamed, in pieces, before it was stored.
    const { drafts } = await recorded();
    expect(drafts.some((text) => text.length > 0 && text.length < texts.intro.length && texts.intro.startsWith(text))).toBe(true);

    const card = page.locator('.feedback-card[data-status="requires_action"]');
    await card.locator("form").waitFor({ timeout: 20_000 });
    expect(await card.locator("h3").textContent()).toBe("How is the React example?");
    // Drawn by the registry's component for ask_feedback, not by the fallback.
    expect(await page.locator('.sb-tool-card[data-tool-name="ask_feedback"]').count()).toBe(0);
    await shoot(card, "1-feedback-card");
  });

  it("answering the custom card posts the result with useToolResult; the agent carries on and the Fallback draws the tool no component names", async () => {
    const card = page.locator('.feedback-card[data-status="requires_action"]');
    // What the schema requires is checked before anything is sent.
    await card.getByRole("button", { name: "Send feedback" }).click();
    await card.locator(".problem", { hasText: "Choose a rating" }).waitFor();
    await card.getByRole("button", { name: "4", exact: true }).click();
    await card.locator('select[name="favourite"]').selectOption("Tool cards");
    await card.locator('textarea[name="comment"]').fill("Nice hooks");
    await card.getByRole("button", { name: "Send feedback" }).click();

    const done = page.locator('.feedback-card[data-status="complete"]');
    await done.locator(".outcome").waitFor({ timeout: 20_000 });
    expect(await done.locator(".outcome").textContent()).toBe("Thanks: 4/5, liked Tool cards most");
    expect((await storedCard("ask_feedback"))?.result).toEqual({ rating: 4, favourite: "Tool cards", comment: "Nice hooks" });
    await page.locator('.message[data-draft="false"] .text', { hasText: texts.thanks }).waitFor({ timeout: 20_000 });

    const fallback = page.locator('.sb-tool-card[data-tool-name="pick_colour"][data-status="requires_action"][data-draft="false"]');
    await fallback.locator("form.sb-answer").waitFor({ timeout: 20_000 });
    expect(await fallback.locator(".sb-badge").textContent()).toBe("waiting for you");
    expect(JSON.parse((await fallback.locator(".sb-tool-args").textContent()) ?? "null")).toEqual({ question: "Which colour should the button be?" });
    await shoot(page, "2-fallback-card");
    // Text that is not JSON stays on the page, unsent.
    await fallback.locator('textarea[name="result"]').fill("teal");
    await fallback.getByRole("button", { name: "Send answer" }).click();
    await fallback.locator(".sb-problem", { hasText: "The answer is not JSON" }).waitFor();
    await fallback.locator('textarea[name="result"]').fill('{"colour": "teal"}');
    await fallback.getByRole("button", { name: "Send answer" }).click();
    const picked = page.locator('.sb-tool-card[data-tool-name="pick_colour"][data-status="complete"]');
    await picked.locator(".sb-tool-result").waitFor({ timeout: 20_000 });
    expect(JSON.parse((await picked.locator(".sb-tool-result").textContent()) ?? "null")).toEqual({ colour: "teal" });
  });

  it("useToolHandler answers the card meant for this person by itself, and the agent finishes", async () => {
    const answered = page.locator('.sb-tool-card[data-tool-name="browser_details"][data-status="complete"]');
    await answered.locator(".sb-tool-result").waitFor({ timeout: 20_000 });
    const language = await page.evaluate(() => navigator.language);
    const call = await storedCard("browser_details");
    expect(call?.result).toMatchObject({ language, timeZone: expect.any(String), screen: expect.stringMatching(/^\d+×\d+$/) });
    expect(JSON.parse((await answered.locator(".sb-tool-result").textContent()) ?? "null")).toEqual(call?.result);
    await page.locator('.message[data-draft="false"] .text', { hasText: texts.done }).waitFor({ timeout: 20_000 });
    await expectNoDuplicates(["Hello from React", texts.intro, texts.thanks, texts.done]);
    await shoot(page, "3-answered");
  });

  it("a connection cut in the middle of a streamed reply comes back and resumes after the last seq: nothing lost, nothing shown twice", async () => {
    const before = sockets.length;
    cutAtNextStreaming = true;
    await page.fill("#composer", "Tell me more");
    await page.keyboard.press("Enter");
    await page.locator('.message[data-draft="false"] .text', { hasText: texts.more }).waitFor({ timeout: 30_000 });
    expect(cuts).toBe(1);
    const streams = sockets.filter((socket) => socket.spaceId === world.spaceId);
    expect(sockets.length).toBeGreaterThan(before);
    const [cut, resumed] = streams.slice(-2);
    // The new connection asked for what came after the last event the page had.
    expect(Number(new URL(resumed.url).searchParams.get("afterSeq"))).toBe(cut.seqs.at(-1));
    const seqs = streams.flatMap((socket) => socket.seqs);
    expect(seqs).toEqual(seqs.map((_, index) => seqs[0] + index));
    expect((await recorded()).connection).toEqual(expect.arrayContaining(["reconnecting", "open"]));
    await page.locator('#connection[data-status="open"]').waitFor();
    await expectNoDuplicates(["Hello from React", texts.intro, texts.thanks, texts.done, "Tell me more", texts.more]);
  });

  it("another space and back: the view remounts, its stream resumes after its last seq, and shows what it missed once", async () => {
    const shownBefore = (await timeline()).length;
    const lastSeqBefore =
      sockets
        .filter((socket) => socket.spaceId === world.spaceId)
        .flatMap((socket) => socket.seqs)
        .at(-1) ?? 0;
    await page.getByRole("button", { name: "Side room" }).click();
    await page.locator('.space-link[aria-current="page"]', { hasText: "Side room" }).waitFor();
    await page.locator('#connection[data-status="open"]').waitFor({ timeout: 20_000 });
    expect(await page.locator(".timeline > li").count()).toBe(0);

    // While the view is away, Pat (from another device) speaks in the room and the agent answers.
    await admin.messages.send(world.spaceId, { text: "While you were away", entityId: world.personId });
    await spaceEvent(world.spaceId, "space.message", (event) => event.data.text === texts.missed);

    const opened = sockets.length;
    await page.getByRole("button", { name: "Project room" }).click();
    await page.locator('.message[data-draft="false"] .text', { hasText: texts.missed }).waitFor({ timeout: 20_000 });
    const [back] = sockets.slice(opened).filter((socket) => socket.spaceId === world.spaceId);
    expect(Number(new URL(back.url).searchParams.get("afterSeq"))).toBe(lastSeqBefore);
    expect(back.seqs[0]).toBe(lastSeqBefore + 1);
    expect((await timeline()).length).toBe(shownBefore + 2);
    await expectNoDuplicates(["Hello from React", texts.intro, texts.thanks, texts.done, "Tell me more", texts.more, "While you were away", texts.missed]);
    await shoot(page, "4-back-in-the-room");
  });

  it("signs in from the form as well, and signs out back to it", async () => {
    const context = await browser.newContext({ viewport: { width: 700, height: 500 } });
    try {
      const fresh = await context.newPage();
      fresh.on("pageerror", (error) => pageErrors.push(error.message));
      await fresh.goto(`${appUrl}/`);
      await fresh.getByRole("heading", { name: "Sign in to a Switchboard space" }).waitFor({ timeout: 10_000 });
      await fresh.locator('input[name="publicKey"]').fill(gateway.vars.GATEWAY_PUBLIC_KEY);
      await fresh.locator('input[name="token"]').fill(await signToken(world.personId, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" }));
      await shoot(fresh, "0-sign-in-form");
      await fresh.getByRole("button", { name: "Sign in" }).click();
      await fresh.locator('#connection[data-status="open"]').waitFor({ timeout: 20_000 });
      expect(await fresh.locator("#me").textContent()).toBe("Pat");
      // No space asked for: the first of the person's spaces.
      expect(await fresh.locator(".space-link").allTextContents()).toEqual(expect.arrayContaining(["Project room", "Side room"]));
      await fresh.getByRole("button", { name: "Sign out" }).click();
      await fresh.getByRole("heading", { name: "Sign in to a Switchboard space" }).waitFor();
    } finally {
      await context.close();
    }
  });

  it("a card that asks Pat to connect an account: the default card's Connect button (useConnectAccount) opens the sign-in, and the call that waited completes", async () => {
    // Demo notes, the MCP server `npm run dev` started with its own authorization server, for an agent in a new room.
    const demo = await admin.agents.get(gateway.demo.agentId);
    const notesUrl = (demo.config.mcp?.servers ?? []).find((server) => server.name === "notes")?.url ?? "";
    const agent = await admin.agents.create({
      agent: { name: "Notes helper" },
      model: {
        provider: "scripted",
        turns: [
          {
            toolCalls: [
              { name: "enter_space", args: { spaceId: "SPACE" } },
              { name: "notes__whoami", args: {} },
            ],
          },
        ],
      },
      mcp: { servers: [{ name: "notes", url: notesUrl, auth: { type: "oauth", owner: "person", service: "Demo notes", tools: [{ name: "whoami" }] } }] },
    });
    const room = await admin.spaces.create({ name: "Notes room", memberIds: [world.personId, agent.entityId] });
    const config = (await admin.agents.get(agent.id)).config;
    await admin.agents.update(agent.id, JSON.parse(JSON.stringify(config).replaceAll("SPACE", room.id)));
    const token = await signToken(world.personId, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" });
    await page.goto(`${appUrl}/?space=${room.id}#${new URLSearchParams({ publicKey: gateway.vars.GATEWAY_PUBLIC_KEY, token })}`);
    await page.locator('#connection[data-status="open"]').waitFor({ timeout: 20_000 });
    await admin.messages.send(room.id, { text: "Who am I at Demo notes?", entityId: world.personId });

    const card = page.locator('.sb-tool-card[data-tool-name="notes__whoami"]');
    const connect = card.getByRole("button", { name: "Connect Demo notes" });
    await connect.waitFor({ timeout: 20_000 });
    expect(await card.locator(".sb-badge").textContent()).toBe("connect your account");
    await shoot(card, "6-connect-card");
    const [signIn] = await Promise.all([page.context().waitForEvent("page"), connect.click()]);
    await signIn.locator('input[name="login"]').waitFor({ timeout: 20_000 });
    await signIn.locator('input[name="login"]').fill("pat");
    await signIn.locator('input[name="password"]').fill("any password");
    await signIn.locator('button[type="submit"]').click();
    await signIn.getByText("Authorize").waitFor({ timeout: 20_000 });
    await signIn.locator('button[type="submit"]').click();
    await signIn.getByRole("heading", { name: "Connected Demo notes" }).waitFor({ timeout: 20_000 });
    await signIn.close();

    await page.locator('.sb-tool-card[data-tool-name="notes__whoami"][data-status="complete"]').waitFor({ timeout: 30_000 });
    expect(await card.locator(".sb-tool-result").textContent()).toContain("You are signed in to Demo notes as pat.");
    await shoot(card, "7-connected-card");
  });

  it("loaded nothing from outside its own origin, threw no error and printed no warning", async () => {
    expect(requests.filter((url) => !url.startsWith(appUrl) && !url.startsWith(appUrl.replace(/^http/, "ws")) && !url.startsWith("data:"))).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(consoleProblems).toEqual([]);
    await page.screenshot({ path: join(shots, "5-react-example-full.png"), fullPage: true });
  });
});
