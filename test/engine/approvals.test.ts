import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createHuman, memberHeaders, secret } from "../support/api";
import { agentObject, settledRuns, waitForRuns } from "../support/agents";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

type Card = { toolCallId: string; status: string; kind?: string; approves?: string; args?: unknown; runId: string };

const transfer = (approval: Record<string, unknown>) => ({
  name: "transfer",
  description: "Move money",
  executionType: "gateway",
  visible: false,
  inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
  execution: { url: "http://api.test/echo", method: "POST" },
  approval,
});

async function approvalCard(world: Awaited<ReturnType<typeof toolWorld>>): Promise<Card> {
  const event = await world.spaceStream.waitFor((entry) => entry.type === "space.message" && (entry.data.parts as Card[] | undefined)?.[0]?.kind === "approval");
  return (event.data.parts as Card[])[0];
}

describe("approvals", () => {
  it("a member approves: the tool runs only then, and the model gets its result", async () => {
    const world = await toolWorld([transfer({ required: true, timeout: 20_000 })], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 5 } }] }, { toolCalls: [skip] }]);
    await world.wake();
    const card = await approvalCard(world);
    expect(card).toMatchObject({ status: "requires_action", args: { amount: 5 }, approves: expect.stringMatching(/^call_/) });
    expect(card.toolCallId).toMatch(/^apr_/);
    expect((await world.agentStream.waitForType("tool.approval.requested")).data).toMatchObject({ approvalId: card.toolCallId, callbackUrl: expect.stringContaining("/api/callbacks/") });
    const answer = await submitResult(card.runId, card.toolCallId, { approved: true }, await memberHeaders(world.person));
    expect(answer.status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);
    const call = run.toolCalls.find((entry) => entry.toolName === "transfer");
    expect(call).toMatchObject({ status: "completed", toolCallId: card.approves });
    expect((call?.result as { body: string }).body).toBe(JSON.stringify({ amount: 5 }));
    expect((await world.spaceStream.waitFor((entry) => entry.type === "space.message.updated" && entry.data.id === `msg_${card.approves?.slice(5)}_approval`)).data).toMatchObject({ status: "complete" });
    world.close();
  });

  it("approved with edited arguments, re-validated: invalid edits are refused (422, nothing changed), valid ones run", async () => {
    const world = await toolWorld([transfer({ required: true, timeout: 20_000 })], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 500 } }] }, { toolCalls: [skip] }]);
    await world.wake();
    const card = await approvalCard(world);
    const refused = await submitResult(card.runId, card.toolCallId, { approved: true, args: { amount: "lots" } });
    expect(refused.status).toBe(422);
    expect(refused.body.error?.message).toContain("amount");
    const shape = await submitResult(card.runId, card.toolCallId, { yes: true });
    expect(shape.status).toBe(422);
    expect((await submitResult(card.runId, card.toolCallId, { approved: true, args: { amount: 50 } })).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect((run.toolCalls.find((entry) => entry.toolName === "transfer")?.result as { body: string }).body).toBe(JSON.stringify({ amount: 50 }));
    world.close();
  });

  it("a denial is a tool error the model sees; the tool never runs", async () => {
    const hookId = `never-${crypto.randomUUID()}`;
    const tool = { ...transfer({ required: true, timeout: 20_000 }), execution: { url: `http://hooks.test/ok/${hookId}`, method: "POST" } };
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 5 } }] }, { toolCalls: [skip] }]);
    await world.wake();
    const card = await approvalCard(world);
    expect((await submitResult(card.runId, card.toolCallId, { approved: false, reason: "over budget" })).status).toBe(200);
    const [run] = await settledRuns(world.agent.id);
    expect(run.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "failed", error: expect.stringContaining("denied: over budget") });
    expect(await (await fetch(`http://hooks.test/recorded/${hookId}`)).json()).toEqual([]);
    world.close();
  });

  it("required only when the arguments match `when`; built-in tools take theirs from `approvals`", async () => {
    const world = await toolWorld([transfer({ required: { when: { properties: { amount: { minimum: 100 } } } }, timeout: 20_000 })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 5 } }, { name: "set_memories", args: { memories: [{ key: "k", value: "v" }] } }] },
      { toolCalls: [skip] },
    ]);
    const config = (await secret<{ config: Record<string, unknown> }>(`/api/agents/${world.agent.id}`)).body.config;
    await secret(`/api/agents/${world.agent.id}`, { method: "PUT", body: { config: { ...config, approvals: { set_memories: { required: true, timeout: 20_000 } } } } });
    await world.wake();
    const card = await approvalCard(world);
    expect(card).toMatchObject({ args: { memories: [{ key: "k", value: "v" }] } });
    expect((await submitResult(card.runId, card.toolCallId, { approved: true })).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "completed" });
    expect(run.toolCalls.find((entry) => entry.toolName === "set_memories")).toMatchObject({ status: "completed" });
    expect(world.spaceStream.events.filter((event) => event.type === "space.message" && (event.data.parts as Card[] | undefined)?.[0]?.kind === "approval")).toHaveLength(1);
    world.close();
  });

  it("no answer in time: denied by default, approved or escalated when the policy says so", async () => {
    const denied = await toolWorld([transfer({ required: true, timeout: 300 })], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 1 } }] }, { toolCalls: [skip] }]);
    await denied.wake();
    const [deniedRun] = await waitForRuns(denied.agent.id, 1);
    expect(deniedRun.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "failed", error: expect.stringContaining("No answer in time") });

    const approved = await toolWorld([transfer({ required: true, timeout: 300, onTimeout: "approve" })], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 1 } }] }, { toolCalls: [skip] }]);
    await approved.wake();
    const [approvedRun] = await waitForRuns(approved.agent.id, 1);
    expect(approvedRun.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "completed" });

    const person = await createHuman("Boss");
    const bossRoom = await (await import("../support/api")).createSpace([person], "Escalations");
    const escalated = await toolWorld([transfer({ required: true, timeout: 400, onTimeout: "escalate", escalateTo: { spaceId: bossRoom, mentions: [person] } })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 9 } }] },
      { toolCalls: [skip] },
    ]);
    await secret(`/api/spaces/${bossRoom}/members`, { body: { entityId: escalated.agent.entityId } });
    await escalated.wake();
    const moved = await escalated.agentStream.waitForType("tool.escalated", 8_000);
    expect(moved.data).toMatchObject({ to: bossRoom, mentions: [person] });
    // Members of the new space may answer now.
    const { body } = await secret<{ messages: { parts?: Card[]; mentions?: string[] }[] }>(`/api/spaces/${bossRoom}/messages?afterSeq=0`);
    const card = body.messages.find((message) => message.parts?.[0]?.kind === "approval");
    expect(card?.mentions).toEqual([person]);
    const part = card?.parts?.[0] as Card;
    expect((await submitResult(part.runId, part.toolCallId, { approved: true }, await memberHeaders(person))).status).toBe(200);
    const [escalatedRun] = await waitForRuns(escalated.agent.id, 1);
    expect(escalatedRun.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "completed" });
    denied.close();
    approved.close();
    escalated.close();
  });

  it("a restart in the middle of an approval: the same card is answered, the tool runs once", async () => {
    const hookId = `once-${crypto.randomUUID()}`;
    const tool = { ...transfer({ required: true, timeout: 20_000 }), execution: { url: `http://hooks.test/ok/${hookId}`, method: "POST" } };
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 5 } }] }, { toolCalls: [skip] }]);
    await world.wake();
    const card = await approvalCard(world);
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(world.agent.id));
    expect((await submitResult(card.runId, card.toolCallId, { approved: true })).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1, 10_000);
    expect(run.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "completed" });
    expect(await (await fetch(`http://hooks.test/recorded/${hookId}`)).json()).toHaveLength(1);
    const approvals = await env.DB.prepare("SELECT COUNT(*) AS count FROM pending_tool_calls WHERE kind = 'approval' AND run_id = ?").bind(card.runId).first<{ count: number }>();
    expect(approvals?.count).toBe(1);
    world.close();
  });
});
