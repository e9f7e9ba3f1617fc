/**
 * `afterSeq` takes every whole number from 0 to 9007199254740991 (the
 * largest the schema admits) on the message list and on both streams. Past
 * what a space holds the list is an empty page; a stream asked to resume
 * past its last event says so (`after_seq_out_of_range`: the client's place
 * is not one this stream has reached). Past the schema's maximum, or not a
 * whole number, it is a 400.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAgent } from "../support/agents";
import { createHuman, createSpace, memberHeaders, postMessage, secret, secretHeaders } from "../support/api";
import { readErrorEnvelope } from "../support/error-envelope";
import { minimalAgentConfig } from "../support/minimal-agent-config";

const largest = String(Number.MAX_SAFE_INTEGER);
const pastLargest = "9007199254740992";

async function spaceWithMessages() {
  const member = await createHuman();
  const spaceId = await createSpace([member]);
  await postMessage(spaceId, member, "one");
  await postMessage(spaceId, member, "two");
  return { member, spaceId };
}

const streamRequest = (path: string, headers: Record<string, string>, transport: "sse" | "websocket") =>
  exports.default.fetch(
    new Request(`http://gateway.test${path}`, { headers: { ...headers, ...(transport === "sse" ? { accept: "text/event-stream" } : { upgrade: "websocket" }) } }),
  );

describe("GET …/messages?afterSeq=", () => {
  it("the schema's own maximum is an empty page (secret key and member)", async () => {
    const { member, spaceId } = await spaceWithMessages();
    expect(await secret(`/api/spaces/${spaceId}/messages?afterSeq=${largest}`)).toEqual({ status: 200, body: { messages: [] } });
    const asMember = await exports.default.fetch(
      new Request(`http://gateway.test/api/spaces/${spaceId}/messages?afterSeq=${largest}&limit=200`, { headers: await memberHeaders(member) }),
    );
    expect(asMember.status).toBe(200);
    expect(await asMember.json()).toEqual({ messages: [] });
  });

  it("sixteen-digit values below the maximum are pages too; the newest messages are still there", async () => {
    const { spaceId } = await spaceWithMessages();
    expect(await secret(`/api/spaces/${spaceId}/messages?afterSeq=1000000000000000`)).toEqual({ status: 200, body: { messages: [] } });
    const all = await secret<{ messages: { text: string }[] }>(`/api/spaces/${spaceId}/messages?afterSeq=0`);
    expect(all.body.messages.map((message) => message.text)).toEqual(["one", "two"]);
  });

  it("one past the maximum is a 400 naming afterSeq", async () => {
    const { spaceId } = await spaceWithMessages();
    const { status, body } = await secret<{ error: { code: string; details: { path: string }[] } }>(`/api/spaces/${spaceId}/messages?afterSeq=${pastLargest}`);
    expect(status).toBe(400);
    expect(body.error.code).toBe("validation_error");
    expect(new Set(body.error.details.map((detail) => detail.path))).toEqual(new Set(["afterSeq"]));
  });
});

describe("GET …/stream?afterSeq=", () => {
  it.each(["sse", "websocket"] as const)("%s: the schema's maximum is read as a number: beyond the last event, not malformed", async (transport) => {
    const { spaceId } = await spaceWithMessages();
    const response = await streamRequest(`/api/spaces/${spaceId}/stream?afterSeq=${largest}`, secretHeaders, transport);
    expect(response.status).toBe(400);
    const body = await readErrorEnvelope(response, "after_seq_out_of_range");
    expect(body.error.message).toContain(`afterSeq ${largest} is beyond the last event`);
  });

  it("a member's SSE Last-Event-ID of the maximum is read the same way", async () => {
    const { member, spaceId } = await spaceWithMessages();
    const response = await streamRequest(`/api/spaces/${spaceId}/stream`, { ...(await memberHeaders(member)), "last-event-id": largest }, "sse");
    expect(response.status).toBe(400);
    await readErrorEnvelope(response, "after_seq_out_of_range");
  });

  it.each(["sse", "websocket"] as const)("%s: one past the maximum is malformed", async (transport) => {
    const { spaceId } = await spaceWithMessages();
    const response = await streamRequest(`/api/spaces/${spaceId}/stream?afterSeq=${pastLargest}`, secretHeaders, transport);
    expect(response.status).toBe(400);
    const body = await readErrorEnvelope(response, "invalid_query");
    expect(body.error.message).toContain(largest);
  });
});

describe("GET /api/agents/:agentId/stream?afterSeq=", () => {
  it("the schema's maximum is beyond the last event; one past it is malformed", async () => {
    const agent = await createAgent(minimalAgentConfig);
    const beyond = await streamRequest(`/api/agents/${agent.id}/stream?afterSeq=${largest}`, secretHeaders, "sse");
    expect(beyond.status).toBe(400);
    await readErrorEnvelope(beyond, "after_seq_out_of_range");
    const malformed = await streamRequest(`/api/agents/${agent.id}/stream?afterSeq=${pastLargest}`, secretHeaders, "sse");
    expect(malformed.status).toBe(400);
    await readErrorEnvelope(malformed, "invalid_query");
  });
});
