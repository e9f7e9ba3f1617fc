/**
 * Peers: Cloudflare's Agents SDK (`agents`, `@cloudflare/ai-chat`) as a
 * second floor, measured in the same run as the gateway (bench/peer-worker,
 * under its own `wrangler dev`).
 *
 * Fan-out. For each N: N WebSocket clients on a space's stream (the gateway),
 * N on a BroadcastAgent room (`Agent.broadcast`), N on a floor-worker room
 * (a bare `socket.send` loop). Messages one at a time, the three alternating
 * in batches; a message's time runs from just before its POST until the last
 * of the N clients has it. The peer and the floor get frames padded to the
 * gateway's event frame size.
 *
 * Client-tool round trip. Gateway: a `scripted` agent with a waiting
 * `external` tool `fetchData` (turns `[enter_space, fetchData]`, `[skip]`);
 * each round pushes an `external` inbox event, the client sees `tool.pending`
 * on the agent's stream (SSE), POSTs the result to
 * `/api/runs/:runId/tool-results`, and the cycle goes on to
 * `agent.cycle.finished`. Peer: an AIChatAgent whose mock model calls the
 * client-side tool `getData` (no execute); each round (after an unmeasured
 * `cf_agent_chat_clear`) sends a `cf_agent_use_chat_request`, the client sees
 * `tool-input-available` in the streamed response, sends
 * `cf_agent_tool_result` with `autoContinue` (what `useAgentChat`'s
 * `addToolOutput` sends), and the SDK runs the model again until the
 * continuation's `done` frame. Phases, each from just before the client acts:
 *   request → tool call at the client
 *   result  → the gateway's `tool.done` on the space stream; the peer's
 *             `cf_agent_stream_resuming` (the continuation's stream offered,
 *             which the client acknowledges as the SDK's client does)
 *   result  → finished (gateway: `agent.cycle.finished`; peer: `done`)
 * Gateway and peer alternate in batches.
 */
import { randomBytes } from "node:crypto";
import { openClients } from "./space-fanout.mjs";
import { median, ms, openEventSocket, openEventSource, percentile, printTable, ratio } from "./support.mjs";

export const name = "peers";
export const description = "the Agents SDK as a second floor: Agent.broadcast vs a space's fan-out, AIChatAgent's client-tool round trip vs an external tool's";

const STEP_TIMEOUT_MS = 15_000;
const BATCH_SIZE = 20;
const MAX_TIMEOUTS = 5;
/** The Agents SDK's auto-continuation window (AutoContinuationController.COALESCE_MS in agents 0.32). */
const COALESCE_MS = 50;

export async function run(context) {
  const [gateway, peer, floor] = await Promise.all([context.gateway(), context.peer(), context.floor()]);
  const failures = [];
  try {
    await fanOut(context, { gateway, peer, floor });
  } catch (error) {
    failures.push(`fan-out: ${error?.message ?? error}`);
    console.error(`\nfan-out failed: ${error?.stack ?? error}`);
  }
  try {
    await roundTrips(context, { gateway, peer });
  } catch (error) {
    failures.push(`round trip: ${error?.message ?? error}`);
    console.error(`\nround trip failed: ${error?.stack ?? error}`);
  }
  if (failures.length) throw new Error(failures.join("\n"));
}

// ───────────────────────────────────────────────────────────── fan-out

async function fanOut(context, { gateway, peer, floor }) {
  const { peerSizes, peerMessages, warmup } = context.options;
  const tag = randomBytes(4).toString("hex");
  const listener = await gateway.api("POST", "/api/entities", { type: "human", name: `peers listener ${tag}` });
  const sender = await gateway.api("POST", "/api/entities", { type: "human", name: `peers sender ${tag}` });
  const token = gateway.signToken(listener.id, 3600);
  const rows = [];
  for (const size of peerSizes) {
    if (context.timeLeft() < 60_000) {
      context.log(`peers: fan-out N=${size} skipped, the time budget is nearly spent`);
      break;
    }
    const space = await gateway.api("POST", "/api/spaces", { name: `peers fan-out ${size} ${tag}`, memberIds: [listener.id, sender.id] });
    const query = new URLSearchParams({ publicKey: gateway.publicKey, token });
    const room = `fanout-${size}-${tag}`;
    let frameLength = 400;
    const padded = (type, marker) => {
      const bare = JSON.stringify({ type, text: marker, pad: "" });
      return JSON.stringify({ type, text: marker, pad: "x".repeat(Math.max(0, frameLength - bare.length)) });
    };
    const sides = {
      gateway: {
        clients: await openClients(
          context,
          "gateway",
          `${gateway.wsBaseUrl}/api/spaces/${space.id}/stream?${query}`,
          size,
          (frame) => (frame.type === "space.message" ? frame.data?.text : undefined),
          { seqs: false },
        ),
        post: (marker) => gateway.api("POST", `/api/spaces/${space.id}/messages`, { text: marker, entityId: sender.id }),
      },
      agents: {
        clients: await openClients(context, "agents", `${peer.wsBaseUrl}/agents/broadcast-agent/${room}`, size, (frame) => (frame.type === "peer" ? frame.text : undefined), {
          seqs: false,
        }),
        post: (marker) => postText(`${peer.baseUrl}/agents/broadcast-agent/${room}`, padded("peer", marker)),
      },
      floor: {
        clients: await openClients(context, "floor", `${floor.wsBaseUrl}/rooms/${room}`, size, (frame) => (frame.type === "floor" ? frame.text : undefined), { seqs: false }),
        post: (marker) => postText(`${floor.baseUrl}/rooms/${room}/broadcast`, padded("floor", marker)),
      },
    };
    const results = Object.fromEntries(Object.keys(sides).map((side) => [side, { latencies: [], timeouts: 0, sent: 0 }]));
    try {
      context.log(`peers: fan-out N=${size}: ${warmup} warm-up + ${peerMessages} messages each, gateway / Agents SDK / floor alternating in batches of ${BATCH_SIZE}`);
      const plan = Object.keys(sides).map((side) => [side, warmup, false]);
      for (let sent = 0; sent < peerMessages; sent += BATCH_SIZE) {
        for (const side of Object.keys(sides)) plan.push([side, Math.min(BATCH_SIZE, peerMessages - sent), true]);
      }
      for (const [side, count, measured] of plan) {
        if (context.timeLeft() < 45_000) break;
        const result = results[side];
        for (let index = 0; index < count && result.timeouts < MAX_TIMEOUTS; index += 1) {
          const latency = await deliver(sides[side], `${side}-${size}-${tag}-${result.sent}`);
          result.sent += 1;
          if (latency === undefined) result.timeouts += 1;
          else if (measured) result.latencies.push(latency);
        }
        if (side === "gateway" && sides.gateway.clients.frameLength) frameLength = sides.gateway.clients.frameLength;
      }
    } finally {
      await Promise.all(Object.values(sides).map((side) => side.clients.close()));
    }
    rows.push({ size, results, disconnected: Object.fromEntries(Object.entries(sides).map(([side, { clients }]) => [side, clients.disconnected])) });
  }
  console.log("\nFan-out: POST → the last of N WebSocket clients has the message");
  printTable(
    ["N", "gateway median ms", "Agents SDK broadcast median ms", "floor median ms", "gateway / Agents SDK", "Agents SDK / floor", "timeouts g/a/f"],
    rows.map(({ size, results }) => {
      const medians = Object.fromEntries(Object.entries(results).map(([side, result]) => [side, median(result.latencies)]));
      return [
        size,
        ms(medians.gateway),
        ms(medians.agents),
        ms(medians.floor),
        ratio(medians.gateway, medians.agents),
        ratio(medians.agents, medians.floor),
        `${results.gateway.timeouts}/${results.agents.timeouts}/${results.floor.timeouts}`,
      ];
    }),
  );
  // Targets: the space's fan-out within 10% of the Agents SDK's broadcast at N = 500, within 20% at N = 10.
  for (const { size, results } of rows) {
    const limit = size >= 500 ? 1.1 : size <= 10 ? 1.2 : undefined;
    const gateway = median(results.gateway.latencies);
    const agents = median(results.agents.latencies);
    if (limit === undefined || gateway === undefined || !agents) continue;
    context.target({
      measure: `fan-out, N = ${size}, gateway / Agents SDK broadcast`,
      now: `${gateway.toFixed(1)} / ${agents.toFixed(1)} ms = ${(gateway / agents).toFixed(2)}x`,
      target: `≤ ${limit.toFixed(2)}x`,
      met: gateway / agents <= limit,
      why: "the gateway writes the message and its event to the space's SQLite and checks each socket's audience and token before it sends (the table's other columns: the SDK against the bare floor)",
    });
  }
  const dropped = rows.filter((row) => Object.values(row.disconnected).some(Boolean));
  for (const row of dropped) console.log(`N=${row.size}: clients the server disconnected: ${JSON.stringify(row.disconnected)}`);
  const stuck = rows.filter((row) => Object.values(row.results).some((result) => result.timeouts > 0));
  if (stuck.length || dropped.length)
    throw new Error(`messages that did not reach every client, or dropped clients, at N=${[...new Set([...stuck, ...dropped].map((row) => row.size))].join(", ")}`);
}

async function postText(url, body) {
  const response = await fetch(url, { method: "POST", body, signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`POST ${url} → ${response.status}`);
}

/** Posts one message; resolves the ms until every client had it, or undefined on timeout. */
async function deliver(side, marker) {
  const { clients } = side;
  let done;
  const delivered = new Promise((resolveDelivered) => (done = resolveDelivered));
  clients.waiting.set(marker, { remaining: clients.size, received: new Uint8Array(clients.size), done });
  let timer;
  const timedOut = new Promise((resolveTimeout) => (timer = setTimeout(() => resolveTimeout(undefined), STEP_TIMEOUT_MS)));
  const start = performance.now();
  try {
    const [finishedAt] = await Promise.all([Promise.race([delivered, timedOut]), Promise.race([side.post(marker), timedOut])]);
    return finishedAt === undefined ? undefined : finishedAt - start;
  } finally {
    clearTimeout(timer);
    clients.waiting.delete(marker);
  }
}

// ───────────────────────────────────────────────────────────── round trip

async function roundTrips(context, { gateway, peer }) {
  const { peerRoundtrips, warmup } = context.options;
  const gatewaySide = await prepareGatewayRounds(context, gateway, warmup + peerRoundtrips + 5);
  const peerSide = await preparePeerRounds(peer);
  const samples = { gateway: phases(), agents: phases() };
  const timeouts = { gateway: 0, agents: 0 };
  try {
    context.log(`peers: ${warmup} warm-up + ${peerRoundtrips} client-tool round trips each, gateway and Agents SDK alternating in batches of ${BATCH_SIZE}`);
    for (let index = 0; index < warmup; index += 1) {
      await gatewaySide.round();
      await peerSide.round();
    }
    for (let done = 0; done < peerRoundtrips; done += BATCH_SIZE) {
      if (context.timeLeft() < 45_000) {
        context.log("peers: stopping the round trips early, the time budget is nearly spent");
        break;
      }
      const count = Math.min(BATCH_SIZE, peerRoundtrips - done);
      for (const [side, runner] of [
        ["gateway", gatewaySide],
        ["agents", peerSide],
      ]) {
        for (let index = 0; index < count && timeouts[side] < MAX_TIMEOUTS; index += 1) {
          const sample = await runner.round();
          if (!sample) timeouts[side] += 1;
          else for (const phase of Object.keys(samples[side])) samples[side][phase].push(sample[phase]);
        }
      }
    }
  } finally {
    await gatewaySide.close();
    await peerSide.close();
  }
  const row = (label, values) => [label, values.length, ms(median(values)), ms(percentile(values, 0.95))];
  console.log("\nClient-tool round trip (scripted model on both sides):");
  printTable(
    ["", "n", "median ms", "p95 ms"],
    [
      row("gateway: inbox POST → tool.pending at the client (SSE)", samples.gateway.toCall),
      row("Agents SDK: chat request → tool-input-available at the client", samples.agents.toCall),
      row("gateway: POST result → tool.done on the space socket", samples.gateway.toOutput),
      row("Agents SDK: tool result → continuation offered (stream_resuming)", samples.agents.toOutput),
      row("gateway: POST result → agent.cycle.finished", samples.gateway.toFinish),
      row("Agents SDK: tool result → continuation done", samples.agents.toFinish),
    ],
  );
  const finish = { gateway: median(samples.gateway.toFinish), agents: median(samples.agents.toFinish) };
  const toCall = { gateway: median(samples.gateway.toCall), agents: median(samples.agents.toCall) };
  console.log(
    `ratio of medians, result → finished: gateway / Agents SDK ${ratio(finish.gateway, finish.agents)}; request → tool call at the client: ${ratio(toCall.gateway, toCall.agents)}`,
  );
  console.log(
    `(the SDK holds an auto-continuation for a ${COALESCE_MS} ms coalescing window, AutoContinuationController.COALESCE_MS, so parallel results go in one continuation;` +
      ` by arithmetic, not measured: without it ${ms(finish.agents - COALESCE_MS)} ms, ratio ${ratio(finish.gateway, finish.agents - COALESCE_MS)})`,
  );
  if (timeouts.gateway || timeouts.agents) throw new Error(`round trips that timed out: gateway ${timeouts.gateway}, Agents SDK ${timeouts.agents}`);
}

const phases = () => ({ toCall: [], toOutput: [], toFinish: [] });

async function prepareGatewayRounds(context, gateway, rounds) {
  const tag = randomBytes(4).toString("hex");
  const human = await gateway.api("POST", "/api/entities", { type: "human", name: `peers tool human ${tag}` });
  const space = await gateway.api("POST", "/api/spaces", { name: `peers tool ${tag}`, memberIds: [human.id] });
  const turns = [];
  for (let index = 0; index < rounds; index += 1) {
    turns.push({
      toolCalls: [
        { name: "enter_space", args: { spaceId: space.id } },
        { name: "fetchData", args: { q: `query ${index}` } },
      ],
    });
    turns.push({ toolCalls: [{ name: "skip", args: {} }] });
  }
  const agent = await gateway.api("POST", "/api/agents", {
    config: {
      agent: { name: `peers tool agent ${tag}` },
      model: { provider: "scripted", turns },
      tools: [
        {
          name: "fetchData",
          description: "Fetches data from a client outside the gateway",
          executionType: "external",
          visible: true,
          timeout: 30_000,
          inputSchema: { type: "object", properties: { q: { type: "string" } } },
        },
      ],
      // Two cycles a round, back to back: the runaway guard's default budget would throttle them.
      limits: { maxCyclesPerMinute: 10_000 },
    },
  });
  await gateway.api("POST", `/api/spaces/${space.id}/members`, { entityId: agent.entityId });
  const query = new URLSearchParams({ publicKey: gateway.publicKey, token: gateway.signToken(human.id, 3600) });
  const spaceSocket = await openEventSocket(`${gateway.wsBaseUrl}/api/spaces/${space.id}/stream?${query}`);
  const agentStream = await openEventSource(`${gateway.baseUrl}/api/agents/${agent.id}/stream`, { "x-secret-key": gateway.secretKey });
  const mine = (frame) => frame.data?.agentEntityId === agent.entityId;
  let round = 0;
  return {
    async round() {
      round += 1;
      const pending = agentStream.expect((frame) => frame.type === "tool.pending" && frame.data?.toolName === "fetchData", STEP_TIMEOUT_MS);
      const finished = spaceSocket.expect((frame) => frame.type === "agent.cycle.finished" && mine(frame), STEP_TIMEOUT_MS * 2);
      const requested = performance.now();
      await gateway.api("POST", `/api/agents/${agent.id}/inbox`, { type: "external", data: { round } });
      const pendingEvent = await pending;
      if (!pendingEvent) {
        await finished;
        return undefined;
      }
      const { runId, toolCallId } = pendingEvent.frame.data;
      const output = spaceSocket.expect((frame) => frame.type === "tool.done" && frame.data?.toolCallId === toolCallId, STEP_TIMEOUT_MS);
      const start = performance.now();
      const answer = await gateway.request("POST", `/api/runs/${runId}/tool-results`, { callId: toolCallId, result: { answer: round } });
      const [outputEvent, finishedEvent] = await Promise.all([output, finished]);
      if (answer.status !== 200 || !outputEvent || !finishedEvent) return undefined;
      return { toCall: pendingEvent.at - requested, toOutput: outputEvent.at - start, toFinish: finishedEvent.at - start };
    },
    async close() {
      await Promise.all([spaceSocket.close(), agentStream.close()]);
    },
  };
}

async function preparePeerRounds(peer) {
  const conversation = `chat-${randomBytes(4).toString("hex")}`;
  const socket = await openEventSocket(`${peer.wsBaseUrl}/agents/chat-agent/${conversation}`);
  const response = (frame) => frame.type === "cf_agent_use_chat_response";
  /** The UI message stream part a response frame carries (its body is one JSON chunk). */
  const partOf = (frame) => {
    try {
      return JSON.parse(frame.body);
    } catch {
      return undefined;
    }
  };
  let round = 0;
  return {
    async round() {
      round += 1;
      // Each round is a new conversation, as each gateway round is a new cycle (not measured).
      socket.send(JSON.stringify({ type: "cf_agent_chat_clear" }));
      const requestId = `req-${round}-${randomBytes(3).toString("hex")}`;
      const toolCall = socket.expect((frame) => response(frame) && frame.id === requestId && partOf(frame)?.type === "tool-input-available", STEP_TIMEOUT_MS);
      const firstDone = socket.expect((frame) => response(frame) && frame.id === requestId && frame.done === true, STEP_TIMEOUT_MS);
      const messages = [{ id: `user-${requestId}`, role: "user", parts: [{ type: "text", text: `round ${round}: fetch the data` }] }];
      const requested = performance.now();
      socket.send(JSON.stringify({ type: "cf_agent_use_chat_request", id: requestId, init: { method: "POST", body: JSON.stringify({ messages }) } }));
      const callEvent = await toolCall;
      if (!callEvent) return undefined;
      const { toolCallId, toolName } = partOf(callEvent.frame);
      // The continuation is offered as a resumable stream; the SDK's client acknowledges it.
      const output = socket.expect((frame) => frame.type === "cf_agent_stream_resuming", STEP_TIMEOUT_MS);
      const finished = socket.expect((frame) => response(frame) && frame.continuation === true && frame.done === true, STEP_TIMEOUT_MS);
      const start = performance.now();
      socket.send(JSON.stringify({ type: "cf_agent_tool_result", toolCallId, toolName, output: { answer: round }, autoContinue: true }));
      const outputEvent = await output;
      if (outputEvent) socket.send(JSON.stringify({ type: "cf_agent_stream_resume_ack", id: outputEvent.frame.id }));
      const [finishedEvent] = await Promise.all([finished, firstDone]);
      if (!outputEvent || !finishedEvent || finishedEvent.frame.error) return undefined;
      return { toCall: callEvent.at - requested, toOutput: outputEvent.at - start, toFinish: finishedEvent.at - start };
    },
    close: () => socket.close(),
  };
}
