/**
 * The live page for people on any screen, in a real headless Chromium against
 * a real `npm run dev`: the sign-in page and a space at 360 and 390 px wide
 * (the spaces fold behind a toggle; nothing is wider than the screen; the
 * composer is in view), Enter sends and Shift+Enter starts a new line, a card
 * that asks the signed-in person takes the focus on its first field while
 * the status line says the agent waits for them, a card they decline says
 * "declined" and one that fails says "failed" (neither looks complete), an
 * agent's Markdown is drawn rather than shown raw, and axe-core (the
 * accessibility rules, run inside the page) finds nothing serious or
 * critical on any of these. The agent is the demo agent's config in a space
 * of its own, so the demo space's script is left to `page.test.ts`.
 * Screenshots go to SWITCHBOARD_SCREENSHOTS (default: a folder in the
 * system's tmp).
 */
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { signToken, type SpaceMember, type TimelineMessage, type ToolCallPart } from "../../client/src/index";
import { pageLink } from "../../cli/src/commands";
import { demoAgentConfig, demoTexts, formWord } from "../../scripts/seed-demo.mjs";
import { cardBadge } from "../../web/src/card-badge";
import type { ToolCardContext } from "../../web/src/card-context";
import { waitingFor } from "../../web/src/who-may-answer";
import { launchChromium } from "./chromium";
import { admin, gateway } from "./gateway";
import { overflow, seriousViolations } from "./page-checks";

const shots = process.env.SWITCHBOARD_SCREENSHOTS ?? join(tmpdir(), "switchboard-page-any-screen");
mkdirSync(shots, { recursive: true });

let browser: Browser;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];
const world = { personId: "", spaceId: "", agentId: "", agentEntityId: "", token: "" };

beforeAll(async () => {
  browser = await launchChromium();
  const person = await admin.entities.create({ type: "human", name: "Robin" });
  const space = await admin.spaces.create({ name: "Robin's room", memberIds: [person.id] });
  // The demo agent's own config, created the way `npm run dev` seeds it (the script's plain JSON).
  const response = await fetch(`${gateway.baseUrl}/api/agents`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-secret-key": gateway.vars.GATEWAY_SECRET_KEY },
    body: JSON.stringify({ config: demoAgentConfig(space.id) }),
  });
  expect(response.status).toBe(201);
  const agent = z.object({ id: z.string(), entityId: z.string() }).parse(await response.json());
  await admin.spaces.addMember(space.id, agent.entityId);
  await admin.agents.pushInbox(agent.id, { event: "demo_started" });
  const token = await signToken(person.id, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" });
  Object.assign(world, { personId: person.id, spaceId: space.id, agentId: agent.id, agentEntityId: agent.entityId, token });
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
});

async function newPage(width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 780 } });
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(`${width}px: ${error.message}`));
  return page;
}

/** Robin's page on the room, once its stream is open. */
async function signedInPage(width: number): Promise<Page> {
  const page = await newPage(width);
  await page.goto(pageLink(gateway.baseUrl, gateway.vars.GATEWAY_PUBLIC_KEY, world.token, world.spaceId));
  await page.locator('#connection[data-status="open"]').waitFor({ timeout: 20_000 });
  await page.getByText(demoTexts.greeting).waitFor({ timeout: 20_000 });
  return page;
}

/** Whether the element is drawn wholly inside the viewport. */
async function inView(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((element) => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && box.left >= 0 && box.top >= 0 && box.right <= window.innerWidth && box.bottom <= window.innerHeight;
  });
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

const card = (page: Page, status: string) => page.locator(`.tool-card[data-tool-name="ask_feedback"][data-status="${status}"]:not(.streaming)`);

describe("the sign-in page", () => {
  it("shows its hints as code, not Markdown, fits 360 and 390 px, and has no serious accessibility violation", async () => {
    for (const width of [360, 390, 1280]) {
      const page = await newPage(width);
      await page.goto(`${gateway.baseUrl}/`);
      await page.locator(".sign-in").waitFor();
      const text = await page.locator("body").innerText();
      expect(text).not.toContain("`");
      expect(text).not.toContain("**");
      expect(await page.locator(".sign-in code").allTextContents()).toEqual(["npm run dev", "npx switchboard link ent_…"]);
      expect(await overflow(page)).toEqual({ wider: [], scrollsSideways: false });
      expect(await seriousViolations(page)).toEqual([]);
      if (width === 360) await shoot(page, "sign-in-360");
    }
  });
});

describe("the live page on a narrow screen", () => {
  it("at 360 and 390 px the spaces fold behind a toggle, the composer is in view, and nothing is wider than the screen", async () => {
    for (const width of [360, 390]) {
      const page = await signedInPage(width);
      const toggle = page.getByRole("button", { name: "Spaces" });
      expect(await toggle.isVisible()).toBe(true);
      expect(await toggle.getAttribute("aria-expanded")).toBe("false");
      expect(await page.locator("#spaces-nav").isVisible()).toBe(false);
      expect(await inView(page, "#composer")).toBe(true);
      expect(await inView(page, ".composer button[type=submit]")).toBe(true);
      expect(await overflow(page)).toEqual({ wider: [], scrollsSideways: false });
      expect(await seriousViolations(page)).toEqual([]);
      await shoot(page, `narrow-${width}`);

      await toggle.click();
      expect(await toggle.getAttribute("aria-expanded")).toBe("true");
      const link = page.locator("#spaces-nav .space-link", { hasText: "Robin's room" });
      expect(await link.isVisible()).toBe(true);
      // The list takes the focus, on the space open now.
      expect(await link.evaluate((element) => element === document.activeElement && element.getAttribute("aria-current") === "page")).toBe(true);
      expect(await overflow(page)).toEqual({ wider: [], scrollsSideways: false });
      expect(await seriousViolations(page)).toEqual([]);
      await shoot(page, `narrow-${width}-spaces-open`);
      // Escape folds it away again and gives the focus back to the toggle.
      await page.keyboard.press("Escape");
      expect(await page.locator("#spaces-nav").isVisible()).toBe(false);
      expect(await toggle.evaluate((element) => element === document.activeElement)).toBe(true);
      await page.context().close();
    }
  });

  it("a wide screen shows the spaces beside the space, with no toggle", async () => {
    const page = await signedInPage(1280);
    expect(await page.locator("#spaces-nav").isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Spaces" }).isVisible()).toBe(false);
    await page.context().close();
  });
});

describe("keyboard, status line and badges, at 390 px", () => {
  let page: Page;

  it("Enter sends the message and Shift+Enter starts a new line in it", async () => {
    page = await signedInPage(390);
    await page.locator("#composer").focus();
    await page.keyboard.type("First line");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("second line");
    expect(await page.locator("#composer").inputValue()).toBe("First line\nsecond line");
    expect(await page.locator(".message.mine").count()).toBe(0);
    await page.keyboard.press("Enter");
    await page.locator(".message.mine").waitFor({ timeout: 10_000 });
    expect(await page.locator(".message.mine .text").innerText()).toBe("First line\nsecond line");
    expect(await page.locator("#composer").inputValue()).toBe("");
  });

  it("the card that asks Robin takes the focus on its first field, and the status line says the agent waits for Robin", async () => {
    const asking = card(page, "requires_action");
    await asking.locator("form.answer-form").waitFor({ timeout: 20_000 });
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "rating", undefined, { timeout: 5_000 });
    expect(await asking.locator('input[name="rating"]').evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await page.locator(".thinking").textContent()).toBe("Demo agent is waiting for you");
    expect(await asking.locator(".badge").textContent()).toBe("waiting for you");
    expect(await overflow(page)).toEqual({ wider: [], scrollsSideways: false });
    expect(await inView(page, "#composer")).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shoot(page, "narrow-390-card-asks");
  });

  it("declined: the badge says declined in its own colour, never the green of complete, and the agent carries on", async () => {
    const asking = card(page, "requires_action");
    await asking.getByRole("button", { name: "Decline" }).click();
    const declined = page.locator('.tool-card[data-tool-name="ask_feedback"][data-tone="declined"]');
    await declined.waitFor({ timeout: 20_000 });
    expect(await declined.getAttribute("data-status")).toBe("error");
    expect(await declined.locator(".badge").textContent()).toBe("declined");
    expect(await declined.locator(".tool-error .caption").textContent()).toBe("declined");
    await page.locator(".message:not(.draft) .text", { hasText: demoTexts.thanks }).waitFor({ timeout: 20_000 });
    expect(await page.locator(".thinking").textContent()).not.toContain("waiting for you");
    await shoot(page, "narrow-390-declined");
  });

  it(`failed: a call that ends in error without anyone saying no says failed, in red; "${formWord}" brings the card back first`, async () => {
    await page.locator("#composer").fill(formWord);
    await page.keyboard.press("Enter");
    const asking = card(page, "requires_action");
    await asking.locator("form.answer-form").waitFor({ timeout: 20_000 });
    // The new card takes the focus too, and the status line waits for Robin again.
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "rating", undefined, { timeout: 5_000 });
    expect(await page.locator(".thinking").textContent()).toBe("Demo agent is waiting for you");
    const callId = (await asking.getAttribute("data-tool-call-id")) ?? "";
    const { pendingToolCalls } = await admin.agents.pendingToolCalls(world.agentId, { status: "waiting" });
    const call = z
      .array(z.object({ toolCallId: z.string(), runId: z.string() }).loose())
      .parse(pendingToolCalls)
      .find((pending) => pending.toolCallId === callId);
    expect(call).toBeDefined();
    // A service reports the failure with the secret key: nobody said no, so the card failed.
    await admin.submitToolError(call?.runId ?? "", callId, "The feedback service is down");
    const failed = page.locator(`.tool-card[data-tool-call-id="${callId}"][data-tone="failed"]`);
    await failed.waitFor({ timeout: 20_000 });
    expect(await failed.locator(".badge").textContent()).toBe("failed");
    expect(await failed.locator(".tool-error pre").textContent()).toBe("The feedback service is down");

    const colour = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((element) => getComputedStyle(element).color);
    const [declinedColour, failedColour] = [await colour('[data-tone="declined"] .badge'), await colour('[data-tone="failed"] .badge')];
    // A complete badge's colour, drawn by the same stylesheet.
    const completeColour = await page.evaluate(() => {
      const probe = document.createElement("span");
      probe.className = "badge badge-complete";
      document.body.append(probe);
      const value = getComputedStyle(probe).color;
      probe.remove();
      return value;
    });
    expect(new Set([declinedColour, failedColour, completeColour]).size).toBe(3);
    expect(failedColour).toBe("rgb(180, 35, 24)");
    expect(await overflow(page)).toEqual({ wider: [], scrollsSideways: false });
    expect(await seriousViolations(page)).toEqual([]);
    await shoot(page, "narrow-390-declined-and-failed");
  });

  it("an agent's Markdown is drawn, not shown raw", async () => {
    await admin.messages.send(world.spaceId, {
      entityId: world.agentEntityId,
      text: '## Summary\n**Bold** words, `inline code` and a [link](https://example.com/docs).\n\n- first\n- second\n\n```json\n{"ok": true}\n```',
    });
    const message = page.locator(".message", { has: page.locator("strong", { hasText: "Bold" }) });
    await message.waitFor({ timeout: 20_000 });
    const shown = await message.locator(".text").innerText();
    for (const raw of ["**", "`", "##", "](", "- first"]) expect(shown).not.toContain(raw);
    expect(await message.locator(".text code").first().textContent()).toBe("inline code");
    expect(await message.locator(".text a").getAttribute("href")).toBe("https://example.com/docs");
    expect(await message.locator(".text li").allTextContents()).toEqual(["first", "second"]);
    expect(await message.locator(".text pre code").textContent()).toBe('{"ok": true}');
    expect(await overflow(page)).toEqual({ wider: [], scrollsSideways: false });
    expect(await seriousViolations(page)).toEqual([]);
    await shoot(page, "narrow-390-markdown");
  });

  it("the same space on a wide screen has no serious accessibility violation either, and the page threw nothing", async () => {
    const wide = await signedInPage(1280);
    await wide.locator('.tool-card[data-tone="failed"]').waitFor({ timeout: 20_000 });
    expect(await seriousViolations(wide)).toEqual([]);
    await shoot(wide, "wide-1280-cards");
    expect(pageErrors).toEqual([]);
  });
});

describe("a card's badge, for every state the page draws", () => {
  const members = new Map<string, SpaceMember>([
    ["ent_ada", { id: "ent_ada", name: "Ada", type: "human", joinedAt: "2026-11-01T00:00:00.000Z" }],
    ["ent_svc", { id: "ent_svc", name: "Inventory", type: "service", joinedAt: "2026-11-01T00:00:00.000Z" }],
  ]);
  const message: TimelineMessage = { id: "msg_1", spaceId: "spc_1", entityId: "ent_agent", role: "tool", seq: 1, status: "complete", createdAt: "2026-11-01T00:00:00.000Z" };
  const badge = (part: Partial<ToolCallPart>, options: { draft?: boolean; mayAnswer?: boolean } = {}) => {
    const context: ToolCardContext = {
      part: { type: "tool_call", toolCallId: "call_1", toolName: "ask", status: "complete", ...part },
      message: { ...message, ...(options.draft && { draft: true }) },
      agentName: "Agent",
      permission: options.mayAnswer === false ? { ok: false, who: "Only Ada" } : { ok: true },
      nameOf: (id) => members.get(id)?.name ?? id,
      entityType: (id) => members.get(id)?.type,
      spaceNameOf: (id) => id,
      answer: async () => undefined,
      decline: async () => undefined,
      connectLink: async () => ({ startUrl: "http://127.0.0.1/oauth/start/flw_1?t=x" }),
    };
    const { text, tone } = cardBadge(context);
    return `${text} (${tone})`;
  };

  it("plain cards: running, waiting, complete, declined by a person, failed", () => {
    expect(badge({ status: "running" }, { draft: true })).toBe("streaming… (running)");
    expect(badge({ status: "running" })).toBe("running (running)");
    expect(badge({ status: "requires_action" })).toBe("waiting for you (waiting)");
    expect(badge({ status: "requires_action" }, { mayAnswer: false })).toBe("waiting for an answer (waiting)");
    expect(badge({ status: "complete", result: { rating: 4 } })).toBe("complete (complete)");
    // A person's error is a no; a service's, or one nobody gave (the tool broke), a failure.
    expect(badge({ status: "error", result: { error: "no thanks" }, answerer: "ent_ada" })).toBe("declined (declined)");
    expect(badge({ status: "error", result: { error: "no thanks" }, answerer: "ent_gone" })).toBe("declined (declined)");
    expect(badge({ status: "error", result: { error: "down" }, answerer: "ent_svc" })).toBe("failed (failed)");
    expect(badge({ status: "error", result: { error: "HTTP 500" } })).toBe("failed (failed)");
    // A result that carries an error is no success; the page's old Decline answered that way.
    expect(badge({ status: "complete", result: { error: "Declined by the person asked" } })).toBe("declined (declined)");
    expect(badge({ status: "complete", result: { error: "quota exceeded" } })).toBe("failed (failed)");
    expect(badge({ status: "error", expiredAt: "2026-11-01T00:00:00.000Z" })).toBe("expired (ended)");
    expect(badge({ status: "error", escalatedTo: "spc_2" })).toBe("escalated (ended)");
  });

  it("account cards: connect your account for the person it asks, waiting for an account for everyone else", () => {
    const account = { entityId: "ent_ada", service: "Notes", scopes: ["notes:read"], flowId: "flw_1", expiresAt: "2026-11-01T00:10:00.000Z" };
    expect(badge({ status: "requires_action", account })).toBe("connect your account (waiting)");
    expect(badge({ status: "requires_action", account }, { mayAnswer: false })).toBe("waiting for an account (waiting)");
    expect(badge({ status: "complete", account, result: { text: "ok" } })).toBe("complete (complete)");
  });

  it("approval cards: needs approval, approved, declined (by a person or by the timeout), failed", () => {
    const approval = { kind: "approval" as const };
    expect(badge({ ...approval, status: "requires_action" })).toBe("needs approval (waiting)");
    expect(badge({ ...approval, status: "complete", result: { approved: true } })).toBe("approved (complete)");
    expect(badge({ ...approval, status: "complete", result: { approved: false, reason: "over budget" } })).toBe("declined (declined)");
    expect(badge({ ...approval, status: "complete", result: { approved: false, automatic: true } })).toBe("declined (declined)");
    expect(badge({ ...approval, status: "error", result: { error: "boom" } })).toBe("failed (failed)");
    expect(badge({ ...approval, status: "error", expiredAt: "2026-11-01T00:00:00.000Z" })).toBe("expired (ended)");
  });

  it("the status line names whom a card waits for", () => {
    const viewer = (entityId: string) => ({
      entityId,
      members: new Map([...members, ["ent_bob", { id: "ent_bob", name: "Bob", type: "human" as const, joinedAt: "2026-11-01T00:00:00.000Z", role: "approver" }]]),
    });
    const waiting = (answeredBy?: ToolCallPart["answeredBy"]): ToolCallPart => ({
      type: "tool_call",
      toolCallId: "call_1",
      toolName: "ask",
      status: "requires_action",
      ...(answeredBy && { answeredBy }),
    });
    expect(waitingFor(waiting(), viewer("ent_ada"))).toBe("you");
    expect(waitingFor(waiting({ kind: "entities", entityIds: ["ent_ada"] }), viewer("ent_ada"))).toBe("you");
    expect(waitingFor(waiting({ kind: "entities", entityIds: ["ent_ada", "ent_svc"] }), viewer("ent_bob"))).toBe("Ada or Inventory");
    expect(waitingFor(waiting({ kind: "roles", roles: ["owner"] }), viewer("ent_bob"))).toBe("a member with the role owner");
    expect(waitingFor(waiting({ kind: "initiator", entityId: "ent_ada" }), viewer("ent_bob"))).toBe("Ada");
    expect(waitingFor(waiting({ kind: "initiator" }), viewer("ent_bob"))).toBe("a server with the secret key");
  });
});
