/**
 * What a card tells a UI beyond the call itself: who may answer it
 * (`answeredBy`, the same rule the result route enforces), who did
 * (`answerer`), and what became of it unanswered (`escalatedTo` /
 * `escalatedFrom`, `expiredAt`, `remindedAt`). Members carry their role, so a
 * page can decide `answeredBy: {roles}` without asking. These fields say
 * nothing of the tool's data: public-key clients get them for minimal tools.
 */
import { describe, expect, it } from "vitest";
import { callJson, createHuman, createSpace, memberHeaders, postMessage, secret } from "../support/api";
import { settledRuns, waitForRuns } from "../support/agents";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

type Part = {
  toolCallId: string;
  runId: string;
  status: string;
  kind?: string;
  args?: unknown;
  result?: unknown;
  answeredBy?: unknown;
  answerer?: string;
  escalatedTo?: string;
  escalatedFrom?: string;
  expiredAt?: string;
  remindedAt?: string;
};
type World = Awaited<ReturnType<typeof toolWorld>>;

const ask = (overrides: Record<string, unknown> = {}) => ({
  name: "ask",
  description: "Ask a person",
  executionType: "space",
  inputSchema: { type: "object", properties: { question: { type: "string" } } },
  ...overrides,
});

const transfer = (approval: Record<string, unknown>) => ({
  name: "transfer",
  description: "Move money",
  executionType: "internal",
  inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
  approval,
});

async function firstCard(world: World): Promise<Part> {
  const event = await world.spaceStream.waitFor((entry) => entry.type === "space.message" && entry.data.role === "tool");
  return (event.data.parts as Part[])[0];
}

async function updatedCard(world: World, toolCallId: string, predicate: (part: Part) => boolean, timeoutMs = 5_000): Promise<Part> {
  const event = await world.spaceStream.waitFor(
    (entry) => entry.type === "space.message.updated" && ((entry.data.parts as Part[] | undefined) ?? []).some((part) => part.toolCallId === toolCallId && predicate(part)),
    timeoutMs,
  );
  return (event.data.parts as Part[]).find((part) => part.toolCallId === toolCallId) as Part;
}

describe("who may answer, on the card", () => {
  it("an approval limited to entities says so; a member outside the list gets 403; the listed one's answer names them", async () => {
    const boss = await createHuman("Boss");
    const world = await toolWorld([transfer({ required: true, timeout: 20_000, answeredBy: { entities: [boss] } })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 7 } }] },
      { toolCalls: [skip] },
    ]);
    await secret(`/api/spaces/${world.spaceId}/members`, { body: { entityId: boss } });
    await world.wake();
    const card = await firstCard(world);
    expect(card).toMatchObject({ kind: "approval", status: "requires_action", answeredBy: { kind: "entities", entityIds: [boss] } });
    const refused = await submitResult(card.runId, card.toolCallId, { approved: true }, await memberHeaders(world.person));
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain(`Only ${boss} may answer`);
    expect((await submitResult(card.runId, card.toolCallId, { approved: true, reason: "fine" }, await memberHeaders(boss))).status).toBe(200);
    const settled = await updatedCard(world, card.toolCallId, (part) => part.status === "complete");
    expect(settled).toMatchObject({ answerer: boss, result: { approved: true, reason: "fine" }, answeredBy: { kind: "entities", entityIds: [boss] } });
    // What the page reads on load says the same.
    const { body } = await secret<{ messages: { parts?: Part[] }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    expect(body.messages.flatMap((message) => message.parts ?? []).find((part) => part.toolCallId === card.toolCallId)).toMatchObject({ answerer: boss, status: "complete" });
    world.close();
  });

  it("the secret key answers as no one: no answerer on the card", async () => {
    const world = await toolWorld([transfer({ required: true, timeout: 20_000 })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 1 } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const card = await firstCard(world);
    expect(card.answeredBy).toBeUndefined();
    expect((await submitResult(card.runId, card.toolCallId, { approved: false, reason: "no" })).status).toBe(200);
    const settled = await updatedCard(world, card.toolCallId, (part) => part.status === "complete");
    expect(settled.answerer).toBeUndefined();
    expect(settled.result).toEqual({ approved: false, reason: "no" });
    world.close();
  });

  it("a space tool for a role says which; members carry their role", async () => {
    const world = await toolWorld([ask({ isAsync: true, answeredBy: { roles: ["approver", "admin"] } })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: { question: "ok?" } }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const card = await firstCard(world);
    expect(card.answeredBy).toEqual({ kind: "roles", roles: ["approver", "admin"] });
    await secret(`/api/spaces/${world.spaceId}/members/${world.person}`, { method: "PUT", body: { role: "approver" } });
    const { body } = await callJson<{ members: { id: string; role?: string; type: string }[] }>(`/api/spaces/${world.spaceId}/members`, {
      headers: await memberHeaders(world.person),
    });
    expect(body.members.find((member) => member.id === world.person)).toMatchObject({ role: "approver" });
    expect(body.members.find((member) => member.type === "agent")?.role).toBeUndefined();
    world.close();
  });

  it("answeredBy initiator names the person whose message started the run", async () => {
    const world = await toolWorld([ask({ isAsync: true, answeredBy: "initiator" })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: {} }, skip] },
      { toolCalls: [skip] },
    ]);
    await postMessage(world.spaceId, world.person, "ask me");
    const card = await firstCard(world);
    expect(card.answeredBy).toEqual({ kind: "initiator", entityId: world.person });
    world.close();
  });

  it("a minimal tool's card keeps who may answer for a JWT client, never its arguments", async () => {
    const lead = await createHuman("Lead");
    const world = await toolWorld([ask({ isAsync: true, display: { mode: "minimal" }, answeredBy: { entities: [lead] } })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: { question: "secret plans?" } }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const card = await firstCard(world);
    const { body } = await callJson<{ messages: { parts?: Part[] }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`, { headers: await memberHeaders(world.person) });
    const seen = body.messages.flatMap((message) => message.parts ?? []).find((part) => part.toolCallId === card.toolCallId);
    expect(seen).toEqual({ type: "tool_call", toolCallId: card.toolCallId, toolName: "ask", status: "requires_action", answeredBy: { kind: "entities", entityIds: [lead] } });
    world.close();
  });
});

describe("what became of an unanswered card", () => {
  it("escalated: the old card says where it went, the new one where it came from and who may answer", async () => {
    const boss = await createHuman("Boss");
    const bossRoom = await createSpace([boss], "Escalations");
    const world = await toolWorld(
      [transfer({ required: true, timeout: 400, onTimeout: "escalate", escalateTo: { spaceId: bossRoom }, answeredBy: { entities: [boss] } })],
      (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 9 } }] }, { toolCalls: [skip] }],
    );
    await secret(`/api/spaces/${bossRoom}/members`, { body: { entityId: world.agent.entityId } });
    await world.wake();
    const card = await firstCard(world);
    const old = await updatedCard(world, card.toolCallId, (part) => part.status === "error", 8_000);
    expect(old.escalatedTo).toBe(bossRoom);
    const { body } = await secret<{ messages: { parts?: Part[] }[] }>(`/api/spaces/${bossRoom}/messages?afterSeq=0`);
    const moved = body.messages.flatMap((message) => message.parts ?? []).find((part) => part.kind === "approval") as Part;
    expect(moved).toMatchObject({ status: "requires_action", escalatedFrom: world.spaceId, answeredBy: { kind: "entities", entityIds: [boss] }, args: { amount: 9 } });
    expect((await submitResult(moved.runId, moved.toolCallId, { approved: true }, await memberHeaders(boss))).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "completed" });
    world.close();
  });

  it("expired: the card says when", async () => {
    const world = await toolWorld([ask({ isAsync: true, execution: { expiresIn: 300 } })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: {} }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const card = await firstCard(world);
    const expired = await updatedCard(world, card.toolCallId, (part) => part.status === "error", 8_000);
    expect(Date.parse(expired.expiredAt as string)).not.toBeNaN();
    expect(JSON.stringify(expired.result)).toContain("expired");
    await settledRuns(world.agent.id);
    world.close();
  });
});
