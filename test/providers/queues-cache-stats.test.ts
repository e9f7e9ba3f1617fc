import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { waitForRuns } from "../support/agents";
import { fakeJson, providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });
const gateway = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: name,
  executionType: "gateway",
  visible: false,
  inputSchema: { type: "object" },
  execution: { url },
  ...extra,
});
type Span = { start: number; end: number };

describe("queues", () => {
  it("a queue with concurrency 1 runs a step's parallel calls one after another, on top of maxConcurrentTools", async () => {
    const id = crypto.randomUUID();
    const tools = [gateway("slowA", `http://api.test/slow/${id}/150`, { queue: "api" }), gateway("slowB", `http://api.test/slow/${id}/150`, { queue: "api" })];
    const world = await providerWorld({ tools, queues: { api: { concurrency: 1 } }, limits: { maxConcurrentTools: 3 } }, () => [
      { toolCalls: [call("slowA"), call("slowB"), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const spans = (await fakeJson<Span[]>(`http://api.test/spans/${id}`)).sort((a, b) => a.start - b.start);
    expect(spans).toHaveLength(2);
    expect(spans[1].start).toBeGreaterThanOrEqual(spans[0].end);
    const queued = world.agentStream.ofType("tool.queued");
    expect(queued).toHaveLength(1);
    expect(queued[0].data).toMatchObject({ queue: "api", ahead: 1 });
    const waited = run.toolCalls.find((entry) => entry.toolCallId === queued[0].data.toolCallId);
    expect(waited?.queuedMs).toBeGreaterThan(0);
    world.close();
  });

  it("without the queue the same calls overlap; minIntervalMs spaces the starts of a rate-limited API", async () => {
    const free = crypto.randomUUID();
    const spaced = crypto.randomUUID();
    const tools = [
      gateway("freeA", `http://api.test/slow/${free}/150`),
      gateway("freeB", `http://api.test/slow/${free}/150`),
      gateway("spacedA", `http://api.test/slow/${spaced}/10`, { queue: "rate" }),
      gateway("spacedB", `http://api.test/slow/${spaced}/10`, { queue: "rate" }),
    ];
    const world = await providerWorld({ tools, queues: { rate: { concurrency: 2, minIntervalMs: 500 } }, limits: { maxConcurrentTools: 4 } }, () => [
      { toolCalls: [call("freeA"), call("freeB"), call("spacedA"), call("spacedB"), skip] },
    ]);
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    const freeSpans = (await fakeJson<Span[]>(`http://api.test/spans/${free}`)).sort((a, b) => a.start - b.start);
    expect(freeSpans[1].start).toBeLessThan(freeSpans[0].end);
    const spacedSpans = (await fakeJson<Span[]>(`http://api.test/spans/${spaced}`)).sort((a, b) => a.start - b.start);
    // The fake server runs in the test runner's Node process, whose event loop a full run keeps busy: it may take the
    // first request up to ~100 ms late (seen once, in CI) and so see the starts closer than they were sent. Without
    // the interval the gap is about 0.
    expect(spacedSpans[1].start - spacedSpans[0].start).toBeGreaterThanOrEqual(350);
    world.close();
  });

  it("a queue that is not defined is refused when the agent is saved", async () => {
    const refused = await secret<{ error: { details: { path: string; message: string }[] } }>("/api/agents", {
      body: { config: { agent: { name: "x" }, model: { provider: "scripted", turns: [] }, tools: [gateway("a", "http://api.test/echo", { queue: "nope" })] } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ path: "config.tools.0.queue", message: 'No queue "nope" in queues (none defined)' }]);
  });
});

describe("the response cache", () => {
  it("the same tool with the same arguments (in any key order) within ttlMs is answered from the cache; other arguments are not", async () => {
    const id = crypto.randomUUID();
    const lookup = {
      ...gateway("lookup", `http://api.test/count/${id}?a={{a}}&b={{b}}`, { cache: { ttlMs: 60_000 } }),
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    };
    const world = await providerWorld({ tools: [lookup] }, () => [
      { toolCalls: [call("lookup", { a: 1, b: 2 })] },
      { toolCalls: [call("lookup", { b: 2, a: 1 }), call("lookup", { a: 1, b: 3 }), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const calls = run.toolCalls.filter((entry) => entry.toolName === "lookup");
    expect(calls.map((entry) => [(entry.result as { n: number }).n, entry.cacheHit])).toEqual([
      [1, false],
      [1, true],
      [2, false],
    ]);
    world.close();
  });

  it("a cache on a tool with side effects is refused unless allowSideEffects says so; never on tools answered later", async () => {
    const save = (tool: Record<string, unknown>) =>
      secret<{ error: { details: { path: string; message: string }[] } }>("/api/agents", {
        body: { config: { agent: { name: "x" }, model: { provider: "scripted", turns: [] }, tools: [tool] } },
      });
    const post = gateway("charge", "http://api.test/echo", { execution: { url: "http://api.test/echo", method: "POST" }, cache: { ttlMs: 1_000 } });
    const refused = await save(post);
    expect(refused.body.error.details).toEqual([{ path: "config.tools.0.cache", message: "A POST request may have side effects: set cache.allowSideEffects to cache it anyway" }]);
    expect((await save({ ...post, cache: { ttlMs: 1_000, allowSideEffects: true } })).status).toBe(201);
    const external = await save({ name: "ask", description: "ask", executionType: "external", inputSchema: { type: "object" }, cache: { ttlMs: 1_000, allowSideEffects: true } });
    expect(external.body.error.details[0].path).toBe("config.tools.0.cache");
  });
});

describe("call statistics", () => {
  it("per tool: calls, failures by kind, latency median and p95, bytes in and out, cache hits; on the run record and from the route", async () => {
    const tools = [
      { ...gateway("fetch", "http://api.test/echo/{{q}}", { cache: { ttlMs: 60_000 } }), inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
      gateway("broken", "http://api.test/status/500"),
      gateway("stuck", "http://api.test/hang", { timeout: 100 }),
      { ...gateway("shown", "http://api.test/echo"), visible: true },
    ];
    const world = await providerWorld({ tools }, () => [
      { toolCalls: [call("fetch", { q: "a" }), call("fetch", { q: 1 }), call("broken"), call("stuck"), call("shown")] },
      { toolCalls: [call("fetch", { q: "a" }), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const byName = Object.fromEntries((run.toolStats ?? []).map((entry) => [entry.toolName, entry]));
    expect(byName.fetch).toMatchObject({
      provider: "tools",
      calls: 3,
      failed: 1,
      failures: { validation: 1 },
      cacheHits: 1,
      bytesIn: expect.any(Number),
      bytesOut: expect.any(Number),
    });
    expect(byName.broken).toMatchObject({ calls: 1, failed: 1, failures: { upstream: 1 } });
    expect(byName.stuck).toMatchObject({ calls: 1, failed: 1, failures: { timeout: 1 } });
    expect(byName.shown).toMatchObject({ calls: 1, failed: 1, failures: { permission: 1 } });
    expect(byName.skip).toMatchObject({ provider: "builtin", calls: 1, failed: 0 });
    expect(byName.stuck.latencyMs.median).toBeGreaterThanOrEqual(100);

    const { status, body } = await secret<{
      tools: { toolName: string; calls: number; latencyMs: { median: number; p95: number }; failures: Record<string, number>; lastCallAt: string }[];
    }>(`/api/agents/${world.agent.id}/tool-stats`);
    expect(status).toBe(200);
    expect(body.tools[0]).toMatchObject({
      toolName: "fetch",
      calls: 3,
      failures: { validation: 1, timeout: 0, upstream: 0, permission: 0, internal: 0 },
      lastCallAt: expect.any(String),
    });
    expect(body.tools.find((entry) => entry.toolName === "stuck")?.latencyMs.p95).toBeGreaterThanOrEqual(100);
    expect((await secret(`/api/agents/agt_nobody/tool-stats`)).status).toBe(404);
    world.close();
  });
});

describe("execution types of the earlier design", () => {
  it("basic, request, waiting, compute and ai-agent are accepted and stored under the types they map to", async () => {
    const { id: helperId } = (await secret<{ id: string }>("/api/agents", { body: { config: { agent: { name: "helper" }, model: { provider: "scripted", turns: [] } } } })).body;
    const schema = { type: "object" };
    const tools = [
      { name: "showChart", description: "chart", inputSchema: schema, executionType: "basic", execution: { mode: "pass-through" }, displayTool: true },
      { name: "approve", description: "form", inputSchema: schema, executionType: "basic", execution: null, isAsync: true, visible: false },
      { name: "weather", description: "http", inputSchema: schema, executionType: "request", execution: { url: "http://api.test/echo", method: "GET" }, visible: false },
      { name: "pause", description: "wait", inputSchema: schema, executionType: "waiting", isAsync: true, visible: false },
      { name: "goals", executionType: "compute", execution: { action: "getGoals" } },
      { name: "helper", description: "sub-agent", executionType: "ai-agent", execution: { agentId: helperId } },
    ];
    const created = await secret<{ id: string }>("/api/agents", {
      body: { config: { agent: { name: "old" }, model: { provider: "scripted", turns: [{ toolCalls: [call("showChart", { title: "x" }), call("weather"), skip] }] }, tools } },
    });
    expect(created.status).toBe(201);
    const read = await secret<{ config: { tools: { name: string; executionType: string; execution?: unknown }[] } }>(`/api/agents/${created.body.id}`);
    expect(read.body.config.tools.map((tool) => [tool.name, tool.executionType])).toEqual([
      ["showChart", "internal"],
      ["approve", "external"],
      ["weather", "gateway"],
      ["pause", "external"],
      ["goals", "prebuilt"],
      ["helper", "agent"],
    ]);
    expect(read.body.config.tools[0].execution).toBeUndefined();
    await secret(`/api/agents/${created.body.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(created.body.id, 1);
    expect(run.toolCalls.map((entry) => [entry.toolName, entry.status])).toEqual([
      ["showChart", "completed"],
      ["weather", "completed"],
      ["skip", "completed"],
    ]);
    expect(run.toolCalls[0].result).toEqual({ success: true, args: { title: "x" } });
  });

  it("image-generator keeps its name from the earlier design and needs an image model", async () => {
    const refused = await secret<{ error: { details: { path: string; message: string }[] } }>("/api/agents", {
      body: {
        config: {
          agent: { name: "x" },
          model: { provider: "scripted", turns: [] },
          tools: [{ name: "draw", description: "draw", executionType: "image-generator", inputSchema: { type: "object" } }],
        },
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].path).toBe("config.tools.0.execution");
    const created = await secret<{ id: string }>("/api/agents", {
      body: {
        config: {
          agent: { name: "x" },
          model: { provider: "scripted", turns: [] },
          tools: [{ name: "draw", executionType: "image-generator", execution: { provider: "workers-ai" } }],
        },
      },
    });
    expect(created.status).toBe(201);
    const read = await secret<{ config: { tools: { executionType: string }[] } }>(`/api/agents/${created.body.id}`);
    expect(read.body.config.tools[0].executionType).toBe("image-generator");
  });
});
