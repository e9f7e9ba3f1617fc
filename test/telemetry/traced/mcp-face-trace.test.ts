/**
 * A question asked through the MCP face goes on in the caller's trace: the
 * trace context MCP carries in a request's `_meta.traceparent` (or, from a
 * client that sets headers, the HTTP `traceparent`) becomes the parent of the
 * run the question starts, on an agent's endpoint and on a space's, as a
 * task too.
 */
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { createHuman, createSpace, memberHeaders, secret, secretHeaders } from "../../support/api";
import { createAgent, scriptedConfig, settledRuns } from "../../support/agents";
import { connectFace, readAnswer } from "../../support/mcp-face-client";
import { enter, skip } from "../../support/tool-world";
import { rootSpan } from "./exported-spans";

const hex = (length: number) => Array.from(crypto.getRandomValues(new Uint8Array(length / 2)), (byte) => byte.toString(16).padStart(2, "0")).join("");
const callerContext = () => {
  const traceId = hex(32);
  const spanId = hex(16);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
};

describe("the MCP face takes the caller's trace context", () => {
  it("an agent's endpoint: _meta.traceparent of ask_agent, plain and as a task, is the parent of the run it starts", async () => {
    const agent = await createAgent(scriptedConfig([{ text: "one" }, { text: "two" }]));
    const client = await connectFace(`/mcp/agents/${agent.id}`, secretHeaders);
    const plain = callerContext();
    const answer = readAnswer(await client.callTool({ name: "ask_agent", arguments: { text: "First", timeoutSeconds: 30 }, _meta: { traceparent: plain.traceparent } }));
    expect(answer.isError).toBe(false);
    const first = await rootSpan(String(answer.structured.runId));
    expect(first).toMatchObject({ traceId: plain.traceId, parentSpanId: plain.spanId });

    const tasked = callerContext();
    await client.request(
      { method: "tools/call", params: { name: "ask_agent", arguments: { text: "Second", timeoutSeconds: 30 }, task: {}, _meta: { traceparent: tasked.traceparent } } },
      CreateTaskResultSchema,
    );
    const runs = await settledRuns(agent.id);
    const second = runs.find((run) => run.id !== answer.structured.runId);
    expect(await rootSpan(String(second?.id))).toMatchObject({ traceId: tasked.traceId, parentSpanId: tasked.spanId });
  });

  it("a space's endpoint: a client's traceparent header on ask_agent is the parent of the run; a malformed one is left out", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const agent = await createAgent(scriptedConfig([{ toolCalls: [enter(spaceId), { name: "send_message", args: { text: "hi" } }, skip] }]));
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    const caller = callerContext();
    const client = await connectFace(`/mcp/spaces/${spaceId}`, { ...(await memberHeaders(person)), traceparent: caller.traceparent });
    const answer = readAnswer(await client.callTool({ name: "ask_agent", arguments: { agentId: agent.id, text: "Hello", timeoutSeconds: 30 } }));
    expect(answer.structured).toMatchObject({ status: "completed", reply: "hi" });
    expect(await rootSpan(String(answer.structured.runId))).toMatchObject({ traceId: caller.traceId, parentSpanId: caller.spanId });

    const other = await createAgent(scriptedConfig([{ text: "ok" }]));
    const otherClient = await connectFace(`/mcp/agents/${other.id}`, secretHeaders);
    const malformed = readAnswer(await otherClient.callTool({ name: "ask_agent", arguments: { text: "x", timeoutSeconds: 30 }, _meta: { traceparent: "00-not-a-trace-01" } }));
    const root = await rootSpan(String(malformed.structured.runId));
    expect(root.parentSpanId).toBeUndefined();
  });
});
