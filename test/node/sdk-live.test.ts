/**
 * The client SDK against a real gateway (`npm run dev`): typed errors,
 * streams that lose their connection mid-stream and resume without losing or
 * repeating an event (SSE and WebSocket), `handleTools` (answers, a handler
 * that throws, one that times out, calls announced before it started) and
 * the webhook handler.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  Switchboard,
  SwitchboardError,
  toNodeListener,
  verifyWebhook,
  type AgentEvent,
  type ModelConfigInput,
  type SpaceEvent,
  type ToolConfigInput,
  type WebSocketConstructor,
} from "../../client/src/index";
import { agentEvent, expiredCallDeadLetter, receiver, subscriptionDeadLetter } from "./dead-letters";
import { admin, gateway, memberClient, personInSpace } from "./gateway";

/** Resolves when `predicate` has seen what it waits for, or rejects at the deadline. */
function until<T>(what: string, register: (done: (value: T) => void) => void, timeoutMs = 20_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

async function expectError(promise: Promise<unknown>, status: number, code: string): Promise<SwitchboardError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SwitchboardError);
  expect(error).toMatchObject({ status, code });
  return error as SwitchboardError;
}

describe("typed errors", () => {
  it("the error envelope becomes a SwitchboardError with status, code, message and details", async () => {
    const missing = await expectError(admin.spaces.get("spc_missing"), 404, "not_found");
    expect(missing.message).toContain("spc_missing");
    const invalid = await expectError(admin.spaces.create({ name: "" }), 400, "validation_error");
    expect(invalid.details).toEqual([expect.objectContaining({ path: "name" })]);
    await expectError(new Switchboard({ baseUrl: gateway.baseUrl, secretKey: "wrong" }).spaces.list(), 401, "unauthorized");
    const { personId } = await personInSpace("Erin");
    await expectError((await memberClient(personId)).agents.list(), 403, "forbidden");
    const nowhere = new Switchboard({ baseUrl: "http://127.0.0.1:9", secretKey: "x", retry: { retries: 0 } });
    await expectError(nowhere.health(), 0, "network_error");
  });

  it("discovery through the SDK: my spaces as a member, every page of spaces with the secret key", async () => {
    const { personId, spaceId } = await personInSpace("Dana");
    const me = await (await memberClient(personId)).me();
    expect(me.entity).toMatchObject({ id: personId, name: "Dana" });
    expect(me.spaces.map((space) => space.id)).toEqual([spaceId]);
    const all = [];
    for await (const space of admin.spaces.all()) all.push(space.id);
    expect(all).toContain(spaceId);
    expect(all).toContain(gateway.demo.spaceId);
  });
});

/** Posts `count` messages one after another; returns their seqs. */
async function postMany(spaceId: string, personId: string, count: number, prefix: string): Promise<number[]> {
  const seqs: number[] = [];
  for (let index = 0; index < count; index += 1) seqs.push((await admin.messages.send(spaceId, { text: `${prefix} ${index}`, entityId: personId })).seq);
  return seqs;
}

function expectGapFree(events: { seq: number }[]): void {
  const seqs = events.map((event) => event.seq);
  expect(new Set(seqs).size).toBe(seqs.length);
  for (let index = 1; index < seqs.length; index += 1) expect(seqs[index], `after seq ${seqs[index - 1]}`).toBe(seqs[index - 1] + 1);
}

describe("subscribe: reconnect and resume", () => {
  it("over SSE: a connection cut mid-stream resumes after the last seq; nothing lost, nothing repeated", async () => {
    const { personId, spaceId } = await personInSpace("Sam");
    let connections = 0;
    // The first stream response breaks off after 5 events, like a dropped network.
    const cuttingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const isStream = String(input instanceof Request ? input.url : input).includes("/stream");
      if (!isStream || !response.body) return response;
      connections += 1;
      if (connections > 1) return response;
      let frames = 0;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value, done } = await reader.read();
          if (done) return controller.close();
          frames += (new TextDecoder().decode(value).match(/^data: /gm) ?? []).length;
          controller.enqueue(value);
          if (frames >= 5) {
            await reader.cancel();
            controller.error(new TypeError("network connection lost"));
          }
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = new Switchboard({ baseUrl: gateway.baseUrl, secretKey: gateway.vars.GATEWAY_SECRET_KEY, fetch: cuttingFetch, WebSocket: null });
    const events: SpaceEvent[] = [];
    const statuses: string[] = [];
    const subscription = client.subscribe(spaceId, { afterSeq: 0, reconnect: { initialDelayMs: 50 } });
    onTestFinished(() => subscription.close());
    subscription.on("status", ({ status }) => statuses.push(status));
    const total = 20;
    const allThere = until<void>("every message on the stream", (done) =>
      subscription.on("event", (event) => {
        events.push(event);
        if (events.filter((candidate) => candidate.type === "space.message").length === total) done();
      }),
    );
    const seqs = await postMany(spaceId, personId, total, "sse");
    await allThere;
    subscription.close();
    await subscription.done;
    expect(connections).toBeGreaterThanOrEqual(2);
    expect(statuses).toContain("reconnecting");
    expectGapFree(events);
    expect(events[0].seq).toBe(1);
    expect(events.filter((event) => event.type === "space.message").map((event) => event.seq)).toEqual(seqs);
    expect(subscription.status).toBe("closed");
  });

  it("over WebSocket with a JWT: a socket dropped mid-stream reconnects and resumes after the last seq", async () => {
    const { personId, spaceId } = await personInSpace("Wes");
    const sockets: WebSocket[] = [];
    // Node 22's WebSocket; the first socket is cut after its fifth frame.
    class DroppingWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        sockets.push(this);
        if (sockets.length === 1) {
          let frames = 0;
          this.addEventListener("message", () => {
            frames += 1;
            if (frames === 5) this.close(4000, "test drop");
          });
        }
      }
    }
    const client = await memberClient(personId, { WebSocket: DroppingWebSocket as unknown as WebSocketConstructor });
    const events: SpaceEvent[] = [];
    const subscription = client.subscribe(spaceId, { afterSeq: 0, reconnect: { initialDelayMs: 50 } });
    onTestFinished(() => subscription.close());
    const total = 20;
    const allThere = until<void>("every message on the socket", (done) =>
      subscription.on("event", (event) => {
        events.push(event);
        if (events.filter((candidate) => candidate.type === "space.message").length === total) done();
      }),
    );
    const seqs = await postMany(spaceId, personId, total, "ws");
    await allThere;
    subscription.close();
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    expect(sockets[1].url).toMatch(/afterSeq=\d+/);
    expect(sockets[1].url).not.toContain("afterSeq=0&");
    expectGapFree(events);
    expect(events.filter((event) => event.type === "space.message").map((event) => event.seq)).toEqual(seqs);
  });

  it("openSpace given the state of a space opened before keeps its timeline and resumes after its last seq", async () => {
    const { personId, spaceId } = await personInSpace("Rio");
    const first = await postMany(spaceId, personId, 3, "before");
    const streams: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes("/stream")) streams.push(url);
      return fetch(input, init);
    };
    const client = new Switchboard({ baseUrl: gateway.baseUrl, secretKey: gateway.vars.GATEWAY_SECRET_KEY, fetch: recordingFetch, WebSocket: null });
    const live = client.openSpace(spaceId);
    onTestFinished(() => live.close());
    await until<void>("the first messages", (done) => live.on("change", (state) => state.messages.length === first.length && done()));
    live.close();
    const lastSeq = live.state.lastSeq;
    const after = await postMany(spaceId, personId, 2, "after");

    const again = client.openSpace(spaceId, { state: live.state });
    onTestFinished(() => again.close());
    expect(again.state).toBe(live.state);
    await until<void>("the missed messages", (done) => again.on("change", (state) => state.messages.length === first.length + after.length && done()));
    expect(again.state.messages.map((message) => message.seq)).toEqual([...first, ...after]);
    expect(new URL(streams.at(-1) ?? "").searchParams.get("afterSeq")).toBe(String(lastSeq));
    expect(() => client.openSpace("spc_another", { state: live.state })).toThrow(TypeError);
  });

  it("a stream the caller may not read ends with the typed error instead of retrying forever", async () => {
    const { personId } = await personInSpace("Olga");
    const other = await personInSpace("Other");
    for (const transport of ["sse", "websocket"] as const) {
      const subscription = (await memberClient(personId)).subscribe(other.spaceId, { transport });
      onTestFinished(() => subscription.close());
      const error = await subscription.done.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, transport).toBeInstanceOf(SwitchboardError);
      expect(error, transport).toMatchObject({ status: 403, code: "forbidden" });
      expect(subscription.status).toBe("closed");
    }
  });
});

type ExternalTool = Extract<ToolConfigInput, { executionType: "external" }>;
type ScriptedTurns = Extract<ModelConfigInput, { provider: "scripted" }>["turns"];

const externalTool = (name: string, extra: Partial<ExternalTool> = {}): ExternalTool => ({
  name,
  description: `the ${name} tool`,
  executionType: "external",
  visible: false,
  timeout: 20_000,
  inputSchema: { type: "object", properties: { city: { type: "string" }, quantity: { type: "integer" } } },
  ...extra,
});

async function createAgent(tools: ToolConfigInput[], turns: ScriptedTurns) {
  return admin.agents.create({
    agent: { name: "Handler test agent" },
    model: { provider: "scripted", turns },
    tools,
  });
}

/** Wakes the agent and resolves with the run once its cycle has finished. */
async function runOnce(agentId: string) {
  const stream = admin.subscribeAgent(agentId, { afterSeq: 0 });
  onTestFinished(() => stream.close());
  const finished = until<AgentEvent>("agent.cycle.finished", (done) =>
    stream.on("event", (event) => {
      if (event.type === "agent.cycle.finished") done(event);
    }),
  );
  await admin.agents.pushInbox(agentId, { go: true });
  const event = await finished;
  stream.close();
  return admin.runs.get((event.data as { runId: string }).runId);
}

describe("handleTools", () => {
  it("answers calls with the handler's result, a throw as the call's error, a slow handler as a timeout error", async () => {
    const agent = await createAgent(
      [externalTool("lookup"), externalTool("explode"), externalTool("dawdle")],
      [
        { toolCalls: [{ name: "lookup", args: { city: "Oslo" } }] },
        { toolCalls: [{ name: "explode", args: {} }] },
        { toolCalls: [{ name: "dawdle", args: {} }] },
        { toolCalls: [{ name: "skip", args: {} }] },
      ],
    );
    const outcomes: string[] = [];
    const handling = admin.handleTools(
      {
        lookup: async (args: { city: string }, call) => ({ city: args.city, temperature: 7, callId: call.toolCallId }),
        explode: () => {
          throw new Error("boom");
        },
        dawdle: (_args, call) => new Promise((resolve) => call.signal.addEventListener("abort", () => resolve("too late"))),
      },
      { agentId: agent.id, timeoutMs: 500, onOutcome: (outcome) => outcomes.push(`${outcome.toolName}:${outcome.outcome}`) },
    );
    onTestFinished(() => handling.close());
    await until<void>("the handler's stream to open", (done) => handling.subscription.on("status", ({ status }) => status === "open" && done()));
    const run = await runOnce(agent.id);
    await handling.close();
    const calls = run.toolCalls as { toolName: string; status: string; result?: unknown; error?: string; toolCallId: string }[];
    const lookup = calls.find((call) => call.toolName === "lookup");
    expect(lookup).toMatchObject({ status: "completed", result: { city: "Oslo", temperature: 7, callId: lookup?.toolCallId } });
    expect(calls.find((call) => call.toolName === "explode")).toMatchObject({ status: "failed", error: expect.stringContaining("boom") });
    expect(calls.find((call) => call.toolName === "dawdle")).toMatchObject({ status: "failed", error: expect.stringContaining("timed out after 500ms") });
    expect(outcomes.sort()).toEqual(["dawdle:handler_failed", "explode:handler_failed", "lookup:answered"]);
  });

  it("a handler that throws fails the call everywhere: the card shows error, the run's call and statistics count a failure, the model reads a tool error", async () => {
    const { spaceId } = await personInSpace("Hana");
    const agent = await createAgent(
      [externalTool("explode", { visible: true })],
      [
        {
          toolCalls: [
            { name: "enter_space", args: { spaceId } },
            { name: "explode", args: { city: "Lima" } },
          ],
        },
        { toolCalls: [{ name: "skip", args: {} }] },
      ],
    );
    await admin.spaces.addMember(spaceId, agent.entityId);
    const handling = admin.handleTools(
      {
        explode: () => {
          throw new Error("the warehouse is on fire");
        },
      },
      { agentId: agent.id },
    );
    onTestFinished(() => handling.close());
    await until<void>("the handler's stream to open", (done) => handling.subscription.on("status", ({ status }) => status === "open" && done()));
    const run = await runOnce(agent.id);
    await handling.close();
    const call = (run.toolCalls as { toolName: string; status: string; result?: unknown; error?: string; toolCallId: string }[]).find((entry) => entry.toolName === "explode");
    // The call failed (the model was given a tool error), rather than completed with a result that happens to hold one.
    expect(call).toMatchObject({ status: "failed", error: expect.stringContaining("the warehouse is on fire") });
    const stats = (run.toolStats as { toolName: string; calls: number; failed: number }[] | undefined)?.find((entry) => entry.toolName === "explode");
    expect(stats).toMatchObject({ calls: 1, failed: 1 });
    const { messages } = await admin.messages.list(spaceId, { afterSeq: 0, limit: 200 });
    const card = messages.find((message) => message.parts?.some((part) => part.type === "tool_call" && part.toolCallId === call?.toolCallId));
    expect(card?.status).toBe("error");
    expect(card?.parts?.find((part) => part.type === "tool_call")).toMatchObject({ status: "error" });
  });

  it("answers a call that was announced before it started (from the pending list), once", async () => {
    const agent = await createAgent(
      [externalTool("later", { isAsync: true })],
      [
        {
          toolCalls: [
            { name: "later", args: { city: "Rome" } },
            { name: "skip", args: {} },
          ],
        },
        { toolCalls: [{ name: "skip", args: {} }] },
      ],
    );
    await runOnce(agent.id);
    const before = await admin.agents.pendingToolCalls(agent.id, { status: "pending" });
    expect(before.pendingToolCalls).toHaveLength(1);
    let calls = 0;
    const answered = until<void>("handleTools to answer the call it found pending", (resolve) => {
      const handling = admin.handleTools(
        {
          later: (args: { city: string }) => {
            calls += 1;
            return { city: args.city, ok: true };
          },
        },
        { agentId: agent.id, onOutcome: () => void handling.close().then(() => resolve()) },
      );
      onTestFinished(() => handling.close());
    });
    await answered;
    const after = await admin.agents.pendingToolCalls(agent.id, { status: "resolved" });
    expect(after.pendingToolCalls).toEqual([expect.objectContaining({ toolName: "later", result: { city: "Rome", ok: true } })]);
    expect(calls).toBe(1);
  });
});

describe("callback URLs", () => {
  it("a pending call's callbackUrl answers it with no other credential", async () => {
    const agent = await createAgent([externalTool("remote")], [{ toolCalls: [{ name: "remote", args: { city: "Lima" } }] }, { toolCalls: [{ name: "skip", args: {} }] }]);
    const stream = admin.subscribeAgent(agent.id, { afterSeq: 0 });
    onTestFinished(() => stream.close());
    const announced = until<AgentEvent>("tool.pending with a callbackUrl", (done) => stream.on("event", (event) => event.type === "tool.pending" && done(event)));
    const finished = until<AgentEvent>("agent.cycle.finished", (done) => stream.on("event", (event) => event.type === "agent.cycle.finished" && done(event)));
    await admin.agents.pushInbox(agent.id, {});
    const pending = (await announced).data as { callbackUrl?: string; toolCallId: string };
    expect(pending.callbackUrl).toMatch(/\/api\/callbacks\//);
    // Anyone holding the URL may answer: a client with no valid key at all.
    const stranger = new Switchboard({ baseUrl: gateway.baseUrl, secretKey: "not-a-key" });
    const answer = await stranger.answerCallbackUrl(pending.callbackUrl as string, { result: { forecast: "sunny" } });
    expect(answer).toMatchObject({ success: true });
    const run = await admin.runs.get(((await finished).data as { runId: string }).runId);
    stream.close();
    expect((run.toolCalls as { toolName: string; result?: unknown }[]).find((call) => call.toolName === "remote")?.result).toEqual({ forecast: "sunny" });
  });
});

describe("webhook handler", () => {
  it("verifies the gateway's signature, answers the pushed call, and refuses a forged one", async () => {
    const handler = admin.webhookHandler({ reserve: (args: { quantity: number }) => ({ reserved: args.quantity }) }, { secret: gateway.vars.WEBHOOK_SECRET });
    const server = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const agent = await createAgent(
        [externalTool("reserve", { execution: { webhook: `http://127.0.0.1:${port}/switchboard` } })],
        [{ toolCalls: [{ name: "reserve", args: { quantity: 2 } }] }, { toolCalls: [{ name: "skip", args: {} }] }],
      );
      const run = await runOnce(agent.id);
      expect((run.toolCalls as { toolName: string; result?: unknown }[]).find((call) => call.toolName === "reserve")?.result).toEqual({ reserved: 2 });
      const forged = await fetch(`http://127.0.0.1:${port}/switchboard`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-switchboard-signature": `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}` },
        body: JSON.stringify({ type: "tool.call", toolName: "reserve", toolCallId: "call_x", runId: "run_x", args: {} }),
      });
      expect(forged.status).toBe(401);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("dead letters", () => {
  it("a pushed call past its deadline is listed; redelivering it is refused as gone (the call expired)", async () => {
    const { deadLetter, agentId } = await expiredCallDeadLetter();
    expect(deadLetter).toMatchObject({ source: "tool_call", agentId, type: "tool.call", status: "dead", lastError: expect.stringMatching(/expired|deadline/) });
    await expectError(admin.webhooks.redeliver(deadLetter.id), 410, "gone");
    await expectError(admin.webhooks.redeliver(`dlt_${"0".repeat(32)}`), 404, "not_found");
  });

  it("a subscription's dead letter is redelivered once: the receiver gets it signed, with its webhook-id, and the list says delivered", async () => {
    const listening = await receiver(200);
    try {
      const seeded = await subscriptionDeadLetter(listening.url);
      const page = await admin.webhooks.deadLetters({ subscriptionId: seeded.subscriptionId });
      expect(page).toMatchObject({ nextCursor: null, deadLetters: [{ id: seeded.id, status: "dead", attempts: 8 }] });
      const delivered = agentEvent(seeded.agentId, "webhook.delivered", (data) => data.webhookId === seeded.webhookId);
      const started = await admin.webhooks.redeliver(seeded.id);
      expect(started).toMatchObject({ id: seeded.id, status: "redelivering", redeliveries: 1 });
      await delivered;
      expect((await admin.webhooks.deadLetters({ subscriptionId: seeded.subscriptionId })).deadLetters[0]?.status).toBe("delivered");
      expect(listening.pushes).toHaveLength(1);
      expect(listening.pushes[0].headers["webhook-id"]).toBe(seeded.webhookId);
      expect(verifyWebhook(seeded.secret, listening.pushes[0].body, listening.pushes[0].headers)).toMatchObject({ type: "run.completed" });
      // Asked again: it was delivered, nothing more is sent.
      expect(await admin.webhooks.redeliver(seeded.id)).toMatchObject({ status: "delivered" });
      expect(listening.pushes).toHaveLength(1);
    } finally {
      await listening.close();
    }
  });
});
