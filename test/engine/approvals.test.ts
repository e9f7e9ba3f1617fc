import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createHuman, memberHeaders, secret } from "../support/api";
import { agentObject, agentState, settledRuns, waitForRuns, waitUntil } from "../support/agents";
import { providerWorld } from "../support/provider-world";
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
    const world = await toolWorld([transfer({ required: true, timeout: 20_000 })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 5 } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const card = await approvalCard(world);
    expect(card).toMatchObject({ status: "requires_action", args: { amount: 5 }, approves: expect.stringMatching(/^call_/) });
    expect(card.toolCallId).toMatch(/^apr_/);
    expect((await world.agentStream.waitForType("tool.approval.requested")).data).toMatchObject({
      approvalId: card.toolCallId,
      callbackUrl: expect.stringContaining("/api/callbacks/"),
    });
    const answer = await submitResult(card.runId, card.toolCallId, { approved: true }, await memberHeaders(world.person));
    expect(answer.status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);
    const call = run.toolCalls.find((entry) => entry.toolName === "transfer");
    expect(call).toMatchObject({ status: "completed", toolCallId: card.approves });
    expect((call?.result as { body: string }).body).toBe(JSON.stringify({ amount: 5 }));
    expect((await world.spaceStream.waitFor((entry) => entry.type === "space.message.updated" && entry.data.id === `msg_${card.approves?.slice(5)}_approval`)).data).toMatchObject({
      status: "complete",
    });
    world.close();
  });

  it("approved with edited arguments, re-validated: invalid edits are refused (422, nothing changed), valid ones run", async () => {
    const world = await toolWorld([transfer({ required: true, timeout: 20_000 })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 500 } }] },
      { toolCalls: [skip] },
    ]);
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
    const denied = await toolWorld([transfer({ required: true, timeout: 300 })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 1 } }] },
      { toolCalls: [skip] },
    ]);
    await denied.wake();
    const [deniedRun] = await waitForRuns(denied.agent.id, 1);
    expect(deniedRun.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "failed", error: expect.stringContaining("No answer in time") });

    const approved = await toolWorld([transfer({ required: true, timeout: 300, onTimeout: "approve" })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 1 } }] },
      { toolCalls: [skip] },
    ]);
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
    // The moved card still says which call it approves.
    expect(part.approves).toMatch(/^call_/);
    expect(part.toolCallId).toBe(`apr_${part.approves?.slice(5)}`);
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

  it("onTimeout error ends the approval: the model gets the timeout, a late yes is 410 and the tool never runs", async () => {
    const hookId = `late-${crypto.randomUUID()}`;
    const tool = { ...transfer({ required: true, timeout: 300, onTimeout: "error" }), execution: { url: `http://hooks.test/ok/${hookId}`, method: "POST" } };
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 3 } }] }, { toolCalls: [skip] }]);
    await world.wake();
    const card = await approvalCard(world);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "failed", error: expect.stringContaining("Nobody answered the approval") });
    const row = await env.DB.prepare("SELECT status, expires_at FROM pending_tool_calls WHERE tool_call_id = ?")
      .bind(card.toolCallId)
      .first<{ status: string; expires_at: string | null }>();
    expect(row).toMatchObject({ status: "expired", expires_at: expect.any(String) });
    expect((await submitResult(card.runId, card.toolCallId, { approved: true })).status).toBe(410);
    expect(await (await fetch(`http://hooks.test/recorded/${hookId}`)).json()).toEqual([]);
    // An approval is answered only by the cycle that asked: an operator cannot deliver it again.
    expect((await secret(`/api/pending-tool-calls/${card.toolCallId}/redeliver`, { body: {} })).status).toBe(409);
    world.close();
  });

  it("batch refuses a call that needs approval (the gate wraps the cycle's own calls only)", async () => {
    const hookId = `batched-${crypto.randomUUID()}`;
    const tool = { ...transfer({ required: true, timeout: 20_000 }), execution: { url: `http://hooks.test/ok/${hookId}`, method: "POST" } };
    const world = await toolWorld([tool], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "batch", args: { calls: [{ tool: "transfer", args: { amount: 7 } }] } }] },
      { toolCalls: [skip] },
    ]);
    await secret(`/api/agents/${world.agent.id}`, {
      method: "PUT",
      body: {
        config: {
          agent: { name: "Toolsmith" },
          model: {
            provider: "scripted",
            turns: [{ toolCalls: [enter(world.spaceId), { name: "batch", args: { calls: [{ tool: "transfer", args: { amount: 7 } }] } }] }, { toolCalls: [skip] }],
          },
          tools: [tool],
          builtins: ["spaces", "knowledge", "calls", "reports"],
        },
      },
    });
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const batched = run.toolCalls.find((entry) => entry.toolName === "batch");
    expect(JSON.stringify(batched?.result)).toContain("needs a person's approval");
    expect(await (await fetch(`http://hooks.test/recorded/${hookId}`)).json()).toEqual([]);
    world.close();
  });

  it("the approval card of a minimal tool keeps the arguments from public-key clients", async () => {
    const tool = { ...transfer({ required: true, timeout: 20_000 }), visible: true, display: { mode: "minimal" } };
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 8 } }] }, { toolCalls: [skip] }]);
    await world.wake();
    const card = await approvalCard(world);
    const seen = await (await import("../support/api")).callJson<{ messages: { parts?: Record<string, unknown>[] }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`, {
      headers: await memberHeaders(world.person),
    });
    const part = seen.body.messages.flatMap((message) => message.parts ?? []).find((entry) => entry.toolCallId === card.toolCallId);
    expect(part).toMatchObject({ toolCallId: card.toolCallId, kind: "approval" });
    expect(part?.args).toBeUndefined();
    expect((await submitResult(card.runId, card.toolCallId, { approved: false })).status).toBe(200);
    await waitForRuns(world.agent.id, 1);
    world.close();
  });

  it("a restart after an escalation: the wait goes on where the card moved, for the time the escalation gave it", async () => {
    const person = await createHuman("Boss");
    const bossRoom = await (await import("../support/api")).createSpace([person], "Escalations");
    const world = await toolWorld([transfer({ required: true, timeout: 2_500, onTimeout: "escalate", escalateTo: { spaceId: bossRoom } })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 4 } }] },
      { toolCalls: [skip] },
    ]);
    await secret(`/api/spaces/${bossRoom}/members`, { body: { entityId: world.agent.entityId } });
    await world.wake();
    await world.agentStream.waitForType("tool.escalated", 8_000);
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(world.agent.id));
    // The continued cycle is back in the wait (past the first deadline, which counted from the start):
    // the journal's attempt and the deadline table, which no route shows.
    await waitUntil(
      async () => {
        const state = await agentState(world.agent.id);
        return (
          (state.activeRun?.attempt ?? 0) >= 2 &&
          state.activeRun?.running === true &&
          state.deadlines.some((deadline) => deadline.id.startsWith("timeout:apr_") && deadline.dueAt > Date.now())
        );
      },
      8_000,
      "the continued cycle waits again",
    );
    const { body } = await secret<{ messages: { parts?: Card[] }[] }>(`/api/spaces/${bossRoom}/messages?afterSeq=0`);
    const part = body.messages.flatMap((message) => message.parts ?? []).find((entry) => entry.kind === "approval") as Card;
    expect((await submitResult(part.runId, part.toolCallId, { approved: true }, await memberHeaders(person))).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1, 10_000);
    expect(run.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "completed" });
    world.close();
  });

  it("the approvals map names tools the agent can have: a misspelt key is refused at save, a provider's namespace is accepted", async () => {
    const base = { agent: { name: "Keys" }, model: { provider: "scripted", turns: [] } };
    const refused = await secret<{ error: { code: string; details: { path: string; message: string }[] } }>("/api/agents", {
      body: { config: { ...base, approvals: { delete_memory: { required: true }, github__merge: { required: true } } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "config.approvals.delete_memory", message: expect.stringContaining("names no tool") }),
        expect.objectContaining({ path: "config.approvals.github__merge", message: expect.stringContaining("none here") }),
      ]),
    );
    const accepted = await secret("/api/agents", {
      body: {
        config: {
          ...base,
          mcp: { servers: [{ name: "github", url: "https://mcp.example.test/mcp" }] },
          approvals: { delete_memories: { required: true }, github__merge: { required: true }, read_output: { required: true } },
        },
      },
    });
    expect(accepted.status).toBe(201);
  });

  it("edited arguments a provider's tool refuses (MCP, OpenAPI) are a 422 invalid_answer with nothing changed, as for configured tools", async () => {
    const document = {
      openapi: "3.0.3",
      info: { title: "x", version: "1" },
      paths: {
        "/echo/pay": {
          post: {
            operationId: "pay",
            requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties: { cents: { type: "integer" } }, required: ["cents"] } } } },
          },
        },
      },
    };
    const world = await providerWorld(
      {
        mcp: { servers: [{ name: "mem", url: `http://mcp.test/stateful/edit-${crypto.randomUUID()}`, transport: "http" }] },
        providers: [{ name: "api", type: "openapi", baseUrl: "http://api.test", spec: { document } }],
        approvals: { mem__lookup: { required: true, timeout: 20_000 }, api__pay: { required: true, timeout: 20_000 } },
      },
      (spaceId) => [
        { toolCalls: [enter(spaceId), { name: "mem__lookup", args: { key: "a" } }] },
        { toolCalls: [{ name: "api__pay", args: { body: { cents: 5 } } }] },
        { toolCalls: [skip] },
      ],
    );
    await world.wake();
    const approvalOf = async (tool: string) =>
      (
        (
          await world.spaceStream.waitFor(
            (entry) => entry.type === "space.message" && (entry.data.parts as Card[] | undefined)?.[0]?.kind === "approval" && JSON.stringify(entry.data).includes(tool),
          )
        ).data.parts as Card[]
      )[0];

    const lookup = await approvalOf("mem__lookup");
    const refused = await submitResult(lookup.runId, lookup.toolCallId, { approved: true, args: { key: 5 } });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: "invalid_answer", message: expect.stringContaining("key") });
    // Nothing changed: the approval still waits, and a good answer is taken.
    const pending = await secret<{ pendingToolCalls: { toolCallId: string; status: string }[] }>(`/api/agents/${world.agent.id}/pending-tool-calls`);
    expect(pending.body.pendingToolCalls.find((entry) => entry.toolCallId === lookup.toolCallId)?.status).toBe("waiting");
    expect((await submitResult(lookup.runId, lookup.toolCallId, { approved: true, args: { key: "edited" } })).status).toBe(200);

    const pay = await approvalOf("api__pay");
    const badPay = await submitResult(pay.runId, pay.toolCallId, { approved: true, args: { body: { cents: "lots" } } });
    expect(badPay.status).toBe(422);
    expect(badPay.body.error?.code).toBe("invalid_answer");
    expect((await submitResult(pay.runId, pay.toolCallId, { approved: true, args: { body: { cents: 7 } } })).status).toBe(200);

    const [run] = await waitForRuns(world.agent.id, 1, 15_000);
    expect(run.toolCalls.find((entry) => entry.toolName === "mem__lookup")).toMatchObject({ status: "completed", result: { text: "value of edited #1" } });
    expect((run.toolCalls.find((entry) => entry.toolName === "api__pay")?.result as { body: string }).body).toBe(JSON.stringify({ cents: 7 }));
    world.close();
  });
});
