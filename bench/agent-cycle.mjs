/**
 * Agent cycle: how long one message takes to become the agent's reply, and
 * how many D1 statements that costs, against a floor measured in the same run.
 *
 * Gateway: one human, one space, one `scripted` agent whose every turn is
 * `[enter_space, send_message("reply N"), skip]`, and one WebSocket client on
 * the space's stream (public key + the human's JWT). Messages are posted one at
 * a time with the secret key; a cycle's latency is from just before the POST
 * until the agent's `space.message` arrives on the socket. The next message is
 * posted only after `agent.cycle.finished` for the cycle arrived.
 *
 * D1 statements, two ways:
 * - the run record's `d1Statements`: what the cycle itself sent (run insert,
 *   reads, run update; not the messages, which the SpaceDO writes behind);
 * - `GET /api/stats` before and after the measured cycles, divided by the
 *   cycles: every statement of the isolate (the message POST route, the
 *   SpaceDO's write-behind upserts of both messages, the wake, the cycle).
 *
 * Floor (`bench/floor-worker`, `POST /rooms/:name/cycle`): the D1 writes one
 * such cycle makes, on the gateway's own tables (INSERT the person's message,
 * INSERT run, INSERT the reply, UPDATE run, with the gateway's own
 * trigger/steps/toolCalls JSON), and one
 * Worker→object RPC that broadcasts a `space.message`-shaped frame to a
 * WebSocket client of the room, timed from just before the POST until the
 * frame is on the client. No reads, no auth, no model, no inbox.
 * Gateway and floor alternate in batches so machine noise hits both alike.
 *
 * For the breakdown, two more figures: an alarm floor (`POST /rooms/:name/alarm`:
 * an RPC that sets the object's alarm to now, whose handler broadcasts a frame:
 * the AgentDO starts every cycle from its alarm), and, from the agent's own
 * event log replayed at the end (server timestamps, nothing listens during the
 * run), the time from `agent.inbox.received` to `agent.cycle.started` and on
 * to `agent.cycle.finished`.
 */
import { randomBytes } from "node:crypto";
import { printProfile, startCpuProfile } from "./cpu-profile.mjs";
import { mapLimit, median, ms, openEventSocket, percentile, postJson, printTable, ratio, replayEvents, treeCpuMs } from "./support.mjs";

export const name = "agent-cycle";
export const description = "message in → the agent's send_message reply on the space stream, and D1 statements per cycle";

const CYCLE_TIMEOUT_MS = 15_000;
const BATCH_SIZE = 20;
const MAX_TIMEOUTS = 5;
/** Targets: D1 statements per one-message cycle, end to end (GET /api/stats); the reply's latency, the CPU and the objects' SQLite statements per cycle against the floor. */
const TARGET_STATEMENTS = 5;
const TARGET_RATIO = 2.0;
const TARGET_CPU_RATIO = 2.0;
const TARGET_OBJECT_STATEMENTS = 25;

export async function run(context) {
  const { cycles, warmup } = context.options;
  const [gateway, floor] = await Promise.all([context.gateway(), context.floor()]);
  const tag = randomBytes(4).toString("hex");

  // ── gateway set-up ─────────────────────────────────────────────────────
  const human = await gateway.api("POST", "/api/entities", { type: "human", name: `bench cycle human ${tag}` });
  const space = await gateway.api("POST", "/api/spaces", { name: `bench cycle ${tag}`, memberIds: [human.id] });
  const totalTurns = warmup + cycles + 5 + (context.options.profile ? 50 : 0);
  const turns = Array.from({ length: totalTurns }, (_, index) => ({
    toolCalls: [
      { name: "enter_space", args: { spaceId: space.id } },
      { name: "send_message", args: { text: `reply ${index}` } },
      { name: "skip", args: {} },
    ],
  }));
  const agent = await gateway.api("POST", "/api/agents", {
    // The runaway guard (60 cycles a minute by default) would throttle a benchmark that posts one message after another.
    config: { agent: { name: `bench cycle agent ${tag}` }, model: { provider: "scripted", turns }, limits: { maxCyclesPerMinute: 10_000 } },
  });
  await gateway.api("POST", `/api/spaces/${space.id}/members`, { entityId: agent.entityId });
  const query = new URLSearchParams({ publicKey: gateway.publicKey, token: gateway.signToken(human.id, 3600) });
  const socket = await openEventSocket(`${gateway.wsBaseUrl}/api/spaces/${space.id}/stream?${query}`);

  // ── floor set-up ───────────────────────────────────────────────────────
  const floorSpaceId = `spc_floor_${tag}`;
  const floorRoom = `cycle-${tag}`;
  const setup = await postJson(`${floor.baseUrl}/setup`, { spaceId: floorSpaceId });
  if (setup.status !== 200) throw new Error(`floor /setup → ${setup.status} ${JSON.stringify(setup.body).slice(0, 300)}`);
  const floorSocket = await openEventSocket(`${floor.wsBaseUrl}/rooms/${floorRoom}`);

  const state = { turn: 0, floorSeq: 0, template: undefined };
  const gatewaySide = emptySide();
  const floorSide = emptySide();
  const alarmSide = emptySide();
  const rpcSide = emptySide();
  const mine = (frame) => frame.data?.agentEntityId === agent.entityId;

  /** One gateway cycle: resolves its timings, or records a timeout. */
  const gatewayCycle = async (measured) => {
    const turn = state.turn++;
    const reply = socket.expect((frame) => frame.type === "space.message" && frame.data?.entityId === agent.entityId, CYCLE_TIMEOUT_MS);
    const started = socket.expect((frame) => frame.type === "agent.cycle.started" && mine(frame), CYCLE_TIMEOUT_MS);
    const finished = socket.expect((frame) => frame.type === "agent.cycle.finished" && mine(frame), CYCLE_TIMEOUT_MS);
    const text = `bench message ${turn}`;
    const echoed = socket.expect((frame) => frame.type === "space.message" && frame.data?.text === text, CYCLE_TIMEOUT_MS);
    const start = performance.now();
    const posted = gateway.api("POST", `/api/spaces/${space.id}/messages`, { text, entityId: human.id }).then(() => performance.now());
    const [postedAt, replyEvent, startedEvent, finishedEvent, echoedEvent] = await Promise.all([posted, reply, started, finished, echoed]);
    gatewaySide.sent += 1;
    if (!replyEvent || !finishedEvent) {
      gatewaySide.timeouts += 1;
      return;
    }
    if (replyEvent.frame.data.text !== `reply ${turn}`) gatewaySide.mismatched += 1;
    if (!measured) {
      state.lastWarmupRunId = finishedEvent.frame.data.runId;
      return;
    }
    gatewaySide.latencies.push(replyEvent.at - start);
    gatewaySide.post.push(postedAt - start);
    if (startedEvent) gatewaySide.wake.push(startedEvent.at - start);
    if (echoedEvent) gatewaySide.echoed.push(echoedEvent.at - start);
    gatewaySide.finished.push(finishedEvent.at - start);
    gatewaySide.runIds.push(finishedEvent.frame.data.runId);
  };

  /** One floor cycle: the same D1 writes and one RPC that broadcasts the reply frame. */
  const floorCycle = async (measured) => {
    const seq = ++state.floorSeq;
    const text = `reply ${seq}`;
    const frame = floorSocket.expect((event) => event.type === "space.message" && event.data?.seq === seq, CYCLE_TIMEOUT_MS);
    const body = JSON.stringify({
      ...state.template,
      runId: `run_floor_${tag}_${seq}`,
      messageId: `msg_floor_${tag}_${seq}`,
      spaceId: floorSpaceId,
      agentId: agent.id,
      agentEntityId: agent.entityId,
      text,
      seq,
    });
    const start = performance.now();
    const [answer, frameEvent] = await Promise.all([postJson(`${floor.baseUrl}/rooms/${floorRoom}/cycle`, body, CYCLE_TIMEOUT_MS), frame]);
    floorSide.sent += 1;
    if (answer.status !== 200) throw new Error(`floor /cycle → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    if (!frameEvent) {
      floorSide.timeouts += 1;
      return;
    }
    if (!measured) return;
    floorSide.latencies.push(frameEvent.at - start);
    floorSide.post.push(answer.at - start);
  };

  /** The alarm floor: POST → RPC sets the alarm to now → alarm() broadcasts → frame on the client. */
  const alarmWake = async (measured) => {
    const frame = floorSocket.expect((event) => event.type === "alarm", CYCLE_TIMEOUT_MS);
    const start = performance.now();
    const [answer, frameEvent] = await Promise.all([postJson(`${floor.baseUrl}/rooms/${floorRoom}/alarm`, "{}", CYCLE_TIMEOUT_MS), frame]);
    alarmSide.sent += 1;
    if (answer.status !== 200) throw new Error(`floor /alarm → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    if (!frameEvent) alarmSide.timeouts += 1;
    else if (measured) alarmSide.latencies.push(frameEvent.at - start);
  };

  /** The bare hop for comparison: POST → RPC broadcast → frame on the client. */
  const rpcFrame = async (measured) => {
    const n = ++state.floorSeq;
    const frame = floorSocket.expect((event) => event.type === "rpc" && event.n === n, CYCLE_TIMEOUT_MS);
    const start = performance.now();
    const [answer, frameEvent] = await Promise.all([postJson(`${floor.baseUrl}/rooms/${floorRoom}/broadcast`, JSON.stringify({ type: "rpc", n }), CYCLE_TIMEOUT_MS), frame]);
    rpcSide.sent += 1;
    if (answer.status !== 200) throw new Error(`floor /broadcast → ${answer.status}`);
    if (!frameEvent) rpcSide.timeouts += 1;
    else if (measured) rpcSide.latencies.push(frameEvent.at - start);
  };

  try {
    context.log(`agent-cycle: ${warmup} warm-up + ${cycles} cycles, gateway and floor alternating in batches of ${BATCH_SIZE}`);
    for (let index = 0; index < warmup; index += 1) await gatewayCycle(false);
    if (gatewaySide.timeouts) throw new Error(`the gateway did not complete its warm-up cycles (${gatewaySide.timeouts} timed out)`);
    // The floor writes what a real cycle wrote: copy a warm-up run's JSON columns.
    const sample = await gateway.api("GET", `/api/runs/${state.lastWarmupRunId}`);
    state.template = { trigger: sample.trigger, steps: sample.steps, toolCalls: sample.toolCalls, usage: sample.usage };
    state.sampleRun = sample;
    for (let index = 0; index < warmup; index += 1) await floorCycle(false);
    for (let index = 0; index < warmup; index += 1) await alarmWake(false);
    for (let index = 0; index < warmup; index += 1) await rpcFrame(false);

    const statsBefore = await gateway.api("GET", "/api/stats");
    for (let done = 0; done < cycles; done += BATCH_SIZE) {
      if (context.timeLeft() < 30_000) {
        context.log("agent-cycle: stopping early, the time budget is nearly spent");
        break;
      }
      const count = Math.min(BATCH_SIZE, cycles - done);
      // CPU of each side's whole wrangler dev (wrangler, its proxy, workerd with the objects and local D1) while only that side works.
      const gatewayCpuBefore = treeCpuMs(gateway.pid);
      for (let index = 0; index < count && gatewaySide.timeouts < MAX_TIMEOUTS; index += 1) await gatewayCycle(true);
      const gatewayCpuAfter = treeCpuMs(gateway.pid);
      if (gatewayCpuBefore !== undefined && gatewayCpuAfter !== undefined) gatewaySide.cpuMs += gatewayCpuAfter - gatewayCpuBefore;
      const floorCpuBefore = treeCpuMs(floor.pid);
      for (let index = 0; index < count && floorSide.timeouts < MAX_TIMEOUTS; index += 1) await floorCycle(true);
      const floorCpuAfter = treeCpuMs(floor.pid);
      if (floorCpuBefore !== undefined && floorCpuAfter !== undefined) floorSide.cpuMs += floorCpuAfter - floorCpuBefore;
      for (let index = 0; index < count && alarmSide.timeouts < MAX_TIMEOUTS; index += 1) await alarmWake(true);
      for (let index = 0; index < count && rpcSide.timeouts < MAX_TIMEOUTS; index += 1) await rpcFrame(true);
      if (gatewaySide.timeouts >= MAX_TIMEOUTS) {
        context.log(`agent-cycle: ${gatewaySide.timeouts} gateway cycles timed out; stopping`);
        break;
      }
    }
    // The last cycle's run UPDATE precedes its agent.cycle.finished: nothing of it is still in flight.
    const statsAfter = await gateway.api("GET", "/api/stats");
    const measuredCycles = gatewaySide.runIds.length;
    const runs = await mapLimit(gatewaySide.runIds, 8, (runId) => gateway.api("GET", `/api/runs/${runId}`));
    const agentEvents = await replayEvents(`${gateway.baseUrl}/api/agents/${agent.id}/stream?afterSeq=0`, { "x-secret-key": gateway.secretKey }).catch((error) => {
      context.log(`agent-cycle: could not replay the agent's events: ${error.message}`);
      return [];
    });
    const serverSide = serverTimings(agentEvents, new Set(gatewaySide.runIds));

    report(context, {
      gatewaySide,
      floorSide,
      alarmSide,
      rpcSide,
      serverSide,
      runs,
      statsDelta: statsAfter.d1Statements - statsBefore.d1Statements,
      measuredCycles,
      sample: state.sampleRun,
      socket,
    });
    await unitCosts(context, floor, {
      cycles: measuredCycles,
      objectStatements: statsAfter.objectStatements - statsBefore.objectStatements,
      gatewayCpuPerCycle: gatewaySide.latencies.length ? gatewaySide.cpuMs / gatewaySide.latencies.length : undefined,
    });

    if (context.options.profile) {
      // After the measurement, so the profiler does not weigh on its figures: gateway cycles only.
      const profiled = Math.min(50, totalTurns - state.turn - 1);
      context.log(`agent-cycle: ${profiled} more gateway cycles under the CPU profiler (--profile)`);
      const profiler = await startCpuProfile(gateway.inspectorPort);
      for (let index = 0; index < profiled; index += 1) await gatewayCycle(false);
      printProfile(await profiler.stop());
    }
  } finally {
    await Promise.all([socket.close(), floorSocket.close()]);
  }
}

/**
 * What single runtime operations cost under `wrangler dev` (the floor's
 * `/units/:kind` route runs N of one kind; CPU of its whole process tree
 * from /proc, divided by N), beside the gateway's own count of SQLite
 * statements per cycle: the arithmetic behind the cycle's CPU.
 */
async function unitCosts(context, floor, { cycles, objectStatements, gatewayCpuPerCycle }) {
  const n = 2_000;
  const rows = [];
  const perOperation = {};
  for (const [kind, label] of [
    ["await", "an await in the object (the loop's own cost)"],
    ["sql", "a SQLite statement in the object (upsert)"],
    ["alarm", "getAlarm + setAlarm in the object"],
    ["d1", "a D1 read by primary key, from the Worker"],
    ["rpc", "a Worker → object RPC"],
  ]) {
    await postJson(`${floor.baseUrl}/units/${kind}?n=50`, "{}", 60_000);
    const before = treeCpuMs(floor.pid);
    const started = performance.now();
    const answer = await postJson(`${floor.baseUrl}/units/${kind}?n=${n}`, "{}", 120_000);
    const wall = performance.now() - started;
    const after = treeCpuMs(floor.pid);
    if (answer.status !== 200 || before === undefined || after === undefined) {
      rows.push([label, "n/a", "n/a"]);
      continue;
    }
    perOperation[kind] = (after - before) / n;
    rows.push([label, `${((1_000 * (after - before)) / n).toFixed(0)}`, `${((1_000 * wall) / n).toFixed(0)}`]);
  }
  console.log("");
  printTable([`runtime unit costs under wrangler dev (floor, ${n} in a row)`, "CPU µs each", "wall µs each"], rows);
  if (cycles > 0) {
    const perCycle = objectStatements / cycles;
    const sqlMs = perOperation.sql === undefined ? undefined : perCycle * perOperation.sql;
    context.target({
      measure: "SQLite statements per one-message cycle, in the two objects",
      now: perCycle.toFixed(1),
      target: `≤ ${TARGET_OBJECT_STATEMENTS}`,
      met: perCycle <= TARGET_OBJECT_STATEMENTS,
      why: "each durable step is its own statement: the space's event log (one row per event), the run's journal (each call before and after it runs, each step), the inbox, the run record's queue and the write-behind of two messages to D1",
    });
    console.log(
      `gateway: ${perCycle.toFixed(1)} SQLite statements in its objects per cycle (GET /api/stats objectStatements)` +
        (sqlMs === undefined ? "" : ` ≈ ${sqlMs.toFixed(1)} ms of CPU at the unit cost above`) +
        (sqlMs === undefined || gatewayCpuPerCycle === undefined
          ? ""
          : `, ${((100 * sqlMs) / gatewayCpuPerCycle).toFixed(0)}% of the gateway's ${gatewayCpuPerCycle.toFixed(1)} ms per cycle`),
    );
  }
}

function emptySide() {
  return { sent: 0, timeouts: 0, mismatched: 0, latencies: [], post: [], wake: [], finished: [], runIds: [], echoed: [], cpuMs: 0 };
}

/**
 * From the agent's replayed event log (server clocks, ms resolution): per
 * measured run, inbox.received → cycle.started → cycle.finished.
 */
function serverTimings(events, measuredRunIds) {
  const wake = [];
  const cycle = [];
  let lastReceived;
  const started = new Map();
  for (const event of events) {
    const at = Date.parse(event.at);
    if (event.type === "agent.inbox.received") lastReceived = at;
    else if (event.type === "agent.cycle.started" && measuredRunIds.has(event.data?.runId)) {
      started.set(event.data.runId, at);
      if (lastReceived !== undefined) wake.push(at - lastReceived);
    } else if (event.type === "agent.cycle.finished" && started.has(event.data?.runId)) {
      cycle.push(at - started.get(event.data.runId));
    }
  }
  return { wake, cycle, events: events.length };
}

function report(context, { gatewaySide, floorSide, alarmSide, rpcSide, serverSide, runs, statsDelta, measuredCycles, sample, socket }) {
  const gatewayMedian = median(gatewaySide.latencies);
  const floorMedian = median(floorSide.latencies);
  printTable(
    ["", "cycles", "median ms", "p95 ms", "max ms", "timeouts"],
    [
      [
        "gateway: POST → reply on socket",
        gatewaySide.latencies.length,
        ms(gatewayMedian),
        ms(percentile(gatewaySide.latencies, 0.95)),
        ms(percentile(gatewaySide.latencies, 1)),
        gatewaySide.timeouts,
      ],
      [
        "floor: POST → frame on socket",
        floorSide.latencies.length,
        ms(floorMedian),
        ms(percentile(floorSide.latencies, 0.95)),
        ms(percentile(floorSide.latencies, 1)),
        floorSide.timeouts,
      ],
    ],
  );
  console.log(
    `ratio of medians (gateway / floor): ${ratio(gatewayMedian, floorMedian)}  (target ≤ ${TARGET_RATIO}); against the bare RPC floor (no D1): ${ratio(gatewayMedian, median(rpcSide.latencies))}`,
  );
  if (gatewaySide.cpuMs > 0 && gatewaySide.latencies.length > 0 && floorSide.latencies.length > 0)
    console.log(
      `CPU per cycle (every process of each wrangler dev, /proc, 10 ms ticks summed over the batches; the gateway's runs to agent.cycle.finished): gateway ${(gatewaySide.cpuMs / gatewaySide.latencies.length).toFixed(1)} ms, floor ${(floorSide.cpuMs / floorSide.latencies.length).toFixed(1)} ms`,
    );
  const cpuRatio = gatewaySide.cpuMs > 0 && floorSide.cpuMs > 0 ? gatewaySide.cpuMs / gatewaySide.latencies.length / (floorSide.cpuMs / floorSide.latencies.length) : undefined;
  if (cpuRatio !== undefined)
    context.target({
      measure: "CPU per cycle, gateway / floor (each side's wrangler dev)",
      now: `${(gatewaySide.cpuMs / gatewaySide.latencies.length).toFixed(1)} / ${(floorSide.cpuMs / floorSide.latencies.length).toFixed(1)} ms = ${cpuRatio.toFixed(2)}x`,
      target: `≤ ${TARGET_CPU_RATIO}x`,
      met: cpuRatio <= TARGET_CPU_RATIO,
      why: "the cycle does work the floor does not: a model step through the AI SDK's stream, the tool pipeline, the journal and two event streams (--profile shows where)",
    });
  if (gatewayMedian !== undefined && floorMedian)
    context.target({
      measure: "agent cycle, POST → reply on socket, gateway / floor",
      now: `${gatewayMedian.toFixed(1)} / ${floorMedian.toFixed(1)} ms = ${(gatewayMedian / floorMedian).toFixed(2)}x`,
      target: `≤ ${TARGET_RATIO}x`,
      met: gatewayMedian / floorMedian <= TARGET_RATIO,
      why: `CPU: the gateway's wrangler dev spends ${cpuRatio === undefined ? "several times" : `${cpuRatio.toFixed(1)}x`} the floor's CPU per cycle (printed above; the one thread is busy from the POST to the reply), spread over the objects' SQLite statements, six object calls, two D1 statements (the unit costs above), the AI SDK's stream and the events of two streams (--profile)`,
    });

  // Where the gateway's time goes, all from just before the POST.
  printTable(
    ["gateway breakdown (from POST)", "median ms", "p95 ms"],
    [
      ["the person's message on the space socket", ms(median(gatewaySide.echoed)), ms(percentile(gatewaySide.echoed, 0.95))],
      ["POST /messages answered (201)", ms(median(gatewaySide.post)), ms(percentile(gatewaySide.post, 0.95))],
      ["agent.cycle.started on socket (sent with the cycle's first batch)", ms(median(gatewaySide.wake)), ms(percentile(gatewaySide.wake, 0.95))],
      ["reply space.message on socket", ms(gatewayMedian), ms(percentile(gatewaySide.latencies, 0.95))],
      ["agent.cycle.finished on socket", ms(median(gatewaySide.finished)), ms(percentile(gatewaySide.finished, 0.95))],
      ["floor: POST answered (after run UPDATE)", ms(median(floorSide.post)), ms(percentile(floorSide.post, 0.95))],
      ["alarm floor: POST → setAlarm(now) → alarm() frame", ms(median(alarmSide.latencies)), ms(percentile(alarmSide.latencies, 0.95))],
      ["RPC floor: POST → RPC broadcast → frame", ms(median(rpcSide.latencies)), ms(percentile(rpcSide.latencies, 0.95))],
    ],
  );
  if (serverSide.wake.length) {
    console.log(
      `server clocks (agent event log, last ${serverSide.wake.length} measured cycles still retained): inbox.received → cycle.started median ${ms(median(serverSide.wake))} ms (p95 ${ms(percentile(serverSide.wake, 0.95))}); cycle.started → cycle.finished median ${ms(median(serverSide.cycle))} ms (p95 ${ms(percentile(serverSide.cycle, 0.95))}) (workerd clocks move only at I/O: coarse)`,
    );
  }
  const quarters = [];
  const quarter = Math.max(1, Math.floor(gatewaySide.latencies.length / 4));
  for (let start = 0; start + quarter <= gatewaySide.latencies.length && quarters.length < 4; start += quarter) {
    quarters.push(ms(median(gatewaySide.latencies.slice(start, start + quarter))));
  }
  console.log(`gateway median per quarter of the run (drift as consciousness grows): ${quarters.join(" → ")} ms`);

  const statements = runs.map((run) => run.d1Statements).filter((value) => typeof value === "number");
  const statuses = countBy(runs.map((run) => run.status));
  const runTotal = statements.reduce((sum, value) => sum + value, 0);
  const perCycleStats = measuredCycles ? statsDelta / measuredCycles : undefined;
  console.log("\nD1 statements per cycle:");
  console.log(
    `  run records (the cycle's own db client: run INSERT, reads, run UPDATE; not the SpaceDO's message INSERT): median ${median(statements) ?? "n/a"}, max ${percentile(statements, 1) ?? "n/a"}, min ${percentile(statements, 0) ?? "n/a"} over ${statements.length} runs`,
  );
  console.log(
    `  GET /api/stats delta / cycles (everything, end to end: the POST route, the SpaceDO's write-behind of both messages, the wake, the cycle): ${statsDelta} / ${measuredCycles} = ${perCycleStats === undefined ? "n/a" : perCycleStats.toFixed(2)} (target ≤ ${TARGET_STATEMENTS})`,
  );
  if (perCycleStats !== undefined)
    context.target({
      measure: "D1 statements per one-message cycle, end to end",
      now: perCycleStats.toFixed(2),
      target: `≤ ${TARGET_STATEMENTS}`,
      met: perCycleStats <= TARGET_STATEMENTS,
    });
  if (measuredCycles) {
    const outside = (statsDelta - runTotal) / measuredCycles;
    console.log(
      `  → outside the run records: ${outside.toFixed(2)} per cycle (the SpaceDO's multi-row upserts of the person's message and the reply, and its member reads when they changed)`,
    );
    if (statsDelta < runTotal)
      console.log("  ! the stats delta is smaller than the run records' sum: the isolate counter does not see every statement (Worker and objects in different isolates?)");
  }
  console.log(`  floor: 4 D1 writes per cycle (INSERT person's message, INSERT run, INSERT reply, UPDATE run), 0 reads`);
  console.log(`  run statuses: ${JSON.stringify(statuses)}; replies with the wrong turn's text: ${gatewaySide.mismatched}`);
  if (sample) {
    console.log(
      `  sample run JSON written by a cycle: trigger ${JSON.stringify(sample.trigger).length} B, steps ${JSON.stringify(sample.steps).length} B, toolCalls ${JSON.stringify(sample.toolCalls).length} B (the floor writes the same)`,
    );
  }
  const { gaps, duplicates, reordered } = socket.stream.seq;
  if (gaps || duplicates || reordered || socket.stream.disconnected) {
    console.log(`  ! space stream: ${gaps} seq gaps, ${duplicates} duplicates, ${reordered} reordered, disconnected ${socket.stream.disconnected}`);
  }

  const problems = [];
  if (gatewaySide.timeouts) problems.push(`${gatewaySide.timeouts} gateway cycle(s) without a reply within ${CYCLE_TIMEOUT_MS}ms`);
  if (floorSide.timeouts) problems.push(`${floorSide.timeouts} floor cycle(s) without a frame`);
  if (gatewaySide.mismatched) problems.push(`${gatewaySide.mismatched} reply(ies) carried another turn's text`);
  if ((statuses.completed ?? 0) !== runs.length) problems.push(`runs not all completed: ${JSON.stringify(statuses)}`);
  if (problems.length) throw new Error(problems.join("; "));
  context.log(`agent-cycle: ${measuredCycles} cycles measured`);
}

function countBy(values) {
  const counts = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
