/**
 * Push notifications of the A2A face, driven by the A2A SDK's client: a
 * config's round trip (create, get, list, delete), the task POSTed to a fake
 * receiver when it waits on its caller and when it completes (with the
 * config's credentials, as the protocol says, though D1 holds them sealed;
 * a row written before sealing still works), a URL the gateway's policy
 * refuses, and parameters that do not fit.
 */
import { SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { secret, secretHeaders } from "../support/api";
import { a2aClient, a2aRpc } from "../support/a2a-client";
import { createAgent, scriptedConfig, type ScriptedTurn, waitUntil } from "../support/agents";
import { enter } from "../support/tool-world";

const a2a = { a2a: { enabled: true } };

type Received = { method: string; headers: Record<string, string>; body: string };

/** The config rows of a task, read straight from D1 (what someone with the database sees). */
async function storedConfigs(taskId: string): Promise<Record<string, unknown>[]> {
  return (await env.DB.prepare("SELECT * FROM a2a_push_configs WHERE task_id = ? ORDER BY id").bind(taskId).all<Record<string, unknown>>()).results;
}

async function received(id: string): Promise<Received[]> {
  return (await (await fetch(`http://hooks.test/recorded/${id}`)).json()) as Received[];
}

function send(text: string, ids: { contextId?: string; taskId?: string } = {}) {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...ids } });
}

function answer(data: unknown, taskId: string) {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ data }], taskId } });
}

function asTask(result: unknown): Task {
  expect(result).toHaveProperty("status");
  return result as Task;
}

const pick = {
  name: "pick_size",
  description: "A person picks a size",
  executionType: "space",
  timeout: 20_000,
  inputSchema: { type: "object", properties: { item: { type: "string" } } },
  resultSchema: { type: "object", properties: { size: { enum: ["S", "M", "L"] } }, required: ["size"] },
};

/** An agent with its conversation made (the script needs the conversation's id). */
async function agentInConversation(next: (contextId: string) => ScriptedTurn[]) {
  const agent = await createAgent({ ...scriptedConfig([{ text: "Hello." }]), ...a2a, tools: [pick] });
  const client = await a2aClient(agent.id, secretHeaders);
  const opening = asTask(await client.sendMessage(send("Hi")));
  const put = await secret(`/api/agents/${agent.id}`, { method: "PUT", body: { config: { ...scriptedConfig(next(opening.contextId)), ...a2a, tools: [pick] } } });
  expect(put.status).toBe(200);
  return { agent, client, contextId: opening.contextId };
}

describe("A2A push notification configs", () => {
  it("create, get, list and delete round trip through the SDK client; deleting twice is fine; a deleted config is not found", async () => {
    const agent = await createAgent({ ...scriptedConfig([{ text: "Done." }]), ...a2a });
    const client = await a2aClient(agent.id, secretHeaders);
    const card = await client.getAgentCard();
    expect(card.capabilities?.pushNotifications).toBe(true);
    const task = asTask(await client.sendMessage(send("Hi")));
    const url = `http://hooks.test/ok/${crypto.randomUUID()}`;
    const created = await client.createTaskPushNotificationConfig({
      tenant: "",
      id: "cfg-1",
      taskId: task.id,
      url,
      token: "task-token",
      authentication: { scheme: "Bearer", credentials: "receiver-secret" },
    });
    expect(created).toMatchObject({ id: "cfg-1", taskId: task.id, url, token: "task-token", authentication: { scheme: "Bearer", credentials: "receiver-secret" } });
    const second = await client.createTaskPushNotificationConfig({ tenant: "", id: "", taskId: task.id, url, token: "", authentication: undefined });
    expect(second.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "cfg-1" })).toEqual(created);
    const listed = await client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" });
    expect(listed.configs.map((config) => config.id).sort()).toEqual(["cfg-1", second.id].sort());
    await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "cfg-1" });
    await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "cfg-1" });
    await expect(client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "cfg-1" })).rejects.toThrow(/no push notification config/);
    const after = await client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" });
    expect(after.configs.map((config) => config.id)).toEqual([second.id]);
  });

  it("the task is POSTed to the config's URL with its credentials when it waits on its caller and when it completes", async () => {
    const { client, contextId } = await agentInConversation((spaceId) => [
      { toolCalls: [enter(spaceId), { name: "pick_size", args: { item: "shirt" } }] },
      { toolCalls: [{ name: "pick_size", args: { item: "hat" } }] },
      { text: "Sizes noted." },
    ]);
    const first = asTask(await client.sendMessage(send("A shirt and a hat", { contextId })));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const receiver = crypto.randomUUID();
    await client.createTaskPushNotificationConfig({
      tenant: "",
      id: "to-hooks",
      taskId: first.id,
      url: `http://hooks.test/ok/${receiver}`,
      token: "task-token",
      authentication: { scheme: "Bearer", credentials: "receiver-secret" },
    });
    // At rest the credentials are one sealed blob: neither the token nor the credentials are in the row.
    const [row] = await storedConfigs(first.id);
    expect(JSON.stringify(row)).not.toMatch(/task-token|receiver-secret/);
    expect(row).toMatchObject({ token: null, auth_credentials: null, auth_scheme: "Bearer", key_id: "test1", sealed_credentials: expect.stringMatching(/^v1\.test1\./) });
    const second = asTask(await client.sendMessage(answer({ size: "M" }, first.id)));
    expect(second.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const pushedTask = (entry: Received) => (JSON.parse(entry.body) as { task: { id: string; contextId: string; status: { state: string; message?: { parts: unknown[] } } } }).task;
    await waitUntil(async () => (await received(receiver)).length >= 1, 10_000, "the input-required push");
    const [asked] = await received(receiver);
    expect(asked.method).toBe("POST");
    expect(asked.headers.authorization).toBe("Bearer receiver-secret");
    expect(asked.headers["x-a2a-notification-token"]).toBe("task-token");
    expect(asked.headers["content-type"]).toBe("application/a2a+json");
    expect(asked.headers["webhook-signature"]).toBeUndefined();
    expect(pushedTask(asked)).toMatchObject({ id: first.id, contextId, status: { state: "TASK_STATE_INPUT_REQUIRED" } });
    expect(pushedTask(asked).status.message?.parts[1]).toMatchObject({ data: { toolName: "pick_size", args: { item: "hat" } } });
    const done = asTask(await client.sendMessage(answer({ size: "L" }, first.id)));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await waitUntil(async () => (await received(receiver)).some((entry) => pushedTask(entry).status.state === "TASK_STATE_COMPLETED"), 10_000, "the completed push");
    const states = (await received(receiver)).map((entry) => pushedTask(entry).status.state);
    expect(states).toEqual(["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"]);
  });
});

describe("A2A push notification configs: credentials at rest", () => {
  it("a config written before credentials were sealed (plain columns) is still shown and pushed with them; a sealed blob moved to another config does not open", async () => {
    const { agent, client, contextId } = await agentInConversation((spaceId) => [
      { toolCalls: [enter(spaceId), { name: "pick_size", args: { item: "scarf" } }] },
      { text: "Noted." },
    ]);
    const waiting = asTask(await client.sendMessage(send("A scarf", { contextId })));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const receiver = crypto.randomUUID();
    const url = `http://hooks.test/ok/${receiver}`;
    // As the release before sealing wrote it: token and credentials in clear, nothing sealed.
    await env.DB.prepare(
      "INSERT INTO a2a_push_configs (task_id, id, agent_id, context_id, url, token, auth_scheme, auth_credentials, created_at) VALUES (?, 'legacy', ?, ?, ?, 'old-token', 'Bearer', 'old-secret', ?)",
    )
      .bind(waiting.id, agent.id, contextId, url, new Date().toISOString())
      .run();
    expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId: waiting.id, id: "legacy" })).toMatchObject({
      url,
      token: "old-token",
      authentication: { scheme: "Bearer", credentials: "old-secret" },
    });
    // A sealed blob copied onto another config's row does not open there (it is bound to its own task and id).
    const elsewhere = `http://hooks.test/ok/${crypto.randomUUID()}`;
    for (const id of ["sealed", "moved"])
      await client.createTaskPushNotificationConfig({ tenant: "", id, taskId: waiting.id, url: elsewhere, token: `${id}-token`, authentication: undefined });
    const sealed = (await storedConfigs(waiting.id)).find((row) => row.id === "sealed");
    await env.DB.prepare("UPDATE a2a_push_configs SET sealed_credentials = ? WHERE task_id = ? AND id = 'moved'").bind(sealed?.sealed_credentials, waiting.id).run();
    const moved = await a2aRpc(agent.id, secretHeaders, { jsonrpc: "2.0", id: 1, method: "GetTaskPushNotificationConfig", params: { taskId: waiting.id, id: "moved" } });
    expect(moved.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/credentials of push notification config "moved" do not open/) });
    expect(JSON.stringify(moved.body)).not.toMatch(/sealed-token/);
    for (const id of ["sealed", "moved"]) await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: waiting.id, id });
    const done = asTask(await client.sendMessage(answer({ size: "S" }, waiting.id)));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await waitUntil(async () => (await received(receiver)).length >= 1, 10_000, "the push to the config written before sealing");
    const [pushed] = await received(receiver);
    expect(pushed.headers.authorization).toBe("Bearer old-secret");
    expect(pushed.headers["x-a2a-notification-token"]).toBe("old-token");
  });
});

describe("A2A push notification configs: what is refused", () => {
  it("a URL the gateway's policy refuses is invalid params, on Create and in a SendMessage's configuration; nothing is stored", async () => {
    const agent = await createAgent({ ...scriptedConfig([{ text: "Done." }]), ...a2a });
    const client = await a2aClient(agent.id, secretHeaders);
    const task = asTask(await client.sendMessage(send("Hi")));
    const rpc = (method: string, params: unknown) => a2aRpc(agent.id, secretHeaders, { jsonrpc: "2.0", id: 1, method, params });
    const errorOf = (answer: { body: Record<string, unknown> }) => answer.body.error as { code: number; message: string };
    for (const url of ["http://user:password@hooks.test/ok/x", "ftp://hooks.test/x", "not a url"]) {
      const refused = errorOf(await rpc("CreateTaskPushNotificationConfig", { taskId: task.id, url }));
      expect(refused.code).toBe(-32602);
      expect(refused.message).toMatch(/url/i);
    }
    const inSend = errorOf(
      await rpc("SendMessage", {
        message: { messageId: "m-refused", role: "ROLE_USER", parts: [{ text: "again" }] },
        configuration: { taskPushNotificationConfig: { url: "http://user:password@hooks.test/ok/x" } },
      }),
    );
    expect(inSend.code).toBe(-32602);
    const listed = await rpc("ListTaskPushNotificationConfigs", { taskId: task.id });
    expect(listed.body.result).toEqual({ configs: [] });
  });

  it("parameters that do not fit: -32602 naming the field; an unknown task or config: -32001", async () => {
    const agent = await createAgent({ ...scriptedConfig([{ text: "Done." }]), ...a2a });
    const client = await a2aClient(agent.id, secretHeaders);
    const task = asTask(await client.sendMessage(send("Hi")));
    const rpc = async (method: string, params: unknown) =>
      (await a2aRpc(agent.id, secretHeaders, { jsonrpc: "2.0", id: 1, method, params })).body.error as { code: number; message: string };
    const url = "http://hooks.test/ok/never";
    expect(await rpc("CreateTaskPushNotificationConfig", { taskId: task.id })).toMatchObject({ code: -32602, message: expect.stringMatching(/url/) });
    expect(await rpc("CreateTaskPushNotificationConfig", { url })).toMatchObject({ code: -32602, message: expect.stringMatching(/taskId/) });
    expect(await rpc("CreateTaskPushNotificationConfig", { taskId: task.id, url, authentication: { scheme: "Bear er", credentials: "x" } })).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/authentication\.scheme/),
    });
    expect(await rpc("CreateTaskPushNotificationConfig", { taskId: task.id, url, token: "line\nbreak" })).toMatchObject({ code: -32602, message: expect.stringMatching(/token/) });
    expect(await rpc("GetTaskPushNotificationConfig", { taskId: task.id })).toMatchObject({ code: -32602, message: expect.stringMatching(/id/) });
    expect((await rpc("CreateTaskPushNotificationConfig", { taskId: "run_missing", url })).code).toBe(-32001);
    expect((await rpc("ListTaskPushNotificationConfigs", { taskId: "run_missing" })).code).toBe(-32001);
    expect((await rpc("GetTaskPushNotificationConfig", { taskId: task.id, id: "nope" })).code).toBe(-32001);
  });
});
