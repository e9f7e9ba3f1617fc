/**
 * The SDK's pure parts: merging events into a timeline, the SSE parser,
 * retries with one Idempotency-Key per logical write, backoff, tokens the
 * gateway accepts, webhook signatures the gateway makes.
 */
import { verify } from "hono/jwt";
import { describe, expect, expectTypeOf, it } from "vitest";
import openapiDocument from "../../client/openapi.json";
import {
  backoffDelay,
  createWebhookHandler,
  parseDuration,
  signToken,
  SpaceState,
  Switchboard,
  SwitchboardError,
  ToolRunner,
  verifyWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
  type GatewayErrorCode,
  type Message,
  type SpaceEvent,
} from "../../client/src/index";
import { errorCodes, type ErrorCode } from "../../src/errors";
import { retryingFetch } from "../../client/src/retrying-fetch";
import { SseParser, type SseFrame } from "../../client/src/sse-parser";
import { webhookSignatureHeaderValue } from "../../src/webhooks/webhook-signature";
import { newWebhookSecret, standardWebhookHeaders } from "../../src/webhooks/standard-webhooks";

let seq = 0;
const at = "2026-11-01T00:00:00.000Z";
const event = <T extends SpaceEvent["type"]>(type: T, data: Extract<SpaceEvent, { type: T }>["data"]) => ({ seq: ++seq, spaceId: "spc_1", type, at, data }) as SpaceEvent;
const message = (fields: Partial<Message> & { id: string }): Message => ({
  spaceId: "spc_1",
  seq: ++seq,
  entityId: "ent_agent",
  role: "assistant",
  status: "complete",
  createdAt: at,
  ...fields,
});

describe("SpaceState", () => {
  it("merges streamed text into a draft that the persisted message replaces, in place", () => {
    const state = new SpaceState("spc_1");
    state.apply(event("space.message", message({ id: "msg_person", entityId: "ent_person", role: "user", text: "hi" })));
    state.apply(event("agent.cycle.started", { agentEntityId: "ent_agent", runId: "run_1" }));
    for (const delta of ["Hel", "lo ", "there"]) state.apply(event("space.message.streaming", { streamId: "msg_reply", entityId: "ent_agent", delta }));
    expect(state.thinking.get("ent_agent")).toBe("run_1");
    expect(state.messages.map((entry) => [entry.id, entry.text, entry.draft ?? false])).toEqual([
      ["msg_person", "hi", false],
      ["msg_reply", "Hello there", true],
    ]);
    state.apply(event("space.message", message({ id: "msg_reply", text: "Hello there" })));
    state.apply(event("agent.cycle.finished", { agentEntityId: "ent_agent", runId: "run_1", status: "completed" }));
    expect(state.messages.map((entry) => [entry.id, entry.text, entry.draft ?? false])).toEqual([
      ["msg_person", "hi", false],
      ["msg_reply", "Hello there", false],
    ]);
    expect(state.thinking.size).toBe(0);
    // A late replay of a delta never resurrects the draft.
    expect(state.apply({ ...event("space.message.streaming", { streamId: "msg_reply", entityId: "ent_agent", delta: "x" }) })).toBe(false);
    expect(state.messages).toHaveLength(2);
  });

  it("moves a tool card through streamed arguments, requires_action and complete", () => {
    const state = new SpaceState("spc_1");
    state.apply(event("tool.started", { toolCallId: "call_1", toolName: "ask", agentEntityId: "ent_agent", runId: "run_1" }));
    state.apply(event("tool.streaming", { toolCallId: "call_1", partialArgs: { question: "Te" } }));
    expect(state.toolCall("call_1")).toMatchObject({ status: "running", args: { question: "Te" } });
    expect(state.messages[0].draft).toBe(true);
    const card = message({
      id: "msg_card",
      role: "tool",
      status: "requires_action",
      parts: [{ type: "tool_call", toolCallId: "call_1", toolName: "ask", args: { question: "Tea?" }, status: "requires_action", runId: "run_1" }],
    });
    state.apply(event("space.message", card));
    expect(state.messages).toHaveLength(1);
    expect(state.pendingCalls.map((entry) => entry.part.toolCallId)).toEqual(["call_1"]);
    expect(state.runOf("call_1")).toBe("run_1");
    state.apply(
      event("space.message.updated", {
        ...card,
        status: "complete",
        updatedAt: "2026-11-01T00:00:01.000Z",
        parts: [
          { type: "tool_call" as const, toolCallId: "call_1", toolName: "ask", args: { question: "Tea?" }, runId: "run_1", status: "complete" as const, result: { yes: true } },
        ],
      }),
    );
    state.apply(event("tool.done", { toolCallId: "call_1", toolName: "ask", args: { question: "Tea?" }, result: { yes: true } }));
    expect(state.toolCall("call_1")).toMatchObject({ status: "complete", result: { yes: true } });
    expect(state.pendingCalls).toEqual([]);
  });

  it("keeps the run of a minimal card from tool.started, and shows a failed run with its error", () => {
    const state = new SpaceState("spc_1");
    state.apply(event("tool.started", { toolCallId: "call_2", toolName: "secret", agentEntityId: "ent_agent", runId: "run_2" }));
    state.apply(
      event("space.message", message({ id: "msg_min", role: "tool", parts: [{ type: "tool_call", toolCallId: "call_2", toolName: "secret", status: "requires_action" }] })),
    );
    expect(state.runOf("call_2")).toBe("run_2");
    state.apply(event("agent.cycle.finished", { agentEntityId: "ent_agent", runId: "run_2", status: "failed", error: "OPENAI_API_KEY is not set" }));
    expect(state.failures).toEqual([expect.objectContaining({ runId: "run_2", error: "OPENAI_API_KEY is not set" })]);
    expect(state.timeline.at(-1)).toMatchObject({ kind: "run_failed" });
  });

  it("an update never goes back to an older version of a message", () => {
    const state = new SpaceState("spc_1");
    const newer = message({
      id: "msg_x",
      role: "tool",
      status: "complete",
      updatedAt: "2026-11-01T00:00:02.000Z",
      parts: [{ type: "tool_call", toolCallId: "c", toolName: "t", status: "complete" }],
    });
    state.loadMessages([newer]);
    state.apply(
      event("space.message", {
        ...newer,
        status: "requires_action",
        updatedAt: undefined,
        parts: [{ type: "tool_call", toolCallId: "c", toolName: "t", status: "requires_action" }],
      }),
    );
    expect(state.toolCall("c")?.status).toBe("complete");
  });
});

describe("SseParser", () => {
  it("reads frames split anywhere, with CRLF, comments and multi-line data", () => {
    const frames: SseFrame[] = [];
    const parser = new SseParser((frame) => frames.push(frame));
    const text = ': connected\r\n\r\nid: 1\r\ndata: {"a":\r\ndata: 1}\r\n\r\n: ping\n\nid: 2\ndata: two\n\n';
    for (const character of text) parser.push(character);
    expect(frames).toEqual([
      { id: "1", event: undefined, data: '{"a":\n1}' },
      { id: "2", event: undefined, data: "two" },
    ]);
  });
});

describe("retries and idempotency", () => {
  it("sends one Idempotency-Key per logical write and reuses it on its retries", async () => {
    const seen: { key: string | null; body: string }[] = [];
    let calls = 0;
    const flaky = retryingFetch(
      async (request) => {
        calls += 1;
        seen.push({ key: request.headers.get("idempotency-key"), body: await request.text() });
        if (calls === 1) throw new TypeError("socket hang up");
        if (calls === 2) return new Response("busy", { status: 503 });
        return Response.json({ ok: true }, { status: 201 });
      },
      { initialDelayMs: 1 },
    );
    const response = await flaky(new Request("http://gw/api/spaces/spc_1/messages", { method: "POST", body: '{"text":"hi"}' }));
    expect(response.status).toBe(201);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((entry) => entry.key)).size).toBe(1);
    expect(seen[0].key).toMatch(/^idem_[0-9a-f]{32}$/);
    expect(seen.every((entry) => entry.body === '{"text":"hi"}')).toBe(true);
    // A second logical write gets a new key.
    calls = 2;
    await flaky(new Request("http://gw/api/spaces/spc_1/messages", { method: "POST", body: "{}" }));
    expect(seen.at(-1)?.key).not.toBe(seen[0].key);
  });

  it("does not retry writes without idempotency (adding a member) nor refusals (4xx)", async () => {
    let calls = 0;
    const failing = retryingFetch(
      async () => {
        calls += 1;
        throw new TypeError("reset");
      },
      { initialDelayMs: 1 },
    );
    await expect(failing(new Request("http://gw/api/spaces/spc_1/members", { method: "POST", body: "{}" }))).rejects.toThrow("reset");
    expect(calls).toBe(1);
    let gets = 0;
    const refusing = retryingFetch(async () => {
      gets += 1;
      return new Response("{}", { status: 404 });
    });
    expect((await refusing(new Request("http://gw/api/spaces/x"))).status).toBe(404);
    expect(gets).toBe(1);
  });

  it("a dead letter's redelivery is retried with one Idempotency-Key, like the other writes a client may retry", async () => {
    const keys: (string | null)[] = [];
    const flaky = retryingFetch(
      async (request) => {
        keys.push(request.headers.get("idempotency-key"));
        return keys.length === 1 ? new Response("busy", { status: 503 }) : Response.json({ status: "redelivering" });
      },
      { initialDelayMs: 1 },
    );
    const response = await flaky(new Request("http://gw/api/webhooks/dead-letters/dlt_0123/redeliver", { method: "POST", body: "{}" }));
    expect(response.status).toBe(200);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^idem_[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it("backs off exponentially, capped, with jitter", () => {
    expect(backoffDelay(0, {}, () => 0.5)).toBe(250);
    expect(backoffDelay(3, {}, () => 0.5)).toBe(2000);
    expect(backoffDelay(20, {}, () => 0.5)).toBe(10_000);
    expect(backoffDelay(0, {}, () => 0)).toBe(188);
    expect(backoffDelay(0, {}, () => 1)).toBe(313);
  });
});

describe("tokens and webhook signatures", () => {
  it("signToken makes an HS256 JWT the gateway's verifier accepts, with sub and exp", async () => {
    const token = await signToken("ent_ada", { secret: "a-secret-of-decent-length", expiresIn: "2h", now: 1_000 });
    const payload = await verify(token, "a-secret-of-decent-length", "HS256").catch(() => undefined);
    // `now` is long past, so the token has expired: the gateway's verifier refuses it; its claims are still ours.
    const [, body] = token.split(".");
    expect(JSON.parse(Buffer.from(body, "base64url").toString())).toEqual({ sub: "ent_ada", iat: 1_000, exp: 1_000 + 7_200 });
    expect(payload).toBeUndefined();
    const fresh = await signToken("ent_ada", { secret: "a-secret-of-decent-length" });
    expect(await verify(fresh, "a-secret-of-decent-length", "HS256")).toMatchObject({ sub: "ent_ada" });
    await expect(verify(fresh, "another-secret-entirely", "HS256")).rejects.toThrow();
    expect(parseDuration("15m")).toBe(900);
    expect(() => parseDuration("soon")).toThrow(/expiresIn/);
    await expect(signToken("", { secret: "x" })).rejects.toThrow(/entity id/);
  });

  it("verifyWebhookSignature accepts what the gateway signs, and nothing tampered or stale", async () => {
    const body = JSON.stringify({ type: "tool.call", toolCallId: "call_1" });
    const now = Math.floor(Date.now() / 1000);
    const header = await webhookSignatureHeaderValue("hook-secret", body, now);
    expect(await verifyWebhookSignature("hook-secret", header, body)).toBe(true);
    expect(await verifyWebhookSignature("hook-secret", header, `${body} `)).toBe(false);
    expect(await verifyWebhookSignature("other-secret", header, body)).toBe(false);
    expect(await verifyWebhookSignature("hook-secret", await webhookSignatureHeaderValue("hook-secret", body, now - 600), body)).toBe(false);
    expect(await verifyWebhookSignature("hook-secret", undefined, body)).toBe(false);
  });

  it("verifyWebhook (the standardwebhooks library) accepts the gateway's Standard Webhooks headers, for a subscription's secret and for WEBHOOK_SECRET", async () => {
    const event = { type: "run.completed", timestamp: "2026-11-22T10:00:00.000Z", data: { runId: "run_1" } };
    const body = JSON.stringify(event);
    const subscriptionSecret = newWebhookSecret();
    const headers = await standardWebhookHeaders(subscriptionSecret, "evt_run_1_completed", body);
    expect(verifyWebhook(subscriptionSecret, body, headers)).toEqual(event);
    expect(verifyWebhook(subscriptionSecret, body, new Headers(headers))).toEqual(event);
    expect(() => verifyWebhook(subscriptionSecret, `${body} `, headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(newWebhookSecret(), body, headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(subscriptionSecret, body, { ...headers, "webhook-id": "evt_other" })).toThrow(WebhookVerificationError);
    const stale = await standardWebhookHeaders(subscriptionSecret, "evt_run_1_completed", body, Date.now() - 600_000);
    expect(() => verifyWebhook(subscriptionSecret, body, stale)).toThrow(WebhookVerificationError);
    // A pushed tool call is signed with the gateway's WEBHOOK_SECRET, taken as it is.
    const call = JSON.stringify({ type: "tool.call", toolCallId: "call_1", toolName: "t", runId: "run_1" });
    expect(verifyWebhook("a-plain-webhook-secret", call, await standardWebhookHeaders("a-plain-webhook-secret", "call_1", call))).toMatchObject({ toolCallId: "call_1" });
  });

  it("createWebhookHandler takes the Standard Webhooks headers and refuses a forged push with 401", async () => {
    const runner = new ToolRunner({}, async () => undefined);
    const handler = createWebhookHandler(runner, {}, { secret: "hook-secret" });
    const body = JSON.stringify({ type: "tool.call", toolCallId: "call_1", toolName: "unknown", runId: "run_1" });
    const genuine = await handler(new Request("http://svc/hook", { method: "POST", body, headers: await standardWebhookHeaders("hook-secret", "call_1", body) }));
    expect(genuine.status).toBe(200);
    expect(await genuine.json()).toMatchObject({ ignored: true });
    const forged = await handler(new Request("http://svc/hook", { method: "POST", body, headers: await standardWebhookHeaders("other-secret", "call_1", body) }));
    expect(forged.status).toBe(401);
  });
});

describe("SpaceState members", () => {
  it("a member joining or leaving is a change (a UI refreshes names on it)", () => {
    const state = new SpaceState("spc_1");
    expect(state.apply(event("space.member.joined", { entityId: "ent_a" }))).toBe(true);
    expect(state.apply(event("space.member.joined", { entityId: "ent_b" }))).toBe(true);
    expect(state.apply(event("space.member.left", { entityId: "ent_a" }))).toBe(true);
    expect([...state.memberIds]).toEqual(["ent_b"]);
  });
});

describe("error codes", () => {
  it("GatewayErrorCode is the gateway's one list: the document the SDK's types come from names exactly errorCodes", () => {
    // Checked by `npm run typecheck` (test/node): the generated union and the gateway's are the same type.
    expectTypeOf<GatewayErrorCode>().toEqualTypeOf<ErrorCode>();
    expect(openapiDocument.components.schemas.ErrorCode.enum).toEqual([...errorCodes]);
  });

  it("a code this SDK does not list yet comes through as the gateway sent it", () => {
    const error = SwitchboardError.fromResponse(409, { error: { code: "some_later_code", message: "Refused" } }, "POST /api/spaces");
    expect([error.status, error.code, error.message]).toEqual([409, "some_later_code", "Refused (POST /api/spaces → 409)"]);
  });
});

describe("connected accounts", () => {
  /** A client whose every request is recorded and answered as the routes would. */
  function recording(credentials: { secretKey: string } | { publicKey: string; token: string }) {
    const requests: string[] = [];
    const client = new Switchboard({
      baseUrl: "http://gw",
      ...credentials,
      fetch: async (input) => {
        const request = input instanceof Request ? input : new Request(input);
        const url = new URL(request.url);
        requests.push(`${request.method} ${url.pathname}${url.search}`);
        const answer = request.method === "GET" ? { connections: [], nextCursor: null } : { revoked: true, entityId: "ent_ana", connectionKey: "https://mcp.example.com/mcp" };
        return Response.json(answer);
      },
    });
    return { client, requests };
  }

  it("a person's client calls /api/me/connections; a secret-key client /api/connections; entityId goes with the secret key only", async () => {
    const person = recording({ publicKey: "pk", token: "jwt" });
    await person.client.accounts.list({ limit: 5 });
    await person.client.accounts.revoke("https://mcp.example.com/mcp");
    expect(person.requests).toEqual(["GET /api/me/connections?limit=5", "DELETE /api/me/connections/https%3A%2F%2Fmcp.example.com%2Fmcp"]);
    await expect(person.client.accounts.list({ entityId: "ent_ben" })).rejects.toThrow(TypeError);
    await expect(person.client.accounts.revoke("code-host", { entityId: "ent_ben" })).rejects.toThrow(TypeError);

    const operator = recording({ secretKey: "sk" });
    await operator.client.accounts.list({ entityId: "ent_ana", cursor: "abc" });
    await operator.client.accounts.revoke("https://mcp.example.com/mcp", { entityId: "ent_ana" });
    expect(operator.requests).toEqual(["GET /api/connections?entityId=ent_ana&cursor=abc", "DELETE /api/connections/https%3A%2F%2Fmcp.example.com%2Fmcp?entityId=ent_ana"]);
    await expect(operator.client.accounts.revoke("code-host")).rejects.toThrow(TypeError);
    // Refused before any request.
    expect(person.requests).toHaveLength(2);
    expect(operator.requests).toHaveLength(2);
  });
});

describe("subscriptions", () => {
  it("one closed before its connection opened opens none, over WebSocket (a JWT) and over SSE (the secret key)", async () => {
    const sockets: string[] = [];
    class CountingSocket {
      readyState = 0;
      onopen = null;
      onmessage = null;
      onclose = null;
      onerror = null;
      constructor(url: string) {
        sockets.push(url);
      }
      send() {}
      close() {}
    }
    const requests: string[] = [];
    const countingFetch: typeof fetch = async (input) => {
      requests.push(String(input instanceof Request ? input.url : input));
      return new Response(new ReadableStream(), { headers: { "content-type": "text/event-stream" } });
    };
    const asPerson = new Switchboard({ baseUrl: "http://gateway.test", publicKey: "pk", token: async () => "a-jwt", WebSocket: CountingSocket, fetch: countingFetch });
    const asServer = new Switchboard({ baseUrl: "http://gateway.test", secretKey: "sk", fetch: countingFetch });
    for (const client of [asPerson, asServer]) {
      const subscription = client.subscribe("spc_1", { afterSeq: 0 });
      subscription.close();
      // Before the fix, the connection opened after close() and the subscription never ended.
      await Promise.race([subscription.done, new Promise((_, reject) => setTimeout(() => reject(new Error("still not closed 5 s after close()")), 5_000))]);
      expect(subscription.status).toBe("closed");
    }
    expect({ sockets, requests }).toEqual({ sockets: [], requests: [] });
  });
});
