/**
 * Approval cards on the live page, in a real headless Chromium against a real
 * `npm run dev`: two people in one space, an agent whose `transfer` tool needs
 * Ada's approval (`answeredBy: {entities: [ada]}`). Ada gets Approve / Deny,
 * a reason and the arguments to edit; the gateway's refusal of bad edits
 * stays on her card; her edited approval runs the tool with the edited
 * arguments; her denial with a reason reaches the model. Bob sees the same
 * cards read-only, saying who may answer; a `space` tool limited to Ada is
 * read-only for him too. A card brought up again by a reminder says so, and
 * one nobody answers ends denied automatically. Screenshots go to
 * SWITCHBOARD_SCREENSHOTS (default: a folder in the system's tmp).
 */
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signToken } from "../../client/src/index";
import { pageLink } from "../../cli/src/commands";
import type { SpaceMember, ToolCallPart } from "../../client/src/index";
import { answerPermission } from "../../web/src/who-may-answer";
import { launchChromium } from "./chromium";
import { admin, gateway, spaceEvent } from "./gateway";

const shots = process.env.SWITCHBOARD_SCREENSHOTS ?? join(tmpdir(), "switchboard-approval-cards");
mkdirSync(shots, { recursive: true });

let browser: Browser;
const pageErrors: string[] = [];
const world = { ada: "", bob: "", spaceId: "", agentId: "", agentEntityId: "", nudgerId: "" };
let ada: Page;
let bob: Page;

async function signedInPage(entityId: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(`${entityId}: ${error.message}`));
  const token = await signToken(entityId, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" });
  await page.goto(pageLink(gateway.baseUrl, gateway.vars.GATEWAY_PUBLIC_KEY, token, world.spaceId));
  await page.locator('#connection[data-status="open"]').waitFor({ timeout: 20_000 });
  return page;
}

const approvalCard = (page: Page, status: string, amount: number): Locator =>
  page.locator(`.tool-card[data-kind="approval"][data-status="${status}"]`, { has: page.locator(".tool-args pre", { hasText: `"amount": ${amount}` }) });

async function shoot(what: Page | Locator, name: string): Promise<void> {
  await what.screenshot({ path: join(shots, `${name}.png`) });
}

beforeAll(async () => {
  browser = await launchChromium();
  world.ada = (await admin.entities.create({ type: "human", name: "Ada" })).id;
  world.bob = (await admin.entities.create({ type: "human", name: "Bob" })).id;
  const agent = await admin.agents.create({ agent: { name: "Treasurer" }, model: { provider: "scripted", turns: [] } });
  const nudger = await admin.agents.create({ agent: { name: "Nudger" }, model: { provider: "scripted", turns: [] } });
  const space = await admin.spaces.create({ name: "Treasury", memberIds: [world.ada, world.bob, agent.id, nudger.id] });
  Object.assign(world, { spaceId: space.id, agentId: agent.id, agentEntityId: agent.entityId, nudgerId: nudger.id });
  const enter = { name: "enter_space", args: { spaceId: space.id } };
  await admin.agents.update(agent.id, {
    agent: { name: "Treasurer" },
    model: {
      provider: "scripted",
      turns: [
        { toolCalls: [enter, { name: "transfer", args: { amount: 500, to: "acct-1" } }] },
        { toolCalls: [{ name: "transfer", args: { amount: 20, to: "acct-2" } }] },
        { toolCalls: [{ name: "ask_ada", args: { question: "Which account next?" } }] },
        { toolCalls: [{ name: "skip", args: {} }] },
      ],
    },
    tools: [
      {
        name: "transfer",
        description: "Move money between accounts",
        executionType: "internal",
        inputSchema: { type: "object", properties: { amount: { type: "number", minimum: 1 }, to: { type: "string" } }, required: ["amount", "to"] },
        approval: { required: true, timeout: 120_000, answeredBy: { entities: [world.ada] } },
      },
      {
        name: "ask_ada",
        description: "Ask Ada a question",
        executionType: "space",
        isAsync: true,
        answeredBy: { entities: [world.ada] },
        inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
        resultSchema: { type: "object", properties: { account: { type: "string", title: "Account" } }, required: ["account"] },
      },
    ],
  });
  await admin.agents.update(nudger.id, {
    agent: { name: "Nudger" },
    model: { provider: "scripted", turns: [{ toolCalls: [enter, { name: "nudge", args: { amount: 3 } }] }, { toolCalls: [{ name: "skip", args: {} }] }] },
    tools: [
      {
        name: "nudge",
        description: "Nudge someone",
        executionType: "internal",
        inputSchema: { type: "object", properties: { amount: { type: "number" } } },
        approval: { required: true, timeout: 6_000, reminders: [4_000] },
      },
    ],
  });
  ada = await signedInPage(world.ada);
  bob = await signedInPage(world.bob);
});

afterAll(async () => {
  await browser?.close();
});

describe("approval cards on the live page", () => {
  it("Ada, whom the approval names, gets Approve / Deny, a reason and the arguments to edit; Bob sees it read-only with who may answer", async () => {
    await admin.agents.pushInbox(world.agentId, { go: true });
    const card = approvalCard(ada, "requires_action", 500);
    await card.waitFor({ timeout: 20_000 });
    expect(await card.getAttribute("data-can-answer")).toBe("true");
    expect(await card.locator(".question").textContent()).toBe("Treasurer wants to run transfer. Approve?");
    expect(JSON.parse((await card.locator(".tool-args pre").textContent()) ?? "null")).toEqual({ amount: 500, to: "acct-1" });
    await expect(card.getByRole("button", { name: "Approve" }).isVisible()).resolves.toBe(true);
    await expect(card.getByRole("button", { name: "Deny" }).isVisible()).resolves.toBe(true);
    await expect(card.locator('input[name="reason"]').isVisible()).resolves.toBe(true);
    expect(await card.locator(".badge").textContent()).toBe("needs approval");
    await shoot(card, "1-ada-approval-card");

    const seen = approvalCard(bob, "requires_action", 500);
    await seen.waitFor({ timeout: 20_000 });
    expect(await seen.getAttribute("data-can-answer")).toBe("false");
    expect(await seen.locator("button").count()).toBe(0);
    expect(await seen.locator("textarea, input").count()).toBe(0);
    expect(await seen.locator(".who-may-answer").textContent()).toBe("Only Ada may approve or deny this.");
    expect(JSON.parse((await seen.locator(".tool-args pre").textContent()) ?? "null")).toEqual({ amount: 500, to: "acct-1" });
    await shoot(seen, "2-bob-read-only-approval");
  });

  it("arguments edited badly are refused by the gateway and the refusal stays on the card; edited well, the tool runs with them", async () => {
    const card = approvalCard(ada, "requires_action", 500);
    await card.locator("summary", { hasText: "Edit arguments" }).click();
    const args = card.locator('textarea[name="args"]');
    expect(JSON.parse(await args.inputValue())).toEqual({ amount: 500, to: "acct-1" });
    await args.fill('{"amount": "lots", "to": "acct-1"}');
    await card.getByRole("button", { name: "Approve" }).click();
    const problems = card.locator(".problems");
    await problems.filter({ hasText: "422" }).waitFor({ timeout: 10_000 });
    expect(await problems.textContent()).toContain("amount");
    await shoot(card, "3-ada-edit-refused");
    // Not JSON at all: said on the card, nothing sent.
    await args.fill("{amount: 50");
    await card.getByRole("button", { name: "Approve" }).click();
    await problems.filter({ hasText: "not valid JSON" }).waitFor();

    await args.fill('{"amount": 50, "to": "acct-1"}');
    await card.locator('input[name="reason"]').fill("50 is enough for now");
    await card.getByRole("button", { name: "Approve" }).click();
    const approved = ada.locator('.tool-card[data-kind="approval"][data-status="complete"]', { has: ada.locator('[data-outcome="approved"]') });
    await approved.waitFor({ timeout: 20_000 });
    expect(await approved.locator(".decision-line").textContent()).toBe("✔ Approved by Ada (you): 50 is enough for now, with edited arguments");
    expect(JSON.parse((await approved.locator(".tool-args.edited pre").textContent()) ?? "null")).toEqual({ amount: 50, to: "acct-1" });
    expect(await approved.locator(".badge").textContent()).toBe("approved");
    // Bob's page follows live, naming Ada.
    const followed = bob.locator('.tool-card[data-kind="approval"][data-status="complete"] [data-outcome="approved"] .decision-line');
    await followed.waitFor({ timeout: 20_000 });
    expect(await followed.textContent()).toBe("✔ Approved by Ada: 50 is enough for now, with edited arguments");
    await shoot(approved, "4-ada-approved-edited");
  });

  it("denied with a reason: the card says so live, and the model got the denial", async () => {
    const card = approvalCard(ada, "requires_action", 20);
    await card.waitFor({ timeout: 20_000 });
    await card.locator('input[name="reason"]').fill("over budget");
    await card.getByRole("button", { name: "Deny" }).click();
    const denied = ada.locator('.tool-card[data-kind="approval"]', { has: ada.locator('[data-outcome="denied"]') });
    await denied.waitFor({ timeout: 20_000 });
    expect(await denied.locator(".decision-line").textContent()).toBe("✘ Denied by Ada (you): over budget");
    expect(await denied.locator(".badge").textContent()).toBe("declined");
    expect(await denied.getAttribute("data-tone")).toBe("declined");
    await bob.locator('[data-outcome="denied"] .decision-line', { hasText: "✘ Denied by Ada: over budget" }).waitFor({ timeout: 20_000 });
  });

  it("a space tool only Ada may answer: a form for her, read-only for Bob", async () => {
    const mine = ada.locator('.tool-card[data-tool-name="ask_ada"][data-status="requires_action"]');
    await mine.locator("form.answer-form").waitFor({ timeout: 20_000 });
    const theirs = bob.locator('.tool-card[data-tool-name="ask_ada"][data-status="requires_action"]');
    await theirs.waitFor({ timeout: 20_000 });
    expect(await theirs.getAttribute("data-can-answer")).toBe("false");
    expect(await theirs.locator("form, button").count()).toBe(0);
    expect(await theirs.locator(".who-may-answer").textContent()).toBe("Only Ada may answer this.");
    expect(await theirs.locator(".badge").textContent()).toBe("waiting for an answer");
    await shoot(bob, "5-bob-page");
    await shoot(ada, "6-ada-page");

    // The run: the edited approval ran the tool with the edited arguments; the denial reached the model.
    const finished = await spaceEvent(world.spaceId, "agent.cycle.finished", (event) => event.data.agentEntityId === world.agentEntityId);
    const run = await admin.runs.get(finished.data.runId);
    expect(run.status).toBe("completed");
    const transfers = (run.toolCalls as { toolName: string; status: string; result?: unknown; error?: string }[]).filter((call) => call.toolName === "transfer");
    expect(transfers).toHaveLength(2);
    expect(transfers[0]).toMatchObject({ status: "completed", result: { success: true, args: { amount: 50, to: "acct-1" } } });
    expect(transfers[1]).toMatchObject({ status: "failed", error: expect.stringContaining("denied: over budget") });
  });

  it("a reminder shows on the card; unanswered, it ends denied automatically", async () => {
    await admin.agents.pushInbox(world.nudgerId, { go: true });
    const card = ada.locator('.tool-card[data-kind="approval"][data-tool-name="nudge"]');
    await card.locator(".note-reminded").waitFor({ timeout: 20_000 });
    expect(await card.locator(".note-reminded").textContent()).toMatch(/^Reminder: brought up again at .+\.$/);
    await shoot(card, "7-ada-reminded");
    await card.locator('[data-outcome="denied"]').waitFor({ timeout: 20_000 });
    expect(await card.locator(".decision-line").textContent()).toBe("✘ Denied automatically: nobody answered in time");
    expect(await card.locator(".note-reminded").count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});

describe("who may answer, as the page reads a card", () => {
  const member = (id: string, name: string, role?: string): [string, SpaceMember] => [id, { id, name, type: "human", joinedAt: "2026-11-01T00:00:00.000Z", ...(role && { role }) }];
  const members = new Map([member("ent_ada", "Ada", "approver"), member("ent_bob", "Bob"), member("ent_pat", "Pat", "admin")]);
  const card = (answeredBy?: ToolCallPart["answeredBy"]): ToolCallPart => ({
    type: "tool_call",
    toolCallId: "apr_1",
    toolName: "transfer",
    status: "requires_action",
    ...(answeredBy && { answeredBy }),
  });
  const as = (entityId: string) => ({ entityId, members });

  it("anyone in the space when the card names no one", () => {
    expect(answerPermission(card(), as("ent_bob"))).toEqual({ ok: true });
  });

  it("listed people, by name (an id when the page does not know the name)", () => {
    const listed = card({ kind: "entities", entityIds: ["ent_ada", "ent_gone", "ent_pat"] });
    expect(answerPermission(listed, as("ent_ada"))).toEqual({ ok: true });
    expect(answerPermission(listed, as("ent_bob"))).toEqual({ ok: false, who: "Only Ada, ent_gone or Pat" });
  });

  it("members with a role: the viewer's own role in the space decides", () => {
    const roles = card({ kind: "roles", roles: ["approver", "owner"] });
    expect(answerPermission(roles, as("ent_ada"))).toEqual({ ok: true });
    expect(answerPermission(roles, as("ent_pat"))).toEqual({ ok: false, who: "Only members with the role approver or owner" });
    expect(answerPermission(roles, as("ent_bob"))).toEqual({ ok: false, who: "Only members with the role approver or owner" });
  });

  it("the initiator, or nobody with a token when no person started the run", () => {
    expect(answerPermission(card({ kind: "initiator", entityId: "ent_pat" }), as("ent_pat"))).toEqual({ ok: true });
    expect(answerPermission(card({ kind: "initiator", entityId: "ent_pat" }), as("ent_ada"))).toEqual({ ok: false, who: "Only Pat (whose message started this run)" });
    expect(answerPermission(card({ kind: "initiator" }), as("ent_ada"))).toEqual({ ok: false, who: "Only a server with the secret key (no person's message started this run)" });
  });
});
