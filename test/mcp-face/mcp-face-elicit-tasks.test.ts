/**
 * The MCP face beyond one request: the session id that carries what the
 * client can take, a waiting call put to a person as an elicitation (and
 * answered by the form's POST, which reaches a server that never sent it),
 * and ask_agent as an MCP task read from durable state (tasks/get,
 * tasks/result, tasks/cancel), across the death of the agent's object.
 * Driven by the MCP SDK's own client through the Worker.
 */
import { type ElicitRequest, CallToolResultSchema, CreateTaskResultSchema, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createHuman, createSpace, memberHeaders, secret, secretHeaders } from "../support/api";
import { agentObject, createAgent, scriptedConfig, settledRuns, waitUntil } from "../support/agents";
import { Browser, fakeIssuer, fakeOAuth, recorded } from "../support/accounts";
import { callFaceTool, connectFace, type FaceClientOptions, rpc } from "../support/mcp-face-client";
import { enter, skip } from "../support/tool-world";

const sizes = { type: "object", properties: { size: { type: "string", enum: ["S", "M", "L"] } }, required: ["size"] };
const pick = (resultSchema: Record<string, unknown>) => ({
  name: "pick_size",
  description: "A person picks a size",
  executionType: "space",
  visible: true,
  timeout: 30_000,
  inputSchema: { type: "object", properties: { item: { type: "string" } } },
  resultSchema,
});
const asks = (spaceId: string, reply: string) => [
  { toolCalls: [enter(spaceId)] },
  { toolCalls: [{ name: "pick_size", args: { item: "coat" } }] },
  { toolCalls: [{ name: "send_message", args: { text: reply } }] },
  { toolCalls: [skip] },
];

async function spaceWithAgent(resultSchema: Record<string, unknown>, reply = "Noted.", toolExtra: Record<string, unknown> = {}) {
  const person = await createHuman("Asker");
  const spaceId = await createSpace([person]);
  const agent = await createAgent({ ...scriptedConfig(asks(spaceId, reply)), tools: [{ ...pick(resultSchema), ...toolExtra }] });
  await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
  return { person, spaceId, agent, path: `/mcp/spaces/${spaceId}` };
}

type Waiting = { toolCallId: string; toolName: string; status: string };
/** The agent's call that waits for an answer, once there is one. */
async function waitingCall(agentId: string): Promise<Waiting> {
  let found: Waiting | undefined;
  await waitUntil(
    async () => {
      const listed = await secret<{ pendingToolCalls: Waiting[] }>(`/api/agents/${agentId}/pending-tool-calls`);
      found = listed.body.pendingToolCalls.find((call) => call.status === "waiting" || call.status === "pending");
      return found !== undefined;
    },
    10_000,
    "a waiting call",
  );
  if (!found) throw new Error("no waiting call");
  return found;
}

describe("elicitation: a waiting call put to the MCP client's person", () => {
  it("the person's form answers the agent's space call, checked against its resultSchema, and ask_agent gets the reply", async () => {
    const { person, agent, path } = await spaceWithAgent(sizes, "M it is.");
    const asked: ElicitRequest["params"][] = [];
    const client = await connectFace(path, await memberHeaders(person), {
      elicit: (params) => {
        asked.push(params);
        return { action: "accept", content: { size: "M" } };
      },
    });
    const answer = await callFaceTool(client, "ask_agent", { agentId: agent.id, text: "Pick for me", timeoutSeconds: 30 });
    expect(answer).toMatchObject({ isError: false, structured: { status: "completed", reply: "M it is." } });
    expect(asked).toEqual([
      {
        mode: "form",
        message: expect.stringContaining("pick_size"),
        requestedSchema: sizes,
      },
    ]);
    expect(asked[0].message).toContain('"item":"coat"');
    const [run] = await settledRuns(agent.id);
    expect(run.toolCalls.find((call) => call.toolName === "pick_size")).toMatchObject({ status: "completed", result: { size: "M" } });
  });

  it("a form answer that does not fit the resultSchema is refused and the call waits on; a declined form leaves it waiting too", async () => {
    const { person, agent, path } = await spaceWithAgent(sizes);
    let declined: () => void = () => undefined;
    const declinedNow = new Promise<void>((resolve) => (declined = resolve));
    const client = await connectFace(path, await memberHeaders(person), {
      elicit: () => {
        declined();
        return { action: "decline" };
      },
    });
    const asking = callFaceTool(client, "ask_agent", { agentId: agent.id, text: "Pick for me", timeoutSeconds: 30 });
    await declinedNow;
    const call = await waitingCall(agent.id);
    // The form's answer comes as its own POST; one that does not fit is the result route's 422, and nothing changes.
    const session = await rpc(path, await memberHeaders(person), {
      id: 1,
      method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { elicitation: {} }, clientInfo: { name: "raw", version: "1" } },
    });
    const sessionId = session.response.headers.get("mcp-session-id") ?? "";
    const wrong = await rpc(
      path,
      { ...(await memberHeaders(person)), "mcp-session-id": sessionId, "mcp-protocol-version": LATEST_PROTOCOL_VERSION },
      {
        id: `switchboard-elicit:${call.toolCallId}`,
        result: { action: "accept", content: { size: "XXL" } },
      },
    );
    expect(wrong.response.status).toBe(400);
    expect(wrong.messages[0]).toMatchObject({ error: { code: "invalid_result", message: expect.stringContaining("must be one of") } });
    expect((await waitingCall(agent.id)).toolCallId).toBe(call.toolCallId);
    const right = await rpc(
      path,
      { ...(await memberHeaders(person)), "mcp-session-id": sessionId, "mcp-protocol-version": LATEST_PROTOCOL_VERSION },
      {
        id: `switchboard-elicit:${call.toolCallId}`,
        result: { action: "accept", content: { size: "S" } },
      },
    );
    expect(right.response.status).toBe(202);
    expect((await asking).structured).toMatchObject({ status: "completed", reply: "Noted." });
    const [run] = await settledRuns(agent.id);
    expect(run.toolCalls.find((entry) => entry.toolName === "pick_size")).toMatchObject({ result: { size: "S" } });
  });

  it("nobody else answers through a form: another member's answer for a call only its asker may answer is refused (403)", async () => {
    const { person, spaceId, agent, path } = await spaceWithAgent(sizes, "Noted.", { answeredBy: "initiator" });
    const other = await createHuman("Bo");
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: other } });
    const client = await connectFace(path, await memberHeaders(person));
    const asking = callFaceTool(client, "ask_agent", { agentId: agent.id, text: "Pick for me", timeoutSeconds: 30 });
    const call = await waitingCall(agent.id);
    const answer = await rpc(path, await memberHeaders(other), { id: `switchboard-elicit:${call.toolCallId}`, result: { action: "accept", content: { size: "L" } } });
    expect(answer.response.status).toBe(403);
    expect((await callFaceTool(client, "answer_call", { callId: call.toolCallId, result: { size: "M" } })).isError).toBe(false);
    expect((await asking).structured).toMatchObject({ status: "completed" });
  });

  it("not asked: a client that did not declare elicitation, and a call whose resultSchema a form cannot hold", async () => {
    for (const [schema, capabilities] of [
      [sizes, {}],
      [{ type: "object", properties: { address: { type: "object", properties: { street: { type: "string" } } } } }, { elicitation: {} }],
    ] as const) {
      const { person, spaceId, agent, path } = await spaceWithAgent(schema);
      const headers = await memberHeaders(person);
      const init = await rpc(path, headers, {
        id: 1,
        method: "initialize",
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo: { name: "raw", version: "1" } },
      });
      const session = { ...headers, "mcp-session-id": init.response.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": LATEST_PROTOCOL_VERSION };
      const asking = rpc(path, session, { id: 2, method: "tools/call", params: { name: "ask_agent", arguments: { agentId: agent.id, text: "Pick", timeoutSeconds: 30 } } });
      const call = await waitingCall(agent.id);
      const result = schema === sizes ? { size: "L" } : { address: { street: "Main" } };
      expect((await secret(`/api/spaces/${spaceId}/tool-results`, { body: { callId: call.toolCallId, result } })).status).toBe(200);
      // The ask's stream ends with its answer: anything sent to the client during the wait is in it.
      const { messages } = await asking;
      expect(messages.map((message) => message.method).filter(Boolean)).not.toContain("elicitation/create");
      expect(messages.at(-1)).toMatchObject({ id: 2, result: { structuredContent: { status: "completed" } } });
    }
  });
});

describe("elicitation: an account to connect, by its link", () => {
  const issuer = fakeIssuer;
  const filesTool = (id: string) => ({
    name: "myFiles",
    description: "Lists my files",
    executionType: "gateway",
    inputSchema: { type: "object", properties: {} },
    timeout: 30_000,
    execution: {
      url: `http://api.test/as-person/${id}`,
      method: "GET",
      auth: fakeOAuth({ scope: "files:read", service: "Files" }),
    },
  });

  it("the person whose account a call needs gets a URL elicitation with their own link; signing in there lets the call go on, once", async () => {
    const id = crypto.randomUUID();
    const person = await createHuman("Connector");
    const spaceId = await createSpace([person]);
    const agent = await createAgent({
      ...scriptedConfig([
        { toolCalls: [enter(spaceId)] },
        { toolCalls: [{ name: "myFiles", args: {} }] },
        { toolCalls: [{ name: "send_message", args: { text: "Here are your files." } }] },
        { toolCalls: [skip] },
      ]),
      tools: [filesTool(id)],
    });
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    const asked: ElicitRequest["params"][] = [];
    const client = await connectFace(`/mcp/spaces/${spaceId}`, await memberHeaders(person), {
      modes: ["url"],
      elicit: async (params) => {
        asked.push(params);
        if (params.mode !== "url") return { action: "decline" };
        // The person opens the link: the gateway sends them to the service, which sends them back with a code.
        const browser = new Browser();
        const started = await browser.get(params.url);
        const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
        await browser.get(`http://gateway.test/oauth/callback?${new URLSearchParams({ code: "good-code", state, iss: issuer })}`, { accept: "application/json" });
        return { action: "accept" };
      },
    });
    const answer = await callFaceTool(client, "ask_agent", { agentId: agent.id, text: "List my files", timeoutSeconds: 30 });
    expect(answer).toMatchObject({ isError: false, structured: { status: "completed", reply: "Here are your files." } });
    expect(asked).toEqual([
      {
        mode: "url",
        elicitationId: expect.stringMatching(/^flw_/),
        url: expect.stringMatching(/^http:\/\/gateway\.test\/oauth\/start\/flw_\w+\?t=/),
        message: expect.stringContaining("Files account (files:read)"),
      },
    ]);
    expect(await recorded(`as-person-${id}`)).toHaveLength(1);
    const [run] = await settledRuns(agent.id);
    expect(run.toolCalls.find((call) => call.toolName === "myFiles")).toMatchObject({ status: "completed" });
  });
});

describe("elicitation answers are bounded", () => {
  it("a POST of more answers than a page of waiting calls holds is a 400, and none is taken", async () => {
    const { person, agent, spaceId, path } = await spaceWithAgent(sizes);
    const client = await connectFace(path, await memberHeaders(person));
    const asking = callFaceTool(client, "ask_agent", { agentId: agent.id, text: "Pick", timeoutSeconds: 30 });
    const call = await waitingCall(agent.id);
    const answers = Array.from({ length: 101 }, () => ({ jsonrpc: "2.0", id: `switchboard-elicit:${call.toolCallId}`, result: { action: "accept", content: { size: "M" } } }));
    const response = await exports.default.fetch(
      new Request(`http://gateway.test${path}`, {
        method: "POST",
        headers: { ...(await memberHeaders(person)), "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(answers),
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "validation_error", message: expect.stringContaining("At most 100") } });
    expect((await waitingCall(agent.id)).toolCallId).toBe(call.toolCallId);
    expect((await secret(`/api/spaces/${spaceId}/tool-results`, { body: { callId: call.toolCallId, result: { size: "S" } } })).status).toBe(200);
    expect((await asking).structured).toMatchObject({ status: "completed" });
  });
});

describe("the face's session id", () => {
  it("is bound to its caller and endpoint: another person's, another space's or a changed one is 404; none at all is served as before", async () => {
    const person = await createHuman();
    const other = await createHuman();
    const spaceId = await createSpace([person, other]);
    const otherSpace = await createSpace([person]);
    const init = (path: string, headers: Record<string, string>) =>
      rpc(path, headers, { id: 1, method: "initialize", params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    const mine = (await init(`/mcp/spaces/${spaceId}`, await memberHeaders(person))).response.headers.get("mcp-session-id") ?? "";
    const list = async (path: string, headers: Record<string, string>, sessionId?: string) =>
      rpc(path, { ...headers, "mcp-protocol-version": LATEST_PROTOCOL_VERSION, ...(sessionId !== undefined && { "mcp-session-id": sessionId }) }, { id: 2, method: "tools/list" });
    expect((await list(`/mcp/spaces/${spaceId}`, await memberHeaders(person), mine)).response.status).toBe(200);
    expect((await list(`/mcp/spaces/${spaceId}`, await memberHeaders(person))).response.status).toBe(200);
    for (const [path, headers, sessionId] of [
      [`/mcp/spaces/${spaceId}`, await memberHeaders(other), mine],
      [`/mcp/spaces/${otherSpace}`, await memberHeaders(person), mine],
      [`/mcp/spaces/${spaceId}`, await memberHeaders(person), `${mine.slice(0, -2)}xx`],
      [`/mcp/spaces/${spaceId}`, await memberHeaders(person), "x".repeat(5_000)],
    ] as const) {
      const refused = await list(path, headers, sessionId);
      expect(refused.response.status).toBe(404);
      expect(refused.messages[0]).toMatchObject({ error: { code: "not_found" } });
    }
  });
});

describe("ask_agent as an MCP task", () => {
  const streamTask = async (options: FaceClientOptions, path: string, headers: Record<string, string>, args: Record<string, unknown>) => {
    const client = await connectFace(path, headers, options);
    await client.listTools();
    const seen: string[] = [];
    let taskId = "";
    let result: unknown;
    for await (const message of client.experimental.tasks.callToolStream({ name: "ask_agent", arguments: args }, CallToolResultSchema, { task: {} })) {
      if (message.type === "taskCreated") taskId = message.task.taskId;
      if (message.type === "error") throw message.error;
      seen.push(message.type === "taskStatus" ? message.task.status : message.type);
      if (message.type === "result") result = message.result;
    }
    return { client, seen, taskId, result: result as { structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown> } };
  };

  it("tools/list offers it as a task; the task is working, then input_required, its result asks the person by a form and ends completed", async () => {
    const { person, agent, path } = await spaceWithAgent(sizes, "L it is.");
    const headers = await memberHeaders(person);
    const { client, seen, taskId, result } = await streamTask({ elicit: () => ({ action: "accept", content: { size: "L" } }) }, path, headers, {
      agentId: agent.id,
      text: "Pick for me",
      timeoutSeconds: 30,
    });
    expect((await client.listTools()).tools.find((tool) => tool.name === "ask_agent")?.execution).toEqual({ taskSupport: "optional" });
    expect(seen[0]).toBe("taskCreated");
    expect(seen).toContain("input_required");
    expect(seen.at(-1)).toBe("result");
    expect(result.structuredContent).toMatchObject({ status: "completed", reply: "L it is." });
    expect(result._meta).toMatchObject({ "io.modelcontextprotocol/related-task": { taskId } });
    // Read again later, from another connection of the same person: completed, with the same answer.
    const later = await connectFace(path, headers);
    expect(await later.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: "completed" });
    expect((await later.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).structuredContent).toMatchObject({ reply: "L it is." });
    // Another person, or the same id on another endpoint, finds no such task.
    const elsewhere = await createSpace([person]);
    await expect((await connectFace(path, secretHeaders)).experimental.tasks.getTask(taskId)).rejects.toThrow(/Task not found/);
    await expect((await connectFace(`/mcp/spaces/${elsewhere}`, headers)).experimental.tasks.getTask(taskId)).rejects.toThrow(/Task not found/);
    await expect(later.experimental.tasks.getTask(`${taskId.slice(0, -3)}abc`)).rejects.toThrow(/Task not found/);
  });

  it("survives the agent object's death: read from the run record and its pending call, answered, and completed", async () => {
    const agent = await createAgent({
      ...scriptedConfig([{ toolCalls: [{ name: "ask_ops", args: { question: "ok?" } }] }, { text: "Done: ops said yes." }]),
      tools: [{ name: "ask_ops", description: "Ask ops", executionType: "external", visible: false, inputSchema: { type: "object" }, timeout: 60_000 }],
    });
    const client = await connectFace(`/mcp/agents/${agent.id}`, secretHeaders);
    const created = await client.request(
      { method: "tools/call", params: { name: "ask_agent", arguments: { text: "Check with ops", timeoutSeconds: 30 }, task: {} } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    expect(created.task).toMatchObject({ status: "working", ttl: 7 * 24 * 3600 * 1000, pollInterval: 1_000 });
    await waitUntil(async () => (await client.experimental.tasks.getTask(taskId)).status === "input_required", 10_000, "input_required");
    // The agent's object dies in the middle of the run; its alarm brings the run back, waiting on the same call.
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(agent.id));
    const after = await client.experimental.tasks.getTask(taskId);
    expect(after).toMatchObject({ status: "input_required", statusMessage: expect.stringContaining("ask_ops") });
    const [waiting] = (await callFaceTool(client, "list_waiting_calls", {})).structured.calls as { toolCallId: string }[];
    const result = client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect((await callFaceTool(client, "answer_call", { callId: waiting.toolCallId, result: { answer: "yes" } })).isError).toBe(false);
    expect((await result).structuredContent).toMatchObject({ status: "completed", answer: "Done: ops said yes." });
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: "completed" });
  });

  it("tasks/cancel stops the task's run (and only it): the task reads cancelled, its run failed with the reason; a finished task cannot be cancelled", async () => {
    const agent = await createAgent({
      ...scriptedConfig([{ toolCalls: [{ name: "ask_ops", args: {} }] }, { text: "never" }]),
      tools: [{ name: "ask_ops", description: "Ask ops", executionType: "external", visible: false, inputSchema: { type: "object" }, timeout: 60_000 }],
    });
    const client = await connectFace(`/mcp/agents/${agent.id}`, secretHeaders);
    const created = await client.request({ method: "tools/call", params: { name: "ask_agent", arguments: { text: "Go", timeoutSeconds: 30 }, task: {} } }, CreateTaskResultSchema);
    const { taskId } = created.task;
    await waitUntil(async () => (await client.experimental.tasks.getTask(taskId)).status === "input_required", 10_000, "input_required");
    expect(await client.experimental.tasks.cancelTask(taskId)).toMatchObject({ taskId, status: "cancelled" });
    const [run] = await settledRuns(agent.id);
    expect(run.status).toBe("failed");
    expect(run.notes.map((note) => note.message).join("\n")).toContain("cancelled by its MCP client");
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/terminal status: cancelled/);
  });

  it("a run that waits on its sub-agent is working, not input_required: nobody is asked for what the gateway settles itself", async () => {
    const askOps = { name: "ask_ops", description: "Ask ops", executionType: "external", visible: false, inputSchema: { type: "object" }, timeout: 60_000 };
    const child = await createAgent({ ...scriptedConfig([{ toolCalls: [{ name: "ask_ops", args: {} }] }, { text: "ops said yes" }]), tools: [askOps] });
    const parent = await createAgent({
      ...scriptedConfig([{ toolCalls: [{ name: "team__worker", args: { task: "check with ops" } }] }, { text: "Done." }]),
      providers: [{ name: "team", type: "agents", agents: [{ agentId: child.id, name: "worker" }] }],
    });
    const client = await connectFace(`/mcp/agents/${parent.id}`, secretHeaders);
    const created = await client.request({ method: "tools/call", params: { name: "ask_agent", arguments: { text: "Go", timeoutSeconds: 30 }, task: {} } }, CreateTaskResultSchema);
    const childCall = await waitingCall(child.id);
    const parentCalls = await secret<{ pendingToolCalls: { executionType: string; status: string }[] }>(`/api/agents/${parent.id}/pending-tool-calls`);
    expect(parentCalls.body.pendingToolCalls).toEqual([expect.objectContaining({ executionType: "agent", status: "waiting" })]);
    expect(await client.experimental.tasks.getTask(created.task.taskId)).toMatchObject({ status: "working" });
    expect((await callFaceTool(client, "list_waiting_calls", {})).structured.calls).toEqual([]);
    // The child's own call is what waits on someone: answered, both runs end and the task completes.
    const childFace = await connectFace(`/mcp/agents/${child.id}`, secretHeaders);
    expect((await callFaceTool(childFace, "answer_call", { callId: childCall.toolCallId, result: { ok: true } })).isError).toBe(false);
    expect((await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema)).structuredContent).toMatchObject({ status: "completed", answer: "Done." });
  });

  it("a tool that does not run as a task, or arguments that would fail, make no task", async () => {
    const agent = await createAgent(scriptedConfig([]));
    const client = await connectFace(`/mcp/agents/${agent.id}`, secretHeaders);
    await expect(client.request({ method: "tools/call", params: { name: "get_run", arguments: { runId: "run_x" }, task: {} } }, CreateTaskResultSchema)).rejects.toThrow(
      /does not run as a task/,
    );
    await expect(client.request({ method: "tools/call", params: { name: "ask_agent", arguments: { text: "" }, task: {} } }, CreateTaskResultSchema)).rejects.toThrow(
      /Invalid arguments for tool ask_agent/,
    );
  });
});
