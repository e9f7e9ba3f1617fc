/**
 * Minimal means minimal everywhere: a tool whose calls are minimal (its
 * `display.mode`, or a prebuilt tool's default) shows public-key clients only
 * a call's id, name and status, whatever provider made the tool, on every
 * path a call takes to a space: its card, its approval card, an escalated
 * approval, a failure, and a replay from seq 0 (SSE, WebSocket and the
 * messages route). A secret-key client sees everything. Every argument
 * carries a canary; no public frame may hold it.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { maxRunAttempts } from "../../src/agents/run-cycle";
import { callJson, createHuman, createSpace, memberHeaders, secret, secretHeaders } from "../support/api";
import { agentObject, createAgent, settledRuns, waitUntil } from "../support/agents";
import { type EventCollector, openSse, openWebSocket, type ReceivedEvent } from "../support/stream-client";
import { enter, skip, submitResult } from "../support/tool-world";

type ToolCall = { name: string; args: Record<string, unknown> };
type Subject = {
  /** The tool's name as the model calls it. */
  tool: string;
  /** Agent config that offers the tool, minimal unless `full`. */
  config(canary: string, full: boolean): Promise<Record<string, unknown>>;
  ok(canary: string): ToolCall;
  fail(canary: string): ToolCall;
};

const minimal = (full: boolean) => (full ? { mode: "full" } : { mode: "minimal" });

const subjects: Record<string, Subject> = {
  "a configured gateway tool": {
    tool: "echo",
    config: async (_canary, full) => ({
      tools: [
        {
          name: "echo",
          description: "Echo",
          executionType: "gateway",
          visible: true,
          display: minimal(full),
          inputSchema: { type: "object", properties: { note: { type: "string" } } },
          execution: { url: "http://api.test/echo", method: "POST" },
        },
        {
          name: "broken",
          description: "Fails",
          executionType: "gateway",
          visible: true,
          display: minimal(full),
          inputSchema: { type: "object", properties: { note: { type: "string" } } },
          execution: { url: "http://api.test/status/500", method: "POST" },
        },
      ],
    }),
    ok: (canary) => ({ name: "echo", args: { note: canary } }),
    fail: (canary) => ({ name: "broken", args: { note: canary } }),
  },
  "a prebuilt tool (minimal by default)": {
    tool: "remember",
    config: async (_canary, full) => ({
      tools: [
        { name: "remember", executionType: "prebuilt", visible: true, execution: { action: "setMemories" }, ...(full && { display: { mode: "full" } }) },
        { name: "schedule", executionType: "prebuilt", visible: true, execution: { action: "setPlans" } },
      ],
    }),
    ok: (canary) => ({ name: "remember", args: { memories: [{ key: "note", value: canary }] } }),
    // A cron that never runs passes the schema and fails in the action.
    fail: (canary) => ({ name: "schedule", args: { plans: [{ name: canary, instruction: canary, cron: "99 99 * * *" }] } }),
  },
  "an OpenAPI operation": {
    tool: "api__send",
    config: async (_canary, full) => ({
      providers: [
        {
          name: "api",
          type: "openapi",
          baseUrl: "http://api.test",
          visible: true,
          display: minimal(full),
          spec: {
            document: {
              openapi: "3.0.3",
              info: { title: "x", version: "1" },
              paths: {
                "/echo/send": {
                  post: { operationId: "send", requestBody: { content: { "application/json": { schema: { type: "object", properties: { note: { type: "string" } } } } } } },
                },
                "/status/500": {
                  post: { operationId: "explode", requestBody: { content: { "application/json": { schema: { type: "object", properties: { note: { type: "string" } } } } } } },
                },
              },
            },
          },
        },
      ],
    }),
    ok: (canary) => ({ name: "api__send", args: { body: { note: canary } } }),
    fail: (canary) => ({ name: "api__explode", args: { body: { note: canary } } }),
  },
  "an MCP tool": {
    tool: "mem__lookup",
    config: async (_canary, full) => ({
      mcp: {
        servers: [
          { name: "mem", url: `http://mcp.test/stateful/minimal-${crypto.randomUUID()}`, transport: "http", visible: true, display: minimal(full) },
          { name: "flaky", url: "http://mcp.test/mcp", transport: "http", visible: true, display: minimal(full), allowedTools: ["fail"] },
        ],
      },
    }),
    ok: (canary) => ({ name: "mem__lookup", args: { key: canary } }),
    fail: (canary) => ({ name: "flaky__fail", args: { note: canary } }),
  },
  "a sub-agent": {
    tool: "team__echoer",
    config: async (canary, full) => {
      const echoer = await createAgent({ agent: { name: "Echoer" }, model: { provider: "scripted", turns: [{ text: `answer ${canary}` }] } });
      // Its model cannot be made (no Workers AI binding in tests): its run fails, and so does the call.
      const broken = await createAgent({ agent: { name: "Broken" }, model: { provider: "workers-ai", name: "@cf/meta/llama-3.1-8b-instruct" } });
      return {
        providers: [
          {
            name: "team",
            type: "agents",
            visible: true,
            display: minimal(full),
            agents: [
              { agentId: echoer.id, name: "echoer" },
              { agentId: broken.id, name: "broken" },
            ],
          },
        ],
      };
    },
    ok: (canary) => ({ name: "team__echoer", args: { task: `echo ${canary}` } }),
    fail: (canary) => ({ name: "team__broken", args: { task: `fail ${canary}` } }),
  },
};

type Scenario = "card" | "failure" | "approval card" | "escalation";

/** Everything one audience saw: live (SSE and WebSocket, both spaces), replayed from seq 0, and the messages route. */
async function scenario(subject: Subject, kind: Scenario, full = false) {
  const canary = `canary-${crypto.randomUUID()}`;
  const person = await createHuman("Pat");
  const spaceId = await createSpace([person]);
  const otherSpaceId = await createSpace([person], "Escalations");
  const extra = await subject.config(canary, full);
  const call = kind === "failure" ? subject.fail(canary) : subject.ok(canary);
  const approvals =
    kind === "approval card"
      ? { [call.name]: { required: true, timeout: 20_000 } }
      : kind === "escalation"
        ? { [call.name]: { required: true, timeout: 300, onTimeout: "escalate", escalateTo: { spaceId: otherSpaceId } } }
        : undefined;
  const agent = await createAgent({
    agent: { name: "Shower" },
    model: { provider: "scripted", turns: [{ toolCalls: [enter(spaceId), call] }, { toolCalls: [skip] }] },
    ...extra,
    ...(approvals && { approvals }),
  });
  for (const space of [spaceId, otherSpaceId]) await secret(`/api/spaces/${space}/members`, { body: { entityId: agent.entityId } });

  const publicHeaders = await memberHeaders(person);
  const token = publicHeaders.authorization.slice("Bearer ".length);
  const live = {
    public: await Promise.all(
      [spaceId, otherSpaceId].flatMap((space) => [
        openSse(`/api/spaces/${space}/stream`, publicHeaders),
        openWebSocket(`/api/spaces/${space}/stream?publicKey=${publicHeaders["x-public-key"]}&token=${token}`),
      ]),
    ),
    secret: await Promise.all([spaceId, otherSpaceId].map((space) => openSse(`/api/spaces/${space}/stream`, secretHeaders))),
  };
  await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { go: true } } });

  if (kind === "approval card" || kind === "escalation") {
    // Answered with the secret key, from whichever space the card ended up in.
    const where = kind === "escalation" ? live.secret[1].collector : live.secret[0].collector;
    const card = await where.waitFor((event) => event.type === "space.message" && approvalPart(event) !== undefined, 15_000);
    const part = approvalPart(card);
    expect((await submitResult(String(part?.runId), String(part?.toolCallId), { approved: true })).status).toBe(200);
  }
  const [run] = await settledRuns(agent.id, 30_000);
  await live.secret[0].collector.waitFor((event) => event.type === "agent.cycle.finished" && event.data.runId === run.id, 10_000);

  const replay = await Promise.all(
    [spaceId, otherSpaceId].flatMap((space) => [
      openSse(`/api/spaces/${space}/stream?afterSeq=0`, publicHeaders),
      openWebSocket(`/api/spaces/${space}/stream?afterSeq=0&publicKey=${publicHeaders["x-public-key"]}&token=${token}`),
    ]),
  );
  const secretReplay = await Promise.all([spaceId, otherSpaceId].map((space) => openSse(`/api/spaces/${space}/stream?afterSeq=0`, secretHeaders)));
  // Each replay has caught up once it reached the last seq the secret view of its space saw.
  for (const [index, stream] of replay.entries()) await caughtUp(stream.collector, live.secret[index < 2 ? 0 : 1].collector);
  for (const [index, stream] of secretReplay.entries()) await caughtUp(stream.collector, live.secret[index].collector);
  const messages = {
    public: await Promise.all([spaceId, otherSpaceId].map(async (space) => (await callJson(`/api/spaces/${space}/messages?afterSeq=0`, { headers: publicHeaders })).body)),
    secret: await Promise.all([spaceId, otherSpaceId].map(async (space) => (await secret(`/api/spaces/${space}/messages?afterSeq=0`)).body)),
  };
  const publicEvents = [...live.public, ...replay].flatMap((stream) => stream.collector.events);
  const secretEvents = [...live.secret, ...secretReplay].flatMap((stream) => stream.collector.events);
  for (const stream of [...live.public, ...live.secret, ...replay, ...secretReplay]) stream.close();
  return {
    canary,
    run,
    publicEvents,
    secretEvents,
    messages,
    publicFrames: JSON.stringify([publicEvents, messages.public]),
    secretFrames: JSON.stringify([secretEvents, messages.secret]),
  };
}

function approvalPart(event: ReceivedEvent): Record<string, unknown> | undefined {
  return (event.data.parts as Record<string, unknown>[] | undefined)?.find((part) => part.kind === "approval");
}

async function caughtUp(replay: EventCollector, live: EventCollector): Promise<void> {
  const last = Math.max(0, ...live.events.map((event) => event.seq));
  if (last > 0) await replay.waitFor((event) => event.seq >= last, 10_000);
}

/** The fields a public client may see of a minimal tool's event or card part. */
const allowedEventKeys = new Set(["toolCallId", "toolName", "progress", "agentEntityId", "runId"]);

function expectNothingBut(events: ReceivedEvent[]) {
  for (const event of events.filter((entry) => entry.type.startsWith("tool."))) {
    for (const key of Object.keys(event.data)) expect(allowedEventKeys.has(key), `${event.type} shows ${key} to a public client`).toBe(true);
  }
  for (const event of events.filter((entry) => entry.type === "space.message" || entry.type === "space.message.updated")) {
    for (const part of (event.data.parts as Record<string, unknown>[] | undefined) ?? []) {
      if (part.type !== "tool_call") continue;
      expect(part).not.toHaveProperty("args");
      expect(part).not.toHaveProperty("result");
    }
  }
}

describe.each(Object.entries(subjects))("%s with display minimal", (_name, subject) => {
  it.each<Scenario>(["card", "failure", "approval card", "escalation"])(
    "%s: public clients see id, name and status only, live and on replay; the secret key sees all",
    async (kind) => {
      const seen = await scenario(subject, kind);
      expect(seen.secretFrames).toContain(seen.canary);
      expect(seen.publicFrames).not.toContain(seen.canary);
      expectNothingBut(seen.publicEvents);
      const cards = seen.publicEvents.filter(
        (event) => event.type === "space.message" && (event.data.parts as { type: string }[] | undefined)?.some((part) => part.type === "tool_call"),
      );
      expect(cards.length).toBeGreaterThan(0);
      if (kind === "escalation") expect(seen.publicEvents.some((event) => JSON.stringify(event.data).includes("escalatedTo"))).toBe(true);
      if (kind === "failure") expect(seen.run.toolCalls.find((entry) => entry.toolName === subject.fail(seen.canary).name)?.status).toBe("failed");
    },
  );
});

describe("a prebuilt tool the config shows in full", () => {
  it("shows its arguments to public clients when display.mode says full", async () => {
    const seen = await scenario(subjects["a prebuilt tool (minimal by default)"], "card", true);
    expect(seen.publicFrames).toContain(seen.canary);
  });
});

describe("a run that gives up while a minimal tool's call is open", () => {
  it("closes the card as minimal: public clients get the call's id and name, not why it failed", async () => {
    const person = await createHuman("Pat");
    const spaceId = await createSpace([person]);
    const hangId = `hang-${crypto.randomUUID()}`;
    const agent = await createAgent({
      agent: { name: "Hanger" },
      model: { provider: "scripted", turns: [{ toolCalls: [enter(spaceId), { name: "wait", args: { note: "canary-hang" } }] }, { toolCalls: [skip] }] },
      tools: [
        {
          name: "wait",
          description: "Hangs",
          executionType: "gateway",
          visible: true,
          display: { mode: "minimal" },
          timeout: 60_000,
          inputSchema: { type: "object" },
          execution: { url: `http://api.test/hang-always/${hangId}`, method: "POST" },
        },
      ],
    });
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    const publicHeaders = await memberHeaders(person);
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { go: true } } });
    // Each attempt dies while its request hangs upstream (its card is posted by then); after the last one
    // the run gives up with the call open.
    for (let attempt = 1; attempt <= maxRunAttempts; attempt += 1) {
      await waitUntil(async () => ((await (await fetch(`http://recorded.test/${hangId}`)).json()) as unknown[]).length >= attempt, 10_000, `attempt ${attempt}'s request`);
      await abortAllDurableObjects();
      await runDurableObjectAlarm(agentObject(agent.id));
    }
    await runDurableObjectAlarm(agentObject(agent.id));
    const [run] = await settledRuns(agent.id, 20_000);
    expect(run.status).toBe("failed");
    const watched = await openSse(`/api/spaces/${spaceId}/stream?afterSeq=0`, secretHeaders);
    const failure = await watched.collector.waitFor((event) => event.type === "tool.error", 10_000);
    expect(failure.data).toMatchObject({ error: "The run failed before this call finished" });
    const replay = await openSse(`/api/spaces/${spaceId}/stream?afterSeq=0`, publicHeaders);
    const publicFailure = await replay.collector.waitFor((event) => event.type === "tool.error" && event.seq === failure.seq, 10_000);
    expect(publicFailure.data).toEqual({ toolCallId: failure.data.toolCallId, toolName: "wait" });
    expect(JSON.stringify(replay.collector.events)).not.toContain("canary-hang");
    watched.close();
    replay.close();
  });
});
