/**
 * The Agent2Agent face, driven by the A2A SDK's own client through the
 * Worker: the card, a task that completes, its stream, a task that waits on
 * its caller (a `space` tool) answered over A2A, a task read back after the
 * agent object was aborted, cancellation, bad input and who may call.
 */
import { Role, SendMessageRequest, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createHuman, memberHeaders, secret, secretHeaders } from "../support/api";
import { a2aClient, a2aOrigin, a2aRpc } from "../support/a2a-client";
import { createAgent, scriptedConfig, settledRuns, type ScriptedTurn, waitUntil } from "../support/agents";
import { expectErrorEnvelope } from "../support/error-envelope";
import { enter } from "../support/tool-world";

const a2a = (extra: Record<string, unknown> = {}) => ({ a2a: { enabled: true, ...extra } });

function send(text: string, ids: { contextId?: string; taskId?: string } = {}, returnImmediately = false) {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...ids },
    ...(returnImmediately && { configuration: { returnImmediately: true } }),
  });
}

function answer(data: unknown, taskId: string) {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ data }], taskId } });
}

function asTask(result: unknown): Task {
  expect(result).toHaveProperty("status");
  return result as Task;
}

const textOf = (task: Task) => task.artifacts.flatMap((artifact) => artifact.parts.map((part) => (part.content?.$case === "text" ? part.content.value : ""))).join("");

const pick = {
  name: "pick_size",
  description: "A person picks a size",
  executionType: "space",
  timeout: 20_000,
  inputSchema: { type: "object", properties: { item: { type: "string" } } },
  resultSchema: { type: "object", properties: { size: { enum: ["S", "M", "L"] } }, required: ["size"] },
};

/** An agent whose script is replaced after a first exchange made its conversation (the script needs the conversation's id; a new config starts its turns over). */
async function agentInConversation(next: (contextId: string) => ScriptedTurn[], extra: Record<string, unknown> = {}) {
  const first: ScriptedTurn[] = [{ text: "Hello." }];
  const agent = await createAgent({ ...scriptedConfig(first), ...a2a(), ...extra });
  const client = await a2aClient(agent.id, secretHeaders);
  const opening = asTask(await client.sendMessage(send("Hi")));
  expect(opening.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const put = await secret(`/api/agents/${agent.id}`, { method: "PUT", body: { config: { ...scriptedConfig(next(opening.contextId)), ...a2a(), ...extra } } });
  expect(put.status).toBe(200);
  return { agent, client, contextId: opening.contextId };
}

describe("the A2A face", () => {
  it("serves the agent's card: its name, endpoint, protocol version, capabilities, security schemes and skills", async () => {
    const agent = await createAgent({ ...scriptedConfig([]), agent: { name: "Helper", description: "Answers questions" }, ...a2a() });
    const client = await a2aClient(agent.id, secretHeaders);
    const card = await client.getAgentCard();
    expect(card.name).toBe("Helper");
    expect(card.description).toBe("Answers questions");
    expect(card.supportedInterfaces).toEqual([{ url: `${a2aOrigin}/a2a/agents/${agent.id}`, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(Object.keys(card.securitySchemes).sort()).toEqual(["bearer", "secretKey"]);
    expect(card.skills.map((skill) => skill.description)).toEqual(["Answers questions"]);
  });

  it("SendMessage waits for the run and answers a completed task with the agent's reply; GetTask reads it again", async () => {
    const agent = await createAgent({ ...scriptedConfig([{ text: "The answer is 42." }]), ...a2a() });
    const client = await a2aClient(agent.id, secretHeaders);
    const task = asTask(await client.sendMessage(send("What is the answer?")));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task)).toBe("The answer is 42.");
    const [run] = await settledRuns(agent.id);
    expect(task.id).toBe(run.id);
    const again = await client.getTask({ id: task.id, tenant: "", historyLength: undefined });
    expect(again.history.map((message) => message.role)).toEqual([Role.ROLE_USER]);
    expect(again.contextId).toBe(task.contextId);
  });

  it("SendStreamingMessage streams the task, its answer as an artifact, then its completed status", async () => {
    const agent = await createAgent({ ...scriptedConfig([{ text: "Streaming works." }]), ...a2a() });
    const client = await a2aClient(agent.id, secretHeaders);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(send("Stream it"))) events.push(event);
    const kinds = events.map((event) => event.payload?.$case);
    expect(kinds[0]).toBe("task");
    expect(kinds).toContain("artifactUpdate");
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe("statusUpdate");
    if (last?.$case === "statusUpdate") expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("a space tool that waits on the caller is input-required; a result that misses its schema is refused; the right one completes the task", async () => {
    const { client, contextId } = await agentInConversation(
      (spaceId) => [{ toolCalls: [enter(spaceId), { name: "pick_size", args: { item: "shirt" } }] }, { text: "Size noted." }],
      {
        tools: [pick],
      },
    );
    const waiting = asTask(await client.sendMessage(send("I need a shirt", { contextId })));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(waiting.contextId).toBe(contextId);
    await expect(client.sendMessage(answer({ size: "XXL" }, waiting.id))).rejects.toThrow(/resultSchema|invalid|size/i);
    const done = asTask(await client.sendMessage(answer({ size: "M" }, waiting.id)));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done)).toBe("Size noted.");
  });

  it("GetTask after every object was aborted still has the task's state and history, from durable state", async () => {
    const agent = await createAgent({ ...scriptedConfig([{ text: "Remembered." }]), ...a2a() });
    const client = await a2aClient(agent.id, secretHeaders);
    const task = asTask(await client.sendMessage(send("Remember this")));
    await abortAllDurableObjects();
    const again = await (await a2aClient(agent.id, secretHeaders)).getTask({ id: task.id, tenant: "", historyLength: undefined });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(again)).toBe("Remembered.");
    expect(again.history[0].parts[0].content).toEqual({ $case: "text", value: "Remember this" });
  });

  it("CancelTask stops a task that waits on its caller: it is canceled, and cancelling again is refused", async () => {
    const { client, contextId } = await agentInConversation((spaceId) => [{ toolCalls: [enter(spaceId), { name: "pick_size", args: { item: "hat" } }] }, { text: "never" }], {
      tools: [pick],
    });
    const waiting = asTask(await client.sendMessage(send("A hat", { contextId })));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const canceled = await client.cancelTask({ id: waiting.id, tenant: "", metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ id: waiting.id, tenant: "", metadata: undefined })).rejects.toThrow(/already/);
  });
});

describe("what a task waits on", () => {
  it("a run that waits on its sub-agent is working, not input-required: the caller is not asked for what the gateway settles itself", async () => {
    const askOps = { name: "ask_ops", description: "Ask ops", executionType: "external", visible: false, inputSchema: { type: "object" }, timeout: 60_000 };
    const child = await createAgent({ ...scriptedConfig([{ toolCalls: [{ name: "ask_ops", args: {} }] }, { text: "ops said yes" }]), tools: [askOps] });
    const parent = await createAgent({
      ...scriptedConfig([{ toolCalls: [{ name: "team__worker", args: { task: "check with ops" } }] }, { text: "Done." }]),
      providers: [{ name: "team", type: "agents", agents: [{ agentId: child.id, name: "worker" }] }],
      ...a2a(),
    });
    const client = await a2aClient(parent.id, secretHeaders);
    const started = asTask(await client.sendMessage(send("Go", {}, true)));
    type Waiting = { toolCallId: string; runId: string; executionType: string; status: string };
    const open = async (agentId: string) =>
      (await secret<{ pendingToolCalls: Waiting[] }>(`/api/agents/${agentId}/pending-tool-calls`)).body.pendingToolCalls.filter((entry) => entry.status === "waiting");
    await waitUntil(async () => (await open(child.id)).length === 1, 10_000, "the sub-agent's call");
    expect(await open(parent.id)).toEqual([expect.objectContaining({ executionType: "agent" })]);
    expect((await client.getTask({ id: started.id, tenant: "", historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    // The sub-agent's own call is what waits on someone: answered, both runs end and the task completes.
    const [childCall] = await open(child.id);
    expect((await secret(`/api/runs/${childCall.runId}/tool-results`, { body: { callId: childCall.toolCallId, result: { ok: true } } })).status).toBe(200);
    const [parentRun] = await settledRuns(parent.id);
    expect(parentRun.status).toBe("completed");
    expect((await client.getTask({ id: started.id, tenant: "", historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe("A2A bad input and who may call", () => {
  it("unknown method, bad params, unknown task, no version, not JSON: the protocol's error codes", async () => {
    const agent = await createAgent({ ...scriptedConfig([]), ...a2a() });
    const rpc = (body: unknown, headers: Record<string, string> = {}) => a2aRpc(agent.id, { ...secretHeaders, ...headers }, body);
    const errorOf = (answer: { body: Record<string, unknown> }) => answer.body.error as { code: number; message: string };
    expect(errorOf(await rpc({ jsonrpc: "2.0", id: 1, method: "message/send", params: {} })).code).toBe(-32601);
    const bad = errorOf(await rpc({ jsonrpc: "2.0", id: 2, method: "SendMessage", params: { message: { role: "ROLE_USER", parts: [] } } }));
    expect(bad.code).toBe(-32602);
    expect(bad.message).toMatch(/messageId/);
    expect(errorOf(await rpc({ jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: "run_missing" } })).code).toBe(-32001);
    expect(errorOf(await rpc({ jsonrpc: "2.0", id: 4, method: "GetTask", params: { id: "run_missing" } }, { "a2a-version": "" })).code).toBe(-32009);
    expect(errorOf(await rpc("{not json")).code).toBe(-32700);
    expect(errorOf(await rpc({ jsonrpc: "2.0", id: 5, method: "ListTasks", params: {} })).code).toBe(-32004);
  });

  it("401 without credentials, 404 for an agent that has not enabled A2A, 403 for a person the config does not name; a named person may talk", async () => {
    const agent = await createAgent({ ...scriptedConfig([{ text: "Hi, person." }]), ...a2a() });
    const noCredentials = await a2aRpc(agent.id, {}, { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } });
    expect(noCredentials.status).toBe(401);
    expectErrorEnvelope(noCredentials.body, "unauthorized");
    const off = await createAgent(scriptedConfig([]));
    expect((await call(`/a2a/agents/${off.id}/.well-known/agent-card.json`)).status).toBe(404);
    const offRpc = await a2aRpc(off.id, secretHeaders, { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } });
    expect(offRpc.status).toBe(404);
    expectErrorEnvelope(offRpc.body, "not_found");
    const stranger = await createHuman("Stranger");
    const refused = await a2aRpc(agent.id, { authorization: (await memberHeaders(stranger)).authorization }, { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } });
    expect(refused.status).toBe(403);
    expectErrorEnvelope(refused.body, "forbidden");
    const friend = await createHuman("Friend");
    const named = await createAgent({ ...scriptedConfig([{ text: "Hi, friend." }]), ...a2a({ people: [friend] }) });
    const bearer = (await memberHeaders(friend)).authorization;
    const task = asTask(await (await a2aClient(named.id, { authorization: bearer })).sendMessage(send("hello")));
    expect(textOf(task)).toBe("Hi, friend.");
  });
});
