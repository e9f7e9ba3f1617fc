#!/usr/bin/env node
/**
 * `npm run soak`: one `wrangler dev` of the gateway (a snapshot of the working
 * tree, fresh database and keys, bench/servers.mjs) under a long mixed load,
 * with workerd's memory sampled all along. The load comes in --rounds equal
 * rounds (default 4); in each, three lanes run at once:
 *
 *   messages  --messages posts (default 10,000) to --spaces spaces, at most
 *             --concurrency in flight; two WebSocket listeners per space count
 *             what they get (each must get every message of its space)
 *   connects  --connects WebSocket connects and disconnects (default 2,000) on
 *             a space's stream, 8 at a time: open, then close, each awaited
 *   cycles    --cycles agent cycles (default 500) over --agents scripted
 *             agents, one cycle at a time per agent: an `external` inbox event,
 *             then `agent.cycle.finished` on the agent's stream; every turn is
 *             [enter_space, send_message, skip], so each cycle writes a message
 *
 * Every --sample seconds (default 5) it reads, from /proc/<pid>/status, VmRSS
 * and RssAnon of the workerd that runs the Worker (wrangler dev starts two:
 * its own proxy, which owns the dev port, is sampled too), and the Worker's
 * V8 heap through wrangler's inspector (`Runtime.getHeapUsage`: used, and
 * external = embedder objects + ArrayBuffer backing stores). It prints the
 * samples, then each round's peak RSS and the V8 heap at its end, and a
 * verdict on the runtime's RSS from the second round's peak to the last's:
 * flat under --threshold bytes per operation (default 200), climbing
 * otherwise. Rounds, because an allocator keeps what the first burst of load
 * made it take (a high-water mark, not a leak); a leak shows as peaks that
 * keep rising round after round. 200 bytes: at the ~100 operations/s this
 * soak drives on a 2-core machine that is about 1 MiB a minute, about the
 * smallest drift one run can tell from V8 returning its heap in megabyte
 * steps.
 *
 * --target floor runs the same three lanes against bench/floor-worker (frames
 * through one RPC, the same sockets, each cycle's D1 writes and broadcast):
 * what the platform does with none of the gateway's code. --target hello
 * sends --messages plain GETs to bench/hello-worker (`fetch` answers `ok`):
 * what the local runtime keeps per request with no code at all.
 *
 *   npm run soak
 *   npm run soak -- --messages 1000 --connects 200 --cycles 50 --sample 2   # about 30 s
 *   npm run soak -- --target floor
 *
 * Exits non-zero when the verdict is "climbing" or any lane lost something.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createServers } from "./servers.mjs";
import { mapLimit, openEventSocket, openEventSource, printTable } from "./support.mjs";

const { values: flags } = parseArgs({
  options: {
    messages: { type: "string", default: "10000" },
    connects: { type: "string", default: "2000" },
    cycles: { type: "string", default: "500" },
    spaces: { type: "string", default: "10" },
    agents: { type: "string", default: "5" },
    concurrency: { type: "string", default: "4" },
    sample: { type: "string", default: "5" },
    rounds: { type: "string", default: "4" },
    threshold: { type: "string", default: "200" },
    budget: { type: "string", default: "2400" },
    target: { type: "string", default: "gateway" },
    verbose: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
  strict: true,
});
if (flags.help) {
  console.log(
    "usage: npm run soak -- [--messages 10000] [--connects 2000] [--cycles 500] [--spaces 10] [--agents 5] [--concurrency 4]\n" +
      "                       [--rounds 4] [--sample 5] [--threshold 200] [--target gateway|floor] [--budget 2400] [--verbose]",
  );
  process.exit(0);
}
const sizes = {
  messages: Number(flags.messages),
  connects: Number(flags.connects),
  cycles: Number(flags.cycles),
  spaces: Math.max(1, Number(flags.spaces)),
  agents: Math.max(1, Number(flags.agents)),
  concurrency: Math.max(1, Number(flags.concurrency)),
};
if (!["gateway", "floor", "hello"].includes(flags.target)) {
  console.error(`--target is gateway, floor or hello, not ${flags.target}`);
  process.exit(2);
}
if (flags.target === "hello") {
  // A hello-world Worker has no sockets and no agents: its only lane is --messages plain GETs.
  sizes.connects = 0;
  sizes.cycles = 0;
}
const sampleMs = Number(flags.sample) * 1000;
/** Bytes of runtime RSS per operation, from the second round's peak to the last's, under which the trend is flat. */
const thresholdBytesPerOperation = Number(flags.threshold);
const rounds = Math.max(2, Number(flags.rounds));
/** The `part`-th of `rounds` shares of `total` (the shares add up to it). */
const shareOf = (total, part) => Math.floor((total * (part + 1)) / rounds) - Math.floor((total * part) / rounds);
const STEP_TIMEOUT_MS = 30_000;
const CONNECT_CONCURRENCY = 8;
const LISTENERS_PER_SPACE = 2;

const startedAt = Date.now();
const deadline = startedAt + Number(flags.budget) * 1000;
const log = (...parts) => console.log(`[soak ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)}s]`, ...parts);
const servers = createServers({ log, deadline, verbose: flags.verbose });
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    log(`${signal}: stopping the server`);
    servers.cleanup().finally(() => process.exit(130));
  });
}
process.once("exit", () => servers.killAll());
setTimeout(
  () => {
    log(`the time budget (${flags.budget}s) ran out: stopping`);
    servers.cleanup().finally(() => process.exit(1));
  },
  deadline - Date.now() + 15_000,
).unref();

/**
 * The workerd processes under a `wrangler dev`: `runtime` runs the Worker and
 * its objects; `proxy` is wrangler's own (it owns the dev port and forwards
 * every request and socket to the runtime).
 */
function workerdProcesses(pid, port) {
  const found = workerdPids(pid).map((child) => ({ pid: child, command: readFileSync(`/proc/${child}/cmdline`, "utf8").replaceAll("\0", " ") }));
  const proxy = found.find((entry) => entry.command.includes(`=127.0.0.1:${port} `) || entry.command.includes(`=127.0.0.1:${port}\0`));
  const runtime = found.find((entry) => entry !== proxy);
  return { runtime: runtime?.pid, proxy: proxy?.pid };
}

/** VmRSS and RssAnon of `pid` in KiB. */
function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
    return { rss: field("VmRSS"), anon: field("RssAnon") };
  } catch {
    return { rss: 0, anon: 0 };
  }
}

/**
 * The Worker's V8 heap through wrangler's inspector (DevTools protocol,
 * `Runtime.getHeapUsage`): used bytes, garbage not yet collected included.
 * Resolves undefined when the inspector cannot be reached.
 */
async function openHeapGauge(inspectorPort) {
  try {
    const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`, { signal: AbortSignal.timeout(5_000) })).json();
    // wrangler's inspector proxy wants an Origin it knows; Node's WebSocket takes headers.
    const socket = new WebSocket(targets[0].webSocketDebuggerUrl, { headers: { origin: "http://localhost" } });
    await new Promise((resolveOpen, reject) => {
      const timer = setTimeout(() => reject(new Error("inspector did not open")), 5_000);
      socket.addEventListener("open", () => (clearTimeout(timer), resolveOpen()));
      socket.addEventListener("error", () => (clearTimeout(timer), reject(new Error("inspector refused"))));
    });
    let next = 0;
    const pending = new Map();
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data));
      pending.get(message.id)?.(message.result);
      pending.delete(message.id);
    });
    return {
      /** `{used, total, external}` in KiB: the JS heap in use and reserved, and what V8 counts outside it (embedder objects, ArrayBuffer backing stores). */
      read: () =>
        new Promise((resolveUsage) => {
          const id = ++next;
          const timer = setTimeout(() => (pending.delete(id), resolveUsage(undefined)), 5_000);
          pending.set(id, (result) => {
            clearTimeout(timer);
            resolveUsage(
              result?.usedSize === undefined
                ? undefined
                : { used: result.usedSize / 1024, total: result.totalSize / 1024, external: ((result.embedderHeapUsedSize ?? 0) + (result.backingStorageSize ?? 0)) / 1024 },
            );
          });
          socket.send(JSON.stringify({ id, method: "Runtime.getHeapUsage" }));
        }),
      close: () => socket.close(),
    };
  } catch (error) {
    log(`the V8 heap is not sampled: ${error?.message ?? error}`);
    return undefined;
  }
}

/** Every descendant of `pid` whose command is workerd (wrangler → node → workerd). */
function workerdPids(pid) {
  const childrenOf = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // comm may hold spaces and parentheses: the fields after the last ")" are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const found = [];
  const queue = [pid];
  while (queue.length) {
    const next = queue.shift();
    for (const child of childrenOf.get(next) ?? []) {
      queue.push(child);
      try {
        if (readFileSync(`/proc/${child}/comm`, "utf8").trim() === "workerd") found.push(child);
      } catch {
        // gone
      }
    }
  }
  return found;
}

/** The `part`-th of `parts` shares of `total`. */
function shareOf2(total, part, parts) {
  return Math.floor((total * (part + 1)) / parts) - Math.floor((total * part) / parts);
}

/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length;
  if (n < 2) return undefined;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let numerator = 0;
  let denominator = 0;
  for (const [x, y] of points) {
    numerator += (x - meanX) * (y - meanY);
    denominator += (x - meanX) ** 2;
  }
  return denominator === 0 ? undefined : numerator / denominator;
}

const done = { messages: 0, connects: 0, cycles: 0 };
const problems = [];

async function messagesLane(setup, round) {
  const from = Math.floor((sizes.messages * round) / rounds);
  await mapLimit(
    Array.from({ length: shareOf(sizes.messages, round) }, (_, index) => from + index),
    sizes.concurrency,
    async (index) => {
      await setup.post(index % setup.rooms, `soak ${index}`);
      done.messages += 1;
    },
  );
}

async function connectsLane(setup, round) {
  let failed = 0;
  await mapLimit(Array.from({ length: shareOf(sizes.connects, round) }), CONNECT_CONCURRENCY, async () => {
    try {
      const socket = await openEventSocket(setup.connectUrl, { openTimeoutMs: STEP_TIMEOUT_MS });
      await socket.close();
      done.connects += 1;
    } catch (error) {
      failed += 1;
      if (failed <= 3) log(`connects: ${error?.message ?? error}`);
    }
  });
  if (failed) problems.push(`${failed} WebSocket connect(s) failed`);
}

async function cyclesLane(setup, round) {
  const count = shareOf(sizes.cycles, round);
  let timedOut = 0;
  await Promise.all(
    setup.agents.map(async (agent, agentIndex) => {
      await agent.open?.();
      try {
        // This round's cycles, spread over the agents; each agent numbers its cycles across rounds.
        for (let mine = shareOf2(count, agentIndex, setup.agents.length); mine > 0; mine -= 1) {
          const cycle = (agent.nextCycle = (agent.nextCycle ?? -1) + 1);
          if (!(await agent.cycle(cycle))) {
            timedOut += 1;
            if (timedOut >= 5) throw new Error("5 cycles did not finish within 30 s");
            continue;
          }
          done.cycles += 1;
        }
      } finally {
        await agent.close?.();
      }
    }),
  );
  if (timedOut) problems.push(`${timedOut} cycle(s) did not finish within ${STEP_TIMEOUT_MS / 1000} s`);
}

/** Two listeners per room; each counts this run's messages and says when it has them all. */
async function listen(urls) {
  const messagesIn = (roomIndex) => Math.floor(sizes.messages / urls.length) + (roomIndex < sizes.messages % urls.length ? 1 : 0);
  const listeners = [];
  for (const [roomIndex, url] of urls.entries()) {
    for (let index = 0; index < LISTENERS_PER_SPACE; index += 1) {
      const entry = { socket: await openEventSocket(url), received: 0, expected: messagesIn(roomIndex) };
      entry.complete = new Promise((resolveComplete) => {
        if (entry.expected === 0) resolveComplete();
        entry.socket.stream.observe((frame) => {
          if (frame.type !== "space.message" || !String(frame.data?.text ?? "").startsWith("soak ")) return;
          entry.received += 1;
          if (entry.received === entry.expected) resolveComplete();
        });
      });
      listeners.push(entry);
    }
  }
  return listeners;
}

/**
 * The floor under the same load (--target floor): bench/floor-worker rooms
 * get the messages as `space.message`-shaped frames through one RPC each, the
 * connects, and for each cycle the D1 writes and the broadcast of an agent
 * cycle (`POST /rooms/:name/cycle`). What the platform does with no gateway
 * code in it.
 */
async function prepareFloor(floor) {
  const tag = Date.now().toString(36);
  const rooms = Array.from({ length: sizes.spaces }, (_, index) => `soak-${tag}-${index}`);
  const spaceId = `spc_soak_${tag}`;
  const setup = await fetch(`${floor.baseUrl}/setup`, { method: "POST", body: JSON.stringify({ spaceId }), headers: { "content-type": "application/json" } });
  if (!setup.ok) throw new Error(`floor /setup → ${setup.status}`);
  let seq = 0;
  const send = async (path, body) => {
    const response = await fetch(`${floor.baseUrl}${path}`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
      signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return response.ok;
  };
  return {
    rooms: rooms.length,
    post: async (roomIndex, text) => {
      seq += 1;
      const frame = JSON.stringify({ seq, type: "space.message", data: { id: `msg_${tag}_${seq}`, text, role: "user", status: "complete" } });
      if (!(await send(`/rooms/${rooms[roomIndex]}/broadcast`, frame))) throw new Error("floor broadcast failed");
    },
    connectUrl: `${floor.wsBaseUrl}/rooms/soak-${tag}-connect`,
    listeners: await listen(rooms.map((room) => `${floor.wsBaseUrl}/rooms/${room}`)),
    agents: Array.from({ length: sizes.agents }, (_, agentIndex) => ({
      cycle: (cycle) => {
        const id = `${tag}_${agentIndex}_${cycle}`;
        return send(
          `/rooms/soak-${tag}-agent-${agentIndex}/cycle`,
          JSON.stringify({
            runId: `run_${id}`,
            messageId: `msg_${id}`,
            spaceId,
            agentId: `agt_${tag}_${agentIndex}`,
            agentEntityId: `ent_${tag}_${agentIndex}`,
            text: `soak reply ${agentIndex}.${cycle}`,
            seq: 1 + agentIndex * 100_000 + cycle,
            trigger: { type: "external", data: { cycle } },
            steps: [{ toolCalls: ["enter_space", "send_message", "skip"] }],
            toolCalls: [],
            usage: { inputTokens: 100, outputTokens: 20 },
          }),
        );
      },
    })),
  };
}

/** --target hello: each "message" is one GET answered `ok`; no listeners, sockets or agents. */
function prepareHello(hello) {
  return {
    rooms: 1,
    post: async () => {
      const response = await fetch(`${hello.baseUrl}/`, { signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`hello-world GET → ${response.status}`);
    },
    listeners: [],
    agents: [],
  };
}

async function prepareGateway(gateway) {
  const tag = Date.now().toString(36);
  const listener = await gateway.api("POST", "/api/entities", { type: "human", name: `soak listener ${tag}` });
  const sender = await gateway.api("POST", "/api/entities", { type: "human", name: `soak sender ${tag}` });
  const spaces = [];
  for (let index = 0; index < sizes.spaces; index += 1) {
    spaces.push(await gateway.api("POST", "/api/spaces", { name: `soak ${tag} ${index}`, memberIds: [listener.id, sender.id] }));
  }
  const query = new URLSearchParams({ publicKey: gateway.publicKey, token: gateway.signToken(listener.id, 24 * 3600) });
  const streamOf = (space) => `${gateway.wsBaseUrl}/api/spaces/${space.id}/stream?${query}`;
  const agentSpace = await gateway.api("POST", "/api/spaces", { name: `soak agents ${tag}`, memberIds: [listener.id] });
  const perAgent = Math.ceil(sizes.cycles / sizes.agents) + 5;
  const agents = [];
  for (let index = 0; index < sizes.agents; index += 1) {
    const turns = Array.from({ length: perAgent }, (_, turn) => ({
      toolCalls: [
        { name: "enter_space", args: { spaceId: agentSpace.id } },
        { name: "send_message", args: { text: `soak reply ${index}.${turn}` } },
        { name: "skip", args: {} },
      ],
    }));
    // Back-to-back cycles: the runaway guard's default (60 a minute) would hold them, as it should for a real agent.
    const config = { agent: { name: `soak agent ${tag} ${index}` }, model: { provider: "scripted", turns }, limits: { maxCyclesPerMinute: 10_000 } };
    const agent = await gateway.api("POST", "/api/agents", { config });
    await gateway.api("POST", `/api/spaces/${agentSpace.id}/members`, { entityId: agent.entityId });
    let stream;
    agents.push({
      open: async () => {
        stream = await openEventSource(`${gateway.baseUrl}/api/agents/${agent.id}/stream`, { "x-secret-key": gateway.secretKey });
      },
      cycle: async (cycle) => {
        const finished = stream.expect((frame) => frame.type === "agent.cycle.finished", STEP_TIMEOUT_MS);
        await gateway.api("POST", `/api/agents/${agent.id}/inbox`, { type: "external", data: { cycle } }, { timeoutMs: STEP_TIMEOUT_MS });
        return Boolean(await finished);
      },
      close: () => stream?.close(),
    });
  }
  return {
    rooms: spaces.length,
    post: (spaceIndex, text) => gateway.api("POST", `/api/spaces/${spaces[spaceIndex].id}/messages`, { text, entityId: sender.id }, { timeoutMs: STEP_TIMEOUT_MS }),
    connectUrl: streamOf(spaces[0]),
    listeners: await listen(spaces.map(streamOf)),
    agents,
  };
}

let exitCode = 0;
try {
  const server = await servers[flags.target]();
  const setup = flags.target === "floor" ? await prepareFloor(server) : flags.target === "hello" ? prepareHello(server) : await prepareGateway(server);
  const port = Number(new URL(server.baseUrl).port);
  const { runtime, proxy } = workerdProcesses(server.pid, port);
  if (!runtime) throw new Error(`no workerd process found under wrangler (pid ${server.pid}); /proc is needed`);
  const heap = await openHeapGauge(server.inspectorPort);
  log(`${flags.target}: workerd runtime pid ${runtime} (the Worker and its objects), RSS ${(memoryOf(runtime).rss / 1024).toFixed(1)} MiB; wrangler's proxy pid ${proxy ?? "?"}`);
  log(
    `load: ${sizes.messages} messages to ${sizes.spaces} spaces (${sizes.concurrency} in flight), ${sizes.connects} connects/disconnects, ${sizes.cycles} cycles over ${sizes.agents} agents, ` +
      `in ${rounds} equal rounds, the three lanes at once in each`,
  );

  const loadStart = performance.now();
  const samples = [];
  let sampling = Promise.resolve();
  let round = 0;
  const takeSample = () => {
    const seconds = (performance.now() - loadStart) / 1000;
    const counts = { ...done, round };
    const memory = memoryOf(runtime);
    const proxyKiB = proxy ? memoryOf(proxy).rss : undefined;
    sampling = sampling.then(async () => {
      const usage = await heap?.read();
      samples.push({ seconds, kib: memory.rss, anonKiB: memory.anon, heapKiB: usage?.used, heapTotalKiB: usage?.total, externalKiB: usage?.external, proxyKiB, ...counts });
    });
  };
  takeSample();
  const sampler = setInterval(takeSample, sampleMs);
  const roundEnds = [];
  for (; round < rounds; round += 1) {
    const lanes = await Promise.allSettled([messagesLane(setup, round), connectsLane(setup, round), cyclesLane(setup, round)]);
    lanes.forEach((lane, index) => {
      if (lane.status === "rejected") problems.push(`round ${round + 1}, ${["messages", "connects", "cycles"][index]} lane: ${lane.reason?.message ?? lane.reason}`);
    });
    takeSample();
    roundEnds.push({ seconds: (performance.now() - loadStart) / 1000, operations: done.messages + done.connects + done.cycles });
    log(`round ${round + 1} of ${rounds} done: ${done.messages} messages, ${done.connects} connects, ${done.cycles} cycles so far`);
    if (problems.length > 0) break;
  }
  clearInterval(sampler);
  await sampling;
  heap?.close();
  const loadSeconds = (performance.now() - loadStart) / 1000;

  // Each listener must have every message of its space: wait (bounded) for the last frames, then count.
  let settleTimer;
  await Promise.race([Promise.all(setup.listeners.map((entry) => entry.complete)), new Promise((resolveLate) => (settleTimer = setTimeout(resolveLate, 30_000)))]);
  clearTimeout(settleTimer);
  const missing = setup.listeners.reduce((sum, entry) => sum + Math.max(0, entry.expected - entry.received), 0);
  const disconnected = setup.listeners.filter((entry) => entry.socket.stream.disconnected).length;
  if (missing) problems.push(`${missing} message deliveries missing across ${setup.listeners.length} listeners`);
  if (disconnected) problems.push(`${disconnected} listener(s) disconnected by the server`);
  await Promise.all(setup.listeners.map((entry) => entry.socket.close()));

  const mib = (kib) => (kib / 1024).toFixed(1);
  const optional = (kib) => (kib === undefined ? "n/a" : mib(kib));
  printTable(
    ["t s", "round", "runtime RSS MiB", "of it anon MiB", "V8 heap used / total MiB", "V8 external MiB", "proxy RSS MiB", "messages", "connects", "cycles"],
    samples.map((sample) => [
      sample.seconds.toFixed(0),
      Math.min(rounds, sample.round + 1),
      mib(sample.kib),
      mib(sample.anonKiB),
      `${optional(sample.heapKiB)} / ${optional(sample.heapTotalKiB)}`,
      optional(sample.externalKiB),
      optional(sample.proxyKiB),
      sample.messages,
      sample.connects,
      sample.cycles,
    ]),
  );
  const operations = done.messages + done.connects + done.cycles;
  console.log(
    `\nload: ${loadSeconds.toFixed(0)} s, ${done.messages} messages, ${done.connects} connects/disconnects, ${done.cycles} cycles (${(operations / loadSeconds).toFixed(0)} operations/s)`,
  );
  const first = samples[0].kib;
  const peak = Math.max(...samples.map((sample) => sample.kib));
  const last = samples.at(-1).kib;
  console.log(`runtime RSS: ${mib(first)} MiB at the start, ${mib(peak)} MiB at the peak, ${mib(last)} MiB at the end`);
  // Per round: the allocator keeps what the first round made it take (a high-water mark, the floor does the same);
  // a leak shows as peaks that keep rising round after round.
  const peaks = roundEnds.map((_, index) =>
    Math.max(...samples.filter((sample) => sample.round === index || (sample.round === index + 1 && sample.seconds <= roundEnds[index].seconds)).map((sample) => sample.kib)),
  );
  const heapAtEnd = roundEnds.map((end) => samples.filter((sample) => sample.seconds <= end.seconds + 0.5).at(-1)?.heapKiB);
  printTable(
    ["round", "operations", "runtime RSS peak MiB", "V8 heap used at its end MiB"],
    roundEnds.map((end, index) => [index + 1, end.operations - (index > 0 ? roundEnds[index - 1].operations : 0), mib(peaks[index]), optional(heapAtEnd[index])]),
  );
  if (roundEnds.length < 3) {
    console.log(`trend: ${roundEnds.length} round(s) finished; at least 3 are needed (the first sets the high-water mark)`);
    problems.push("no trend");
  } else {
    const laterOperations = roundEnds.at(-1).operations - roundEnds[1].operations;
    const bytesPerOperation = ((peaks.at(-1) - peaks[1]) * 1024) / laterOperations;
    const verdict = bytesPerOperation < thresholdBytesPerOperation ? "flat" : "climbing";
    console.log(
      `trend: runtime RSS peak from round 2 to round ${roundEnds.length}: ${mib(peaks[1])} → ${mib(peaks.at(-1))} MiB over ${laterOperations} operations, ` +
        `${bytesPerOperation >= 0 ? "+" : ""}${bytesPerOperation.toFixed(0)} bytes per operation`,
    );
    const heapPoints = heapAtEnd.slice(1).flatMap((kib, index) => (kib === undefined ? [] : [[index, kib]]));
    const heapPerRound = slope(heapPoints);
    if (heapPerRound !== undefined)
      console.log(`V8 heap used at each round's end, from round 2: ${heapPerRound >= 0 ? "+" : ""}${heapPerRound.toFixed(0)} KiB per round (garbage not yet collected included)`);
    console.log(`verdict: ${verdict} (threshold ${thresholdBytesPerOperation} bytes per operation)`);
    if (verdict === "climbing") exitCode = 1;
  }
  if (problems.length) {
    console.log(`\nproblems:\n  ${problems.join("\n  ")}`);
    exitCode = 1;
  }
} catch (error) {
  console.error(`\nsoak failed: ${error?.stack ?? error}`);
  exitCode = 1;
} finally {
  log("stopping the server");
  await servers.cleanup();
}
process.exit(exitCode);
