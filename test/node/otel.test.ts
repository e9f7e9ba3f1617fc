/**
 * OpenTelemetry traces from a real gateway: a second `npm run dev` (its own
 * keys file, state folder and port, stopped at the end) whose
 * OTEL_EXPORTER_OTLP_ENDPOINT is a local receiver that decodes what it gets
 * with the official OTLP schema (otlp-receiver.ts). A scripted agent's run
 * with a model step, a gateway tool call and a `space` call a person answers
 * must arrive as one trace under the caller's `traceparent`, with the
 * GenAI attributes and never a secret; the tool's upstream gets the tool
 * span's `traceparent`; an endpoint that hangs and then goes down never
 * holds a run up, and its spans are counted as dropped on the agent stream.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { z } from "zod";
import { type AgentEvent, Switchboard, signToken } from "../../client/src/index";
import { parseDotenv } from "../../scripts/parse-dotenv.mjs";
import { encodeOtlpJson } from "../../src/telemetry/encode-otlp-json";
import { encodeOtlpProtobuf } from "../../src/telemetry/encode-otlp-protobuf";
import type { SpanRecord } from "../../src/telemetry/span-record";
import { attributesAsData, type DecodedSpan, decodeProtobufExport, type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver";

const root = join(import.meta.dirname, "..", "..");
const directory = mkdtempSync(join(tmpdir(), "switchboard-otel-"));
const upstreamToken = `tok_${randomBytes(12).toString("hex")}`;
const otlpKey = `otlp key ${randomBytes(6).toString("hex")}`;
const callerTrace = { traceId: randomBytes(16).toString("hex"), spanId: randomBytes(8).toString("hex") };

let receiver: OtlpReceiver;
let upstream: { url: string; requests: IncomingHttpHeaders[]; close(): Promise<void> };
let dev: { child: ChildProcess; exited: Promise<unknown> } | undefined;
let admin: Switchboard;
let baseUrl = "";
let vars: Record<string, string> = {};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** The gateway tool's service: answers JSON and keeps each request's headers. */
async function startUpstream() {
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    requests.push(request.headers);
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ forecast: "sunny" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no port");
  return { url: `http://127.0.0.1:${address.port}`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function startDevServer(): Promise<void> {
  const envFile = join(directory, "dev.vars");
  writeFileSync(
    envFile,
    [
      `OTEL_EXPORTER_OTLP_ENDPOINT=${receiver.url}`,
      // Percent-encoded as the OpenTelemetry spec says: the receiver must get it decoded.
      `OTEL_EXPORTER_OTLP_HEADERS=x-otlp-key=${encodeURIComponent(otlpKey)}`,
      `UPSTREAM_TOKEN=${upstreamToken}`,
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  const port = await freePort();
  const child = spawn(process.execPath, ["scripts/dev.mjs", "--", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", join(directory, "state"), "--env-file", envFile], {
    cwd: root,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  dev = { child, exited };
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`the second dev server did not start:\n${output.slice(-3000)}`)), 150_000);
    const check = (chunk: string) => {
      output += chunk;
      if (/http:\/\/127\.0\.0\.1:\d+\/#publicKey=\S+/.test(output)) {
        clearTimeout(deadline);
        resolve();
      }
    };
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding("utf8");
      stream?.on("data", check);
    }
    void exited.then((code) => {
      clearTimeout(deadline);
      reject(new Error(`the second dev server exited (${String(code)}):\n${output.slice(-3000)}`));
    });
  });
  baseUrl = `http://127.0.0.1:${port}`;
  vars = parseDotenv(readFileSync(envFile, "utf8"));
  admin = new Switchboard({ baseUrl, secretKey: vars.GATEWAY_SECRET_KEY });
}

async function stopDevServer(): Promise<void> {
  if (!dev?.child.pid || dev.child.exitCode !== null) return;
  const pid = dev.child.pid;
  try {
    process.kill(-pid, "SIGTERM");
  } catch {
    // already gone
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }, 10_000);
  await dev.exited;
  clearTimeout(timer);
}

beforeAll(async () => {
  receiver = await startOtlpReceiver(changed);
  upstream = await startUpstream();
  await startDevServer();
}, 180_000);

afterAll(async () => {
  await stopDevServer();
  await receiver?.close();
  await upstream?.close();
  rmSync(directory, { recursive: true, force: true });
}, 30_000);

const WaitingCall = z.object({ runId: z.string(), toolCallId: z.string() });

/** The agent's first waiting call, once there is one. */
async function waitingCall(agentId: string) {
  const [row] = (await admin.agents.pendingToolCalls(agentId, { status: "waiting" })).pendingToolCalls;
  return row === undefined ? undefined : WaitingCall.parse(row);
}

/** Something a test waits on may have changed: an export reached the receiver, or an agent it watches sent an event. */
const changes = new EventTarget();
const changed = () => changes.dispatchEvent(new Event("change"));

/** The agent's stream while the test runs: each of its events may change what the test waits on. */
function watch(agentId: string): void {
  const stream = admin.subscribeAgent(agentId, { afterSeq: 0 });
  stream.on("event", changed);
  onTestFinished(() => stream.close());
}

/** `probe`'s value once it has one: probed now, then again at each change (never on a timer), until `timeoutMs`. */
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Listening before probing: a change during the probe is not missed.
    const next = new Promise<void>((resolve) => changes.addEventListener("change", () => resolve(), { once: true }));
    const value = await probe();
    if (value !== undefined) return value;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`${what}: not within ${timeoutMs} ms`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([next, new Promise<void>((resolve) => (timer = setTimeout(resolve, remaining)))]);
    clearTimeout(timer);
  }
}

/** A person and a scripted agent in a space: the agent looks the weather up (gateway tool), then asks the person (space tool), then answers. */
async function world(name: string) {
  const person = await admin.entities.create({ type: "human", name: `${name} person` });
  const agent = await admin.agents.create({ agent: { name }, model: { provider: "scripted", turns: [] } });
  const space = await admin.spaces.create({ name: `${name}'s room`, memberIds: [person.id, agent.id] });
  await admin.agents.update(agent.id, {
    agent: { name },
    model: {
      provider: "scripted",
      name: "script-1",
      turns: [
        {
          toolCalls: [
            { name: "enter_space", args: { spaceId: space.id } },
            { name: "lookup", args: { city: "Paris" } },
            { name: "ask_person", args: { question: "Umbrella?" } },
          ],
        },
        { text: "Sunny, no umbrella needed." },
        { text: "Again: sunny." },
      ],
    },
    tools: [
      {
        name: "lookup",
        description: "The weather in a city",
        executionType: "gateway",
        execution: { url: `${upstream.url}/weather?city={{city}}`, method: "GET", headers: { authorization: "Bearer ${env.UPSTREAM_TOKEN}" } },
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
      {
        name: "ask_person",
        description: "Ask the person",
        executionType: "space",
        timeout: 120_000,
        inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
      },
    ],
  });
  watch(agent.id);
  return { personId: person.id, agentId: agent.id, spaceId: space.id };
}

const secretsOf = (token: string) => [vars.GATEWAY_SECRET_KEY, vars.GATEWAY_PUBLIC_KEY, vars.JWT_SECRET, vars.WEBHOOK_SECRET, upstreamToken, otlpKey, token];

describe("OpenTelemetry traces", () => {
  it("sends a run as one trace under the caller's traceparent, with GenAI attributes, and the gateway tool's upstream gets the tool span", async () => {
    const { personId, agentId, spaceId } = await world("Tracer agent");
    const token = await signToken(personId, { secret: vars.JWT_SECRET, expiresIn: "1h" });
    const text = `Weather in Paris? ${randomBytes(4).toString("hex")}`;
    const posted = await fetch(`${baseUrl}/api/spaces/${spaceId}/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-public-key": vars.GATEWAY_PUBLIC_KEY,
        authorization: `Bearer ${token}`,
        traceparent: `00-${callerTrace.traceId}-${callerTrace.spanId}-01`,
      },
      body: JSON.stringify({ text }),
    });
    expect(posted.status).toBe(201);

    const pending = await until("the space call waits", () => waitingCall(agentId));
    await admin.submitToolResult(pending.runId, pending.toolCallId, { answer: "no" });
    const runId = pending.runId;
    await until("the run completes", async () => ((await admin.runs.get(runId)).status === "completed" ? true : undefined));
    const rootSpan = await until("the run's root span arrives", () =>
      receiver.spans().find((span) => span.name.startsWith("invoke_agent") && attributesAsData(span)["switchboard.run.id"] === runId),
    );

    // One trace, the caller's: the root is the child of the span that posted the message.
    const spans = receiver.spans().filter((span) => span.traceId === callerTrace.traceId);
    expect(rootSpan.traceId).toBe(callerTrace.traceId);
    expect(rootSpan.parentSpanId).toBe(callerTrace.spanId);
    expect(rootSpan.name).toBe("invoke_agent Tracer agent");
    expect(rootSpan.kind).toBe(1);
    expect(attributesAsData(rootSpan)).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": agentId,
      "gen_ai.agent.name": "Tracer agent",
      "gen_ai.conversation.id": spaceId,
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "script-1",
      "switchboard.run.status": "completed",
    });
    const byParent = (parent: DecodedSpan) => spans.filter((span) => span.parentSpanId === parent.spanId);

    const chats = byParent(rootSpan).filter((span) => span.name.startsWith("chat"));
    expect(chats.map((span) => span.name)).toEqual(["chat script-1", "chat script-1"]);
    expect(chats.every((span) => span.kind === 3)).toBe(true);
    expect(chats.map((span) => attributesAsData(span)["gen_ai.response.finish_reasons"])).toEqual([["tool-calls"], ["stop"]]);
    for (const chat of chats) {
      expect(attributesAsData(chat)).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "scripted", "gen_ai.request.model": "script-1" });
      expect(typeof attributesAsData(chat)["gen_ai.usage.input_tokens"]).toBe("number");
      expect(typeof attributesAsData(chat)["gen_ai.usage.output_tokens"]).toBe("number");
    }

    const tools = byParent(rootSpan).filter((span) => span.name.startsWith("execute_tool"));
    expect(tools.map((span) => span.name).sort()).toEqual(["execute_tool ask_person", "execute_tool enter_space", "execute_tool lookup"]);
    const tool = (name: string) => tools.find((span) => span.name === `execute_tool ${name}`) as DecodedSpan;
    expect(attributesAsData(tool("enter_space"))).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "enter_space", "gen_ai.tool.type": "function" });
    expect(attributesAsData(tool("lookup"))).toMatchObject({ "gen_ai.tool.name": "lookup", "gen_ai.tool.type": "extension", "switchboard.tool.status": "completed" });
    expect(attributesAsData(tool("ask_person"))).toMatchObject({ "gen_ai.tool.call.id": pending.toolCallId, "gen_ai.tool.type": "extension" });
    for (const span of tools) expect(attributesAsData(span)["gen_ai.tool.call.id"]).toMatch(/\S/);

    // The wait for the person is a span of its own, under the call's.
    const waits = byParent(tool("ask_person"));
    expect(waits.map((span) => span.name)).toEqual(["wait pending_call"]);
    expect(attributesAsData(waits[0] as DecodedSpan)).toMatchObject({
      "gen_ai.tool.call.id": pending.toolCallId,
      "switchboard.wait.kind": "pending_call",
      "switchboard.wait.outcome": "ok",
    });

    // The upstream was called with the lookup span's context.
    const lookupRequest = upstream.requests.find((headers) => headers.authorization === `Bearer ${upstreamToken}`);
    expect(lookupRequest?.traceparent).toBe(`00-${callerTrace.traceId}-${tool("lookup").spanId}-01`);

    // Sent as protobuf, with the configured header decoded, and the resource says who sent it.
    const received = receiver.exports.find((entry) => entry.spans.some((span) => span.spanId === rootSpan.spanId));
    expect(received?.contentType).toBe("application/x-protobuf");
    expect(received?.headers["x-otlp-key"]).toBe(otlpKey);
    expect(received?.resource["service.name"]?.stringValue).toBe("switchboard");

    // No secret, token or content in anything recorded.
    const recorded = JSON.stringify(receiver.exports.map((entry) => ({ resource: entry.resource, spans: entry.spans })));
    for (const secret of secretsOf(token)) expect(recorded).not.toContain(secret);
    for (const content of [text, "Umbrella?", "sunny", "Paris", '"no"']) expect(recorded).not.toContain(content);
  }, 120_000);

  it("a sub-agent's run goes on in its caller's trace: its root span is a child of the call's execute_tool span", async () => {
    const child = await admin.agents.create({ agent: { name: "Traced child" }, model: { provider: "scripted", turns: [{ text: "Lima." }] } });
    const parent = await admin.agents.create({
      agent: { name: "Traced parent" },
      model: { provider: "scripted", turns: [{ toolCalls: [{ name: "team__geo", args: { task: "The capital of Peru?" } }] }, { text: "Lima, it says." }] },
      providers: [{ name: "team", type: "agents", agents: [{ agentId: child.id, name: "geo" }] }],
    });
    watch(child.id);
    watch(parent.id);
    await admin.agents.pushInbox(parent.id, { go: true });
    const childRun = await until("the child's run completes", async () => (await admin.agents.runs(child.id)).runs.find((run) => run.status === "completed"));
    const childRoot = await until("the child's root span arrives", () => receiver.spans().find((span) => attributesAsData(span)["switchboard.run.id"] === childRun.id));
    const call = await until("the parent's call span arrives", () => receiver.spans().find((span) => span.name === "execute_tool team__geo" && span.traceId === childRoot.traceId));
    expect(childRoot.parentSpanId).toBe(call.spanId);
    expect(childRoot.name).toBe("invoke_agent Traced child");
  }, 120_000);

  it("a run without a traceparent starts a trace of its own; a malformed one is ignored", async () => {
    const { agentId, spaceId, personId } = await world("Own trace agent");
    const { id: messageId } = await admin.messages.send(spaceId, { text: "hello", entityId: personId });
    expect(messageId).toMatch(/\S/);
    const pending = await until("the space call waits", () => waitingCall(agentId));
    await admin.submitToolResult(pending.runId, pending.toolCallId, { answer: "no" });
    const rootSpan = await until("the root span arrives", () => receiver.spans().find((span) => attributesAsData(span)["switchboard.run.id"] === pending.runId));
    expect(rootSpan.parentSpanId).toBe("");
    expect(rootSpan.traceId).not.toBe(callerTrace.traceId);

    const inbox = await fetch(`${baseUrl}/api/agents/${agentId}/inbox`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-secret-key": vars.GATEWAY_SECRET_KEY, traceparent: "00-not-a-trace-01" },
      body: JSON.stringify({ type: "external", data: { ping: true } }),
    });
    expect(inbox.status).toBe(202);
    const runs = await until("the inbox run completes", async () => {
      const listed = (await admin.agents.runs(agentId)).runs.filter((run) => run.id !== pending.runId && run.status === "completed");
      return listed.length > 0 ? listed : undefined;
    });
    const second = await until("its root span arrives", () => receiver.spans().find((span) => attributesAsData(span)["switchboard.run.id"] === runs[0]?.id));
    expect(second.parentSpanId).toBe("");
    expect(second.traceId).toMatch(/^[0-9a-f]{32}$/);
  }, 120_000);

  it("an endpoint that hangs never holds a run up, and when it goes down the spans are dropped and counted on the agent stream", async () => {
    const { agentId, spaceId, personId } = await world("Hung endpoint agent");
    const events: AgentEvent[] = [];
    const stream = admin.subscribeAgent(agentId, { afterSeq: 0 });
    stream.on("event", (event) => {
      events.push(event);
      changed();
    });
    try {
      receiver.hold();
      await admin.messages.send(spaceId, { text: "first", entityId: personId });
      const first = await until("the first space call waits", () => waitingCall(agentId));
      await admin.submitToolResult(first.runId, first.toolCallId, { answer: "no" });
      await until("the first run completes", async () => ((await admin.runs.get(first.runId)).status === "completed" ? true : undefined));
      await until("its export is held", () => (receiver.held() > 0 ? true : undefined));

      // The export is still hanging: the agent's next run starts and ends all the same.
      await admin.agents.pushInbox(agentId, { again: true });
      const second = await until("a second run completes while the export hangs", async () =>
        (await admin.agents.runs(agentId)).runs.find((run) => run.id !== first.runId && run.status === "completed"),
      );
      expect(second.status).toBe("completed");
      expect(receiver.held()).toBeGreaterThan(0);

      receiver.cutHeld();
      const dropped = await until("telemetry.dropped on the agent stream", () => events.find((event) => event.type === "telemetry.dropped"));
      expect(dropped).toMatchObject({ type: "telemetry.dropped", data: { reason: "export_failed" } });
      const data = (dropped as { data: { dropped: number; totalDropped: number } }).data;
      expect(data.dropped).toBeGreaterThan(0);
      expect(data.totalDropped).toBeGreaterThanOrEqual(data.dropped);
    } finally {
      stream.close();
      receiver.cutHeld();
    }
  }, 120_000);

  it("the hand-written protobuf decodes with the official schema to what the JSON encoding says, every value type included", () => {
    const span: SpanRecord = {
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      parentSpanId: "00f067aa0ba902b7",
      name: "execute_tool lookup",
      kind: "client",
      startTimeMs: 1_763_000_000_123.5,
      endTimeMs: 1_763_000_000_456,
      attributes: { text: "é ✓", empty: "", yes: true, no: false, zero: 0, big: 9_007_199_254_740_991, negative: -42, ratio: 0.25, list: ["a", "", "c"] },
      events: [{ name: "retried", timeMs: 1_763_000_000_200, attributes: { attempt: 2 } }],
      links: [
        { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", sampled: true, attributes: { "gen_ai.tool.call.id": "call_1" } },
        { traceId: "5bf92f3577b34da6a3ce929d0e0e4737", spanId: "10f067aa0ba902b8", sampled: false },
      ],
      status: { code: "error", message: "timeout" },
    };
    const identity = { resource: { "service.name": "switchboard", "service.version": "0.1.0" }, scope: { name: "switchboard", version: "1.41.0" } };
    const decoded = decodeProtobufExport(encodeOtlpProtobuf(identity, [span, { ...span, spanId: "b7ad6b7169203332", parentSpanId: undefined, status: { code: "unset" } }]));
    const json = JSON.parse(encodeOtlpJson(identity, [span])) as {
      resourceSpans: {
        scopeSpans: { spans: { attributes: { key: string; value: unknown }[]; startTimeUnixNano: string; endTimeUnixNano: string; links: unknown[] }[] }[];
      }[];
    };
    const jsonSpan = json.resourceSpans[0]?.scopeSpans[0]?.spans[0];
    const [first, second] = decoded.spans;
    expect(first).toMatchObject({
      traceId: span.traceId,
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      name: span.name,
      kind: 3,
      startTimeUnixNano: "1763000000123500000",
      endTimeUnixNano: "1763000000456000000",
      status: { code: 2, message: "timeout" },
    });
    expect(first?.startTimeUnixNano).toBe(jsonSpan?.startTimeUnixNano);
    expect(first?.endTimeUnixNano).toBe(jsonSpan?.endTimeUnixNano);
    // Every attribute decodes to the value and type the JSON mapping gives it.
    expect(Object.keys(first?.attributes ?? {})).toEqual(Object.keys(span.attributes));
    for (const entry of jsonSpan?.attributes ?? []) expect(first?.attributes[entry.key]).toEqual(entry.value);
    expect(attributesAsData(first as DecodedSpan)).toEqual({ ...span.attributes });
    // Links (a run woken by late answers links to their calls), with the linked spans' trace flags.
    expect(first?.links).toEqual([
      { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", flags: 1, attributes: { "gen_ai.tool.call.id": { stringValue: "call_1" } } },
      { traceId: "5bf92f3577b34da6a3ce929d0e0e4737", spanId: "10f067aa0ba902b8", attributes: {} },
    ]);
    expect(jsonSpan?.links).toEqual([
      { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", flags: 1, attributes: [{ key: "gen_ai.tool.call.id", value: { stringValue: "call_1" } }] },
      { traceId: "5bf92f3577b34da6a3ce929d0e0e4737", spanId: "10f067aa0ba902b8", flags: 0, attributes: [] },
    ]);
    expect(second?.parentSpanId).toBe("");
    expect(second?.status).toEqual({});
    expect(decoded.resource["service.version"]).toEqual({ stringValue: "0.1.0" });
  });
});
