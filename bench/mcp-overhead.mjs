/**
 * MCP overhead, against a loopback server in this process that speaks both
 * MCP (Streamable HTTP, sessions: the official SDK's Node transport) and plain
 * JSON over HTTP.
 *
 * Call. One `scripted` agent with the MCP server `calc` (a tool `add`) and a
 * gateway tool `add_http` (GET on the same server, same answer). Every cycle
 * makes one warm MCP call and one gateway call, in two steps whose order
 * alternates, then `skip`. Per call, the run record's `latencyMs` (measured
 * in the agent object, from the model's complete call to its outcome): the
 * medians, p95s and the difference are what MCP costs over plain HTTP once
 * the connection is kept.
 *
 * Cycle. Two agents whose every cycle is just `[skip]`: one with two MCP
 * servers (10 tools each, not called), one with none. Each cycle is timed
 * from just before the inbox POST to `agent.cycle.finished` on the agent's
 * stream (SSE); the agents alternate in batches. The first cycle of the MCP
 * agent (connect, initialize, list) is shown apart. The server counts
 * initializes and tool lists: with connections kept across cycles, one each
 * per server for the whole run.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { median, ms, openEventSource, percentile, printTable, ratio } from "./support.mjs";

export const name = "mcp-overhead";
export const description = "a warm MCP tool call vs a gateway call to the same loopback server; cycle cost with two MCP servers vs none";

const STEP_TIMEOUT_MS = 15_000;
const BATCH_SIZE = 10;

export async function run(context) {
  const loopback = await startLoopbackServer();
  const gateway = await context.gateway();
  try {
    await callOverhead(context, gateway, loopback);
    await cycleCost(context, gateway, loopback);
  } finally {
    await loopback.close();
  }
}

// ───────────────────────────────────────────────────────── the loopback server

function mcpServerFor(label) {
  const server = new McpServer({ name: `bench-${label}`, version: "1.0.0" }, { instructions: `Bench server ${label}.` });
  server.registerTool("add", { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: "text", text: JSON.stringify({ sum: a + b }) }],
  }));
  for (let index = 1; index < 10; index += 1) {
    server.registerTool(`tool_${index}`, { description: `Does thing ${index}`, inputSchema: { x: z.string().optional() } }, async () => ({
      content: [{ type: "text", text: "ok" }],
    }));
  }
  return server;
}

async function startLoopbackServer() {
  const sessions = new Map();
  const counts = new Map();
  const count = (label, what) => {
    const entry = counts.get(label) ?? { initializes: 0, lists: 0, calls: 0, deletes: 0 };
    entry[what] += 1;
    counts.set(label, entry);
  };
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url, "http://127.0.0.1");
      if (url.pathname === "/add") {
        const sum = Number(url.searchParams.get("a")) + Number(url.searchParams.get("b"));
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify({ sum }));
        return;
      }
      const [, kind, label] = url.pathname.split("/");
      if (kind !== "mcp" || !label) {
        response.statusCode = 404;
        response.end();
        return;
      }
      if (request.method === "GET") {
        response.statusCode = 405;
        response.setHeader("allow", "POST, DELETE");
        response.end();
        return;
      }
      let body;
      if (request.method === "POST") {
        const chunks = [];
        for await (const chunk of request) chunks.push(chunk);
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const message of Array.isArray(body) ? body : [body]) {
          if (message.method === "initialize") count(label, "initializes");
          if (message.method === "tools/list") count(label, "lists");
          if (message.method === "tools/call") count(label, "calls");
        }
      }
      if (request.method === "DELETE") count(label, "deletes");
      const sessionId = request.headers["mcp-session-id"];
      if (sessionId) {
        const transport = sessions.get(sessionId);
        if (!transport) {
          response.statusCode = 404;
          response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
          return;
        }
        await transport.handleRequest(request, response, body);
        return;
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => sessions.set(id, transport),
        onsessionclosed: (id) => sessions.delete(id),
      });
      await mcpServerFor(label).connect(transport);
      await transport.handleRequest(request, response, body);
    } catch (error) {
      if (!response.headersSent) response.statusCode = 500;
      response.end(String(error?.message ?? error));
    }
  });
  await new Promise((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    counts: (label) => counts.get(label) ?? { initializes: 0, lists: 0, calls: 0, deletes: 0 },
    close: () =>
      new Promise((resolveClose) => {
        server.closeAllConnections?.();
        server.close(() => resolveClose());
      }),
  };
}

// ───────────────────────────────────────────────────────── helpers

async function agentStream(gateway, agentId) {
  return openEventSource(`${gateway.baseUrl}/api/agents/${agentId}/stream`, { "x-secret-key": gateway.secretKey });
}

/** One cycle: inbox POST → `agent.cycle.finished`; resolves the time it took (ms). */
async function timedCycle(gateway, stream, agentId) {
  const marker = randomBytes(6).toString("hex");
  // Both waits are registered before the POST: a fast cycle's frames can arrive in one chunk.
  let runId;
  const started = stream.expect((frame) => {
    const match = frame.type === "agent.cycle.started" && frame.data?.trigger?.some((event) => event.data?.marker === marker);
    if (match) runId = frame.data.runId;
    return match;
  }, STEP_TIMEOUT_MS);
  const finishing = stream.expect((frame) => frame.type === "agent.cycle.finished" && runId !== undefined && frame.data?.runId === runId, STEP_TIMEOUT_MS);
  const begin = performance.now();
  await gateway.api("POST", `/api/agents/${agentId}/inbox`, { type: "external", data: { marker } });
  if (!(await started)) throw new Error(`no agent.cycle.started for ${agentId} within ${STEP_TIMEOUT_MS}ms`);
  const finished = await finishing;
  if (!finished) throw new Error(`no agent.cycle.finished for ${agentId} within ${STEP_TIMEOUT_MS}ms`);
  if (finished.frame.data.status !== "completed") throw new Error(`cycle ${runId} ${finished.frame.data.status}: ${finished.frame.data.error}`);
  return { ms: finished.at - begin, runId };
}

// ───────────────────────────────────────────────────────── call overhead

async function callOverhead(context, gateway, loopback) {
  const cycles = Math.min(context.options.mcpCycles, 190);
  const { warmup } = context.options;
  const tag = randomBytes(4).toString("hex");
  const turns = [];
  for (let index = 0; index < warmup + cycles; index += 1) {
    const mcpCall = { toolCalls: [{ name: "calc__add", args: { a: index, b: 1 } }] };
    const httpCall = { toolCalls: [{ name: "add_http", args: { a: index, b: 1 } }] };
    turns.push(...(index % 2 === 0 ? [mcpCall, httpCall] : [httpCall, mcpCall]), { toolCalls: [{ name: "skip", args: {} }] });
  }
  const schema = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] };
  const agent = await gateway.api("POST", "/api/agents", {
    config: {
      agent: { name: `bench mcp call ${tag}` },
      model: { provider: "scripted", turns },
      tools: [
        {
          name: "add_http",
          description: "Add two numbers",
          executionType: "gateway",
          visible: false,
          inputSchema: schema,
          execution: { url: `${loopback.baseUrl}/add?a={{a}}&b={{b}}` },
        },
      ],
      mcp: { servers: [{ name: "calc", url: `${loopback.baseUrl}/mcp/calc-${tag}`, allowedTools: ["add"] }] },
      limits: { maxCyclesPerMinute: 10_000 },
    },
  });
  const stream = await agentStream(gateway, agent.id);
  try {
    context.log(`mcp-overhead: ${warmup} warm-up + ${cycles} cycles, each one MCP call and one gateway call`);
    for (let index = 0; index < warmup + cycles; index += 1) await timedCycle(gateway, stream, agent.id);
  } finally {
    await stream.close();
  }
  const runs = (await gateway.api("GET", `/api/agents/${agent.id}/runs?limit=200`)).runs.reverse().slice(warmup);
  const latencies = (toolName) => runs.flatMap((run) => run.toolCalls.filter((call) => call.toolName === toolName && call.status === "completed").map((call) => call.latencyMs));
  const mcp = latencies("calc__add");
  const http = latencies("add_http");
  if (mcp.length !== cycles || http.length !== cycles) throw new Error(`expected ${cycles} completed calls of each, got MCP ${mcp.length}, gateway ${http.length}`);
  const seen = loopback.counts(`calc-${tag}`);
  printTable(
    ["warm tool call (run record latencyMs)", "median ms", "p95 ms"],
    [
      ["MCP calc__add (Streamable HTTP, kept session)", ms(median(mcp)), ms(percentile(mcp, 0.95))],
      ["gateway add_http (GET, same server)", ms(median(http)), ms(percentile(http, 0.95))],
    ],
  );
  console.log(
    `MCP call overhead: ${ms(median(mcp) - median(http))} ms median (ratio ${ratio(median(mcp), median(http))}); the server saw ${seen.initializes} initialize, ${seen.lists} tools/list and ${seen.calls} tools/call for ${warmup + cycles} cycles`,
  );
}

// ───────────────────────────────────────────────────────── cycle cost

async function cycleCost(context, gateway, loopback) {
  const cycles = context.options.mcpCycles;
  const { warmup } = context.options;
  const tag = randomBytes(4).toString("hex");
  const skipTurns = Array.from({ length: warmup + cycles + 2 }, () => ({ toolCalls: [{ name: "skip", args: {} }] }));
  const config = (label, mcp) => ({
    agent: { name: `bench ${label} ${tag}` },
    model: { provider: "scripted", turns: skipTurns },
    ...(mcp && { mcp }),
    limits: { maxCyclesPerMinute: 10_000 },
  });
  const none = await gateway.api("POST", "/api/agents", { config: config("no mcp") });
  const two = await gateway.api("POST", "/api/agents", {
    config: config("two mcp", {
      servers: [
        { name: "one", url: `${loopback.baseUrl}/mcp/one-${tag}` },
        { name: "two", url: `${loopback.baseUrl}/mcp/two-${tag}` },
      ],
    }),
  });
  const streams = { none: await agentStream(gateway, none.id), two: await agentStream(gateway, two.id) };
  const times = { none: [], two: [] };
  let cold;
  try {
    cold = (await timedCycle(gateway, streams.two, two.id)).ms;
    for (let index = 0; index < warmup; index += 1) {
      await timedCycle(gateway, streams.none, none.id);
      await timedCycle(gateway, streams.two, two.id);
    }
    context.log(`mcp-overhead: ${cycles} cycles each of an agent with two MCP servers and one with none, in batches of ${BATCH_SIZE}`);
    for (let done = 0; done < cycles; done += BATCH_SIZE) {
      const size = Math.min(BATCH_SIZE, cycles - done);
      for (const which of done % (2 * BATCH_SIZE) === 0 ? ["none", "two"] : ["two", "none"]) {
        for (let index = 0; index < size; index += 1) times[which].push((await timedCycle(gateway, streams[which], which === "none" ? none.id : two.id)).ms);
      }
    }
  } finally {
    await Promise.all([streams.none.close(), streams.two.close()]);
  }
  const one = loopback.counts(`one-${tag}`);
  const second = loopback.counts(`two-${tag}`);
  printTable(
    ["cycle [skip]: inbox POST → agent.cycle.finished", "median ms", "p95 ms"],
    [
      ["agent without MCP servers", ms(median(times.none)), ms(percentile(times.none, 0.95))],
      ["agent with two MCP servers (kept connections)", ms(median(times.two)), ms(percentile(times.two, 0.95))],
      ["  its first cycle (connect, initialize, list)", ms(cold), ""],
    ],
  );
  console.log(
    `two MCP servers add ${ms(median(times.two) - median(times.none))} ms to a cycle's median (ratio ${ratio(median(times.two), median(times.none))}); ` +
      `initialize/tools/list per server over ${warmup + cycles + 1} cycles: ${one.initializes}/${one.lists} and ${second.initializes}/${second.lists}`,
  );
}
