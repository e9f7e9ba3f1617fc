/**
 * The MCP server face, driven by the MCP SDK's own client through the
 * Worker: the protocol revisions it speaks, its tools on a space's and an
 * agent's endpoint, answers and approvals through the result route's path,
 * ask_agent against a scripted agent (its reply, its progress, its
 * deadline), who may use it, and its resources.
 */
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { storeOutput } from "../../src/tools/engine/output-store";
import { call, createHuman, createSpace, memberHeaders, secret, secretHeaders, tokenFor } from "../support/api";
import { createAgent, scriptedConfig, settledRuns, waitForRuns } from "../support/agents";
import { expectErrorEnvelope } from "../support/error-envelope";
import { callFaceTool, connectFace, rpc } from "../support/mcp-face-client";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

const previousProtocolVersion = "2025-06-18";
const initialize = (protocolVersion: string) => ({
  id: 1,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

const pick = (resultSchema: Record<string, unknown>) => ({
  name: "pick_size",
  description: "A person picks a size",
  executionType: "space",
  visible: true,
  timeout: 20_000,
  inputSchema: { type: "object", properties: { item: { type: "string" } } },
  resultSchema,
});

const transfer = {
  name: "transfer",
  description: "Move money",
  executionType: "gateway",
  visible: false,
  inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
  execution: { url: "http://api.test/echo", method: "POST" },
  approval: { required: true, timeout: 20_000 },
};

describe("the MCP face speaks the protocol", () => {
  it("initialize answers with the newest revision the SDK knows and with the previous one, and the previous one works after", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const headers = await memberHeaders(person);
    for (const version of [LATEST_PROTOCOL_VERSION, previousProtocolVersion]) {
      const { response, messages } = await rpc(`/mcp/spaces/${spaceId}`, headers, initialize(version));
      expect(response.status).toBe(200);
      expect(response.headers.get("mcp-session-id")).toMatch(/^[\w-]+\.[\w-]+$/);
      expect(messages[0]).toMatchObject({ id: 1, result: { protocolVersion: version, serverInfo: { name: "switchboard" }, capabilities: { tools: {}, resources: {} } } });
    }
    expect(LATEST_PROTOCOL_VERSION).not.toBe(previousProtocolVersion);
    const listed = await rpc(`/mcp/spaces/${spaceId}`, { ...headers, "mcp-protocol-version": previousProtocolVersion }, { id: 2, method: "tools/list" });
    expect((listed.messages[0].result as { tools: unknown[] }).tools.length).toBe(7);
  });

  it("tools/list names each endpoint's tools, with their input schemas", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const agent = await createAgent(scriptedConfig([]));
    const space = await connectFace(`/mcp/spaces/${spaceId}`, await memberHeaders(person));
    const spaceTools = (await space.listTools()).tools;
    expect(spaceTools.map((tool) => tool.name).sort()).toEqual(["answer_call", "approve_call", "ask_agent", "deny_call", "list_waiting_calls", "read_messages", "send_message"]);
    expect(spaceTools.find((tool) => tool.name === "answer_call")?.inputSchema).toMatchObject({ properties: { callId: { type: "string" } }, required: ["callId"] });
    const agentFace = await connectFace(`/mcp/agents/${agent.id}`, secretHeaders);
    expect((await agentFace.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["answer_call", "approve_call", "ask_agent", "deny_call", "get_run", "list_waiting_calls"]);
  });

  it("GET and DELETE answer 405: the endpoint keeps no stream, and a session needs no ending", async () => {
    const spaceId = await createSpace([]);
    for (const method of ["GET", "DELETE"]) {
      const response = await call(`/mcp/spaces/${spaceId}`, { method, headers: secretHeaders });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expectErrorEnvelope(await response.json(), "http_error");
    }
  });
});

describe("who may use the face", () => {
  it("no credentials, or wrong ones: 401 with WWW-Authenticate: Bearer and the error envelope", async () => {
    const spaceId = await createSpace([]);
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer not-a-key-nor-a-token" }, { "x-secret-key": "wrong" }];
    for (const headers of attempts) {
      const response = await call(`/mcp/spaces/${spaceId}`, { method: "POST", headers, body: initialize(LATEST_PROTOCOL_VERSION) });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expectErrorEnvelope(await response.json(), "unauthorized");
    }
  });

  it("the secret key or a person's JWT as a bearer alone is enough; a person outside the space gets 403, an unknown space 404, a token on an agent's endpoint 403", async () => {
    const member = await createHuman();
    const outsider = await createHuman();
    const spaceId = await createSpace([member]);
    const agent = await createAgent(scriptedConfig([]));
    expect((await rpc(`/mcp/spaces/${spaceId}`, { authorization: `Bearer ${env.GATEWAY_SECRET_KEY}` }, initialize(LATEST_PROTOCOL_VERSION))).response.status).toBe(200);
    expect((await rpc(`/mcp/spaces/${spaceId}`, { authorization: `Bearer ${await tokenFor(member)}` }, initialize(LATEST_PROTOCOL_VERSION))).response.status).toBe(200);
    const refused = await rpc(`/mcp/spaces/${spaceId}`, await memberHeaders(outsider), initialize(LATEST_PROTOCOL_VERSION));
    expect(refused.response.status).toBe(403);
    expectErrorEnvelope(refused.messages[0], "forbidden");
    expect((await rpc("/mcp/spaces/spc_nothing_here", secretHeaders, initialize(LATEST_PROTOCOL_VERSION))).response.status).toBe(404);
    const agentRefused = await rpc(`/mcp/agents/${agent.id}`, await memberHeaders(member), initialize(LATEST_PROTOCOL_VERSION));
    expect(agentRefused.response.status).toBe(403);
    expectErrorEnvelope(agentRefused.messages[0], "forbidden");
    await expect(connectFace(`/mcp/spaces/${spaceId}`, await memberHeaders(outsider))).rejects.toThrow();
  });
});

describe("a space's conversation", () => {
  it("send_message posts as the caller, read_messages pages forward by seq and back by offset", async () => {
    const person = await createHuman("Ada");
    const other = await createHuman("Bo");
    const spaceId = await createSpace([person, other]);
    const client = await connectFace(`/mcp/spaces/${spaceId}`, await memberHeaders(person));
    const seqs: number[] = [];
    for (const text of ["one", "two", "three"]) {
      const sent = await callFaceTool(client, "send_message", { text });
      expect(sent.isError).toBe(false);
      const message = sent.structured.message as { seq: number; entityId: string; text: string };
      expect(message).toMatchObject({ entityId: person, text });
      seqs.push(message.seq);
    }
    const first = await callFaceTool(client, "read_messages", { afterSeq: 0, limit: 2 });
    expect((first.structured.messages as { text: string }[]).map((message) => message.text)).toEqual(["one", "two"]);
    expect(first.structured).toMatchObject({ nextAfterSeq: seqs[1], hasMore: true });
    const second = await callFaceTool(client, "read_messages", { afterSeq: first.structured.nextAfterSeq, limit: 2 });
    expect((second.structured.messages as { text: string }[]).map((message) => message.text)).toEqual(["three"]);
    expect(second.structured.hasMore).toBe(false);
    const newest = await callFaceTool(client, "read_messages", { limit: 2 });
    expect((newest.structured.messages as { text: string }[]).map((message) => message.text)).toEqual(["two", "three"]);
    const older = await callFaceTool(client, "read_messages", { limit: 2, offset: newest.structured.nextOffset });
    expect((older.structured.messages as { text: string }[]).map((message) => message.text)).toEqual(["one"]);
    // What the REST route reads is the same conversation.
    const rest = await secret<{ messages: { text: string }[] }>(`/api/spaces/${spaceId}/messages`);
    expect(rest.body.messages.map((message) => message.text)).toEqual(["one", "two", "three"]);
  });

  it("bad input is a tool error that says what is wrong, and nothing is posted", async () => {
    const person = await createHuman();
    const other = await createHuman();
    const spaceId = await createSpace([person, other]);
    const client = await connectFace(`/mcp/spaces/${spaceId}`, await memberHeaders(person));
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["send_message", { text: "" }, /text/],
      ["send_message", { text: "hi", extra: true }, /extra|Unrecognized/i],
      ["send_message", { text: "hi", entityId: other }, /forbidden: A token may only send messages as its own entity/],
      ["read_messages", { afterSeq: 0, offset: 2 }, /afterSeq or offset/],
      ["read_messages", { limit: 201 }, /limit/],
      ["answer_call", { callId: "call_nope", result: 1, error: "x" }, /either result or error/],
    ];
    for (const [name, args, message] of cases) {
      const answer = await callFaceTool(client, name, args);
      expect(answer.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(answer.text).toMatch(message);
    }
    const secretClient = await connectFace(`/mcp/spaces/${spaceId}`, secretHeaders);
    const unnamed = await callFaceTool(secretClient, "send_message", { text: "who am I" });
    expect(unnamed).toMatchObject({ isError: true, structured: { error: { code: "validation_error" } } });
    expect((await secret<{ messages: unknown[] }>(`/api/spaces/${spaceId}/messages`)).body.messages).toEqual([]);
  });
});

describe("calls that wait on someone", () => {
  const sizeSchema = { type: "object", required: ["size"], properties: { size: { enum: ["S", "M", "L"] } } };

  it("a space call shows in list_waiting_calls; a result that misses its resultSchema is refused, a valid one lets the agent go on", async () => {
    const world = await toolWorld([pick(sizeSchema)], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "pick_size", args: { item: "shirt" } }] }, { toolCalls: [skip] }]);
    await world.wake();
    const pending = (await world.agentStream.waitForType("tool.pending")).data as { toolCallId: string; runId: string };
    const client = await connectFace(`/mcp/spaces/${world.spaceId}`, await memberHeaders(world.person));
    const listed = await callFaceTool(client, "list_waiting_calls", {});
    expect(listed.structured.calls).toEqual([
      expect.objectContaining({
        toolCallId: pending.toolCallId,
        kind: "call",
        toolName: "pick_size",
        args: { item: "shirt" },
        resultSchema: sizeSchema,
        answerWith: "answer_call",
      }),
    ]);
    const refused = await callFaceTool(client, "answer_call", { callId: pending.toolCallId, result: { size: "XXL" } });
    expect(refused).toMatchObject({ isError: true, structured: { error: { code: "invalid_result" } } });
    expect(refused.text).toContain("/size");
    expect((await callFaceTool(client, "list_waiting_calls", {})).structured.calls).toHaveLength(1);
    expect(world.agentStream.ofType("tool.result.received")).toEqual([]);
    const approval = await callFaceTool(client, "approve_call", { callId: pending.toolCallId });
    expect(approval).toMatchObject({ isError: true, structured: { error: { code: "invalid_answer" } } });
    const answered = await callFaceTool(client, "answer_call", { callId: pending.toolCallId, result: { size: "M" } });
    expect(answered).toMatchObject({ isError: false, structured: { success: true } });
    await world.agentStream.waitFor((event) => event.type === "agent.cycle.finished" && event.data.runId === pending.runId);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((entry) => entry.toolName === "pick_size")).toMatchObject({ status: "completed", result: { size: "M" } });
    expect((await callFaceTool(client, "list_waiting_calls", {})).structured.calls).toEqual([]);
    // The same answer again is a duplicate, a different one a conflict: the route's rules.
    expect((await callFaceTool(client, "answer_call", { callId: pending.toolCallId, result: { size: "M" } })).structured).toMatchObject({ duplicate: true });
    expect((await callFaceTool(client, "answer_call", { callId: pending.toolCallId, result: { size: "S" } })).structured).toMatchObject({ error: { code: "conflict" } });
  });

  it("a call of another space is neither listed nor answerable there, whoever asks; one answeredBy names someone else is refused", async () => {
    // No person's message started the run (an inbox event did): with answeredBy "initiator", only the secret key may answer.
    const world = await toolWorld([{ ...pick(sizeSchema), answeredBy: "initiator" }], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "pick_size", args: { item: "hat" } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const pending = (await world.agentStream.waitForType("tool.pending")).data as { toolCallId: string; runId: string };
    const stranger = await createHuman("Stranger");
    const elsewhere = await createSpace([stranger, world.person]);
    const strangerClient = await connectFace(`/mcp/spaces/${elsewhere}`, await memberHeaders(stranger));
    expect((await callFaceTool(strangerClient, "list_waiting_calls", {})).structured.calls).toEqual([]);
    const refused = await callFaceTool(strangerClient, "answer_call", { callId: pending.toolCallId, result: { size: "S" } });
    expect(refused).toMatchObject({ isError: true, structured: { error: { code: "not_found" } } });
    const memberElsewhere = await connectFace(`/mcp/spaces/${elsewhere}`, await memberHeaders(world.person));
    const notHere = await callFaceTool(memberElsewhere, "answer_call", { callId: pending.toolCallId, result: { size: "S" } });
    expect(notHere).toMatchObject({ isError: true, structured: { error: { code: "not_found" } } });
    const member = await connectFace(`/mcp/spaces/${world.spaceId}`, await memberHeaders(world.person));
    expect((await callFaceTool(member, "list_waiting_calls", {})).structured.calls).toEqual([]);
    const forbidden = await callFaceTool(member, "answer_call", { callId: pending.toolCallId, result: { size: "S" } });
    expect(forbidden).toMatchObject({ isError: true, structured: { error: { code: "forbidden" } } });
    expect(forbidden.text).toContain("Only the person whose message started this run");
    const operator = await connectFace(`/mcp/spaces/${world.spaceId}`, secretHeaders);
    expect((await callFaceTool(operator, "list_waiting_calls", {})).structured.calls).toEqual([expect.objectContaining({ toolCallId: pending.toolCallId })]);
    expect((await submitResult(pending.runId, pending.toolCallId, { size: "L" })).status).toBe(200);
    await settledRuns(world.agent.id);
  });

  it("approve_call lets the gated tool run; deny_call stops it and the agent hears why; answer_call refuses an approval", async () => {
    for (const decision of ["approve", "deny"] as const) {
      const world = await toolWorld([transfer], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 5 } }] }, { toolCalls: [skip] }]);
      await world.wake();
      const requested = (await world.agentStream.waitForType("tool.approval.requested")).data as { approvalId: string };
      const client = await connectFace(`/mcp/spaces/${world.spaceId}`, await memberHeaders(world.person));
      const listed = await callFaceTool(client, "list_waiting_calls", {});
      expect(listed.structured.calls).toEqual([expect.objectContaining({ toolCallId: requested.approvalId, kind: "approval", answerWith: "approve_call or deny_call" })]);
      expect(await callFaceTool(client, "answer_call", { callId: requested.approvalId, result: { approved: true } })).toMatchObject({
        isError: true,
        structured: { error: { code: "invalid_answer" } },
      });
      const answer =
        decision === "approve"
          ? await callFaceTool(client, "approve_call", { callId: requested.approvalId })
          : await callFaceTool(client, "deny_call", { callId: requested.approvalId, reason: "over budget" });
      expect(answer).toMatchObject({ isError: false, structured: { success: true } });
      const [run] = await settledRuns(world.agent.id);
      const call = run.toolCalls.find((entry) => entry.toolName === "transfer");
      if (decision === "approve") expect((call?.result as { body: string }).body).toBe(JSON.stringify({ amount: 5 }));
      else expect(call).toMatchObject({ status: "failed", error: expect.stringContaining("denied: over budget") });
    }
  });
});

describe("ask_agent", () => {
  async function spaceWithAgent(turns: (spaceId: string) => { toolCalls?: { name: string; args: Record<string, unknown> }[]; text?: string }[], tools: unknown[] = []) {
    const person = await createHuman("Asker");
    const spaceId = await createSpace([person]);
    const agent = await createAgent({ ...scriptedConfig(turns(spaceId)), tools });
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    return { person, spaceId, agent };
  }

  it("in a space: posts the question, waits for the run it starts, answers with the agent's reply and reports progress", async () => {
    const { person, spaceId, agent } = await spaceWithAgent((spaceId) => [
      { toolCalls: [enter(spaceId)] },
      { toolCalls: [{ name: "send_message", args: { text: "Blue, always blue." } }] },
      { toolCalls: [skip] },
    ]);
    const client = await connectFace(`/mcp/spaces/${spaceId}`, await memberHeaders(person));
    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool({ name: "ask_agent", arguments: { agentId: agent.id, text: "Which colour?", timeoutSeconds: 30 } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    const answer = result as { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[] };
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ status: "completed", reply: "Blue, always blue.", messages: [{ entityId: agent.entityId, text: "Blue, always blue." }] });
    expect(answer.content[0].text).toContain("Blue, always blue.");
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0].message).toContain("started working");
    // The question is in the space as the person's message, and the run that answered took it.
    const [run] = await settledRuns(agent.id);
    expect(run.id).toBe(answer.structuredContent?.runId);
    expect(run.trigger).toMatchObject([{ type: "space_message", entityId: person, text: "Which colour?" }]);
  });

  it("past its deadline: a tool error that says the run goes on and how to read the reply later", async () => {
    const { person, spaceId, agent } = await spaceWithAgent(
      (spaceId) => [{ toolCalls: [enter(spaceId)] }, { toolCalls: [{ name: "pick_size", args: { item: "coat" } }] }, { toolCalls: [skip] }],
      [pick({ type: "object" })],
    );
    const client = await connectFace(`/mcp/spaces/${spaceId}`, await memberHeaders(person));
    const answer = await callFaceTool(client, "ask_agent", { agentId: agent.entityId, text: "Take your time", timeoutSeconds: 1 });
    expect(answer.isError).toBe(true);
    expect(answer.structured.error).toMatchObject({ code: "deadline_exceeded", runId: expect.stringMatching(/^run_/), questionSeq: expect.any(Number) });
    expect(answer.text).toMatch(/goes on/);
    expect(answer.text).toMatch(/read_messages \{"afterSeq": \d+\}/);
    // The run does go on: the call it waits on is still answerable.
    const [waiting] = (await callFaceTool(client, "list_waiting_calls", {})).structured.calls as { toolCallId: string; runId: string }[];
    expect(waiting.runId).toBe((answer.structured.error as { runId: string }).runId);
    expect((await callFaceTool(client, "answer_call", { callId: waiting.toolCallId, result: { size: "L" } })).isError).toBe(false);
    const [run] = await settledRuns(agent.id);
    expect(run.status).toBe("completed");
  });

  it("an agent that is not in the space is not asked", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const outside = await createAgent(scriptedConfig([]));
    const client = await connectFace(`/mcp/spaces/${spaceId}`, await memberHeaders(person));
    expect(await callFaceTool(client, "ask_agent", { agentId: outside.id, text: "hello?" })).toMatchObject({ isError: true, structured: { error: { code: "not_found" } } });
    expect((await secret<{ messages: unknown[] }>(`/api/spaces/${spaceId}/messages`)).body.messages).toEqual([]);
  });

  it("on an agent's endpoint: the task goes to its inbox and the answer is its run's final text; get_run and the run resource read the run", async () => {
    const agent = await createAgent(scriptedConfig([{ text: "The answer is 42." }]));
    const client = await connectFace(`/mcp/agents/${agent.id}`, secretHeaders);
    const answer = await callFaceTool(client, "ask_agent", { text: "What is the answer?", timeoutSeconds: 30 });
    expect(answer).toMatchObject({ isError: false, structured: { status: "completed", answer: "The answer is 42." } });
    const runId = answer.structured.runId as string;
    const [run] = await settledRuns(agent.id);
    expect(run.trigger).toMatchObject([{ type: "external", data: { source: "mcp", question: "What is the answer?" } }]);
    expect((await callFaceTool(client, "get_run", { runId })).structured.run).toMatchObject({ id: runId, agentId: agent.id, status: "completed", pendingCalls: [] });
    const other = await createAgent(scriptedConfig([]));
    expect((await callFaceTool(await connectFace(`/mcp/agents/${other.id}`, secretHeaders), "get_run", { runId })).structured).toMatchObject({ error: { code: "not_found" } });
    const listed = await client.listResources();
    expect(listed.resources.map((resource) => resource.uri)).toContain(`switchboard://runs/${runId}`);
    const read = await client.readResource({ uri: `switchboard://runs/${runId}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: runId, status: "completed" });
  });
});

describe("resources", () => {
  it("a space's transcript, and a page of it; another space's is refused", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const client = await connectFace(`/mcp/spaces/${spaceId}`, await memberHeaders(person));
    for (const text of ["a", "b", "c"]) await callFaceTool(client, "send_message", { text });
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
    expect(templates).toEqual(["switchboard://spaces/{spaceId}/messages", "switchboard://spaces/{spaceId}/messages{?afterSeq,limit}"]);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([`switchboard://spaces/${spaceId}/messages`]);
    const whole = await client.readResource({ uri: `switchboard://spaces/${spaceId}/messages` });
    const messages = JSON.parse((whole.contents[0] as { text: string }).text).messages as { seq: number; text: string }[];
    expect(messages.map((message) => message.text)).toEqual(["a", "b", "c"]);
    const page = await client.readResource({ uri: `switchboard://spaces/${spaceId}/messages?afterSeq=${messages[0].seq}&limit=1` });
    expect(JSON.parse((page.contents[0] as { text: string }).text)).toMatchObject({ messages: [{ text: "b" }], nextAfterSeq: messages[1].seq, hasMore: true });
    await expect(client.readResource({ uri: "switchboard://spaces/spc_other/messages" })).rejects.toThrow(/This endpoint serves space/);
    await expect(client.readResource({ uri: `switchboard://spaces/${spaceId}/messages?afterSeq=x&limit=1` })).rejects.toThrow(/afterSeq must be a whole number/);
  });

  it("an agent's stored output, by byte range", async () => {
    const agent = await createAgent(scriptedConfig([]));
    const text = "0123456789".repeat(10);
    await storeOutput(env.FILES, agent.id, "call_mcpfaceoutput", text, { toolName: "big_tool", retentionMs: 60_000 });
    const client = await connectFace(`/mcp/agents/${agent.id}`, secretHeaders);
    const first = await client.readResource({ uri: `switchboard://agents/${agent.id}/outputs/out_mcpfaceoutput?offset=0&limit=30` });
    expect(JSON.parse((first.contents[0] as { text: string }).text)).toMatchObject({ bytes: 100, offset: 0, text: text.slice(0, 30), nextOffset: 30, toolName: "big_tool" });
    const last = await client.readResource({ uri: `switchboard://agents/${agent.id}/outputs/out_mcpfaceoutput?offset=90&limit=30` });
    expect(JSON.parse((last.contents[0] as { text: string }).text)).toMatchObject({ text: text.slice(90), nextOffset: null });
    const whole = await client.readResource({ uri: `switchboard://agents/${agent.id}/outputs/out_mcpfaceoutput` });
    expect(JSON.parse((whole.contents[0] as { text: string }).text).text).toBe(text);
    const past = await client.readResource({ uri: `switchboard://agents/${agent.id}/outputs/out_mcpfaceoutput?offset=500&limit=10` });
    expect(JSON.parse((past.contents[0] as { text: string }).text)).toMatchObject({ bytes: 100, text: "", nextOffset: null });
    await expect(client.readResource({ uri: `switchboard://agents/${agent.id}/outputs/out_mcpfaceoutput?offset=5` })).rejects.toThrow(/both offset and limit/);
    await expect(client.readResource({ uri: `switchboard://agents/${agent.id}/outputs/out_missing` })).rejects.toThrow(/No stored output/);
    await expect(client.readResource({ uri: `switchboard://agents/agt_other/outputs/out_mcpfaceoutput` })).rejects.toThrow(/This endpoint serves agent/);
  });
});
