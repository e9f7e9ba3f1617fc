/**
 * Space fan-out: how long one message takes to reach every live client of a
 * space, against the floor of a bare Durable Object doing nothing but
 * `socket.send` to the same number of hibernatable WebSockets.
 *
 * For each N: N WebSocket clients on one space's stream (public key + a JWT of
 * a member, in the query string, as browsers must), then messages posted one
 * at a time with the secret key; a message's latency is from just before its
 * POST to the moment the last of the N clients has its `space.message` event.
 * The floor gets the same N clients and frames of the same size. Gateway and
 * floor alternate in batches so that machine noise hits both alike. Every
 * client checks that `seq` arrives gap-free, in order and once; a final fence
 * message turns any loss at the tail into a visible gap.
 */
import { randomBytes } from "node:crypto";

export const name = "space-fanout";
export const description = "time until all N WebSocket clients of a space have a message";

const OPEN_CONCURRENCY = 50;
const OPEN_TIMEOUT_MS = 15_000;
const MESSAGE_TIMEOUT_MS = 10_000;
const BATCH_SIZE = 20;
/** Stop a size early after this many messages that did not reach everyone. */
const MAX_TIMEOUTS = 5;
/** The floor's frame size when there is no gateway frame to copy. */
const DEFAULT_FRAME_LENGTH = 400;

export async function run(context) {
  const { sizes, messages, warmup } = context.options;
  const [gatewayStart, floorStart] = await Promise.allSettled([context.gateway(), context.floor()]);
  if (floorStart.status === "rejected") throw floorStart.reason;
  const floor = floorStart.value;
  const gateway = gatewayStart.status === "fulfilled" ? await prepareGateway(context, gatewayStart.value) : undefined;
  if (gatewayStart.status === "rejected") context.log(`gateway unavailable, measuring the floor only: ${gatewayStart.reason?.message ?? gatewayStart.reason}`);

  const rows = [];
  const errors = [];
  for (const size of sizes) {
    if (context.timeLeft() < 30_000) {
      context.log(`N=${size}: skipped, the time budget is nearly spent`);
      break;
    }
    try {
      rows.push(await measureSize(context, { size, messages, warmup, gateway, floor }));
    } catch (error) {
      context.log(`N=${size} failed: ${error?.message ?? error}`);
      errors.push(`N=${size}: ${error?.message ?? error}`);
    }
  }
  printTable(rows);
  for (const [size, limit, why] of [
    [10, 1.5, "a fixed cost per message (auth, the Worker → SpaceDO hop, the message's SQLite write before its broadcast), large next to a 10-client floor"],
    [
      500,
      1.1,
      "the gateway's extra grows with N (about 3 ms at N = 10, 6–10 ms at N = 500) though its per-socket loop does what the floor's does (each socket's attachment is read once per wake); not the write-behind (flushes held back 4 s: 1.16x); the Agents SDK's broadcast measures 1.08–1.10x against the same floor (peers)",
    ],
  ]) {
    const row = rows.find((entry) => entry.size === size);
    const gatewayMedian = row && percentile(row.gateway.latencies, 0.5);
    const floorMedian = row && percentile(row.floor.latencies, 0.5);
    if (gatewayMedian === undefined || !floorMedian) continue;
    const value = gatewayMedian / floorMedian;
    context.target({
      measure: `fan-out, N = ${size}, gateway / bare DO`,
      now: `${gatewayMedian.toFixed(1)} / ${floorMedian.toFixed(1)} ms = ${value.toFixed(2)}x`,
      target: `≤ ${limit.toFixed(2)}x`,
      met: value <= limit,
      why,
    });
  }
  if (!gateway) throw new Error("the gateway part did not run (see above)");
  if (errors.length) throw new Error(errors.join("\n"));
  const broken = rows.filter((row) => row.gateway.lost || row.gateway.reordered || row.gateway.duplicates || row.gateway.timeouts || row.gateway.disconnected);
  if (broken.length) throw new Error(`delivery problems at N=${broken.map((row) => row.size).join(", ")}`);
}

/** Checks the routes exist, then makes the two entities every size uses. */
async function prepareGateway(context, server) {
  try {
    const listener = await server.api("POST", "/api/entities", { type: "human", name: "bench listener" });
    const sender = await server.api("POST", "/api/entities", { type: "human", name: "bench sender" });
    return { server, listener, sender, token: server.signToken(listener.id, 3600) };
  } catch (error) {
    context.log(`gateway answers, but not with the documented routes yet: ${error.message}`);
    return undefined;
  }
}

async function measureSize(context, { size, messages, warmup, gateway, floor }) {
  const runId = randomBytes(4).toString("hex");
  const target = { gateway: undefined, floor: undefined };
  const row = { size, gateway: emptyResult(), floor: emptyResult() };
  try {
    if (gateway) {
      const space = await gateway.server.api("POST", "/api/spaces", {
        name: `bench fan-out ${size} ${runId}`,
        memberIds: [gateway.listener.id, gateway.sender.id],
      });
      const query = new URLSearchParams({ publicKey: gateway.server.publicKey, token: gateway.token });
      const url = `${gateway.server.wsBaseUrl}/api/spaces/${space.id}/stream?${query}`;
      target.gateway = await openClients(context, "gateway", url, size, gatewayMarker);
      target.gateway.post = async (marker) => {
        await gateway.server.api("POST", `/api/spaces/${space.id}/messages`, { text: marker, entityId: gateway.sender.id });
      };
    }
    const room = `fanout-${size}-${runId}`;
    target.floor = await openClients(context, "floor", `${floor.wsBaseUrl}/rooms/${room}`, size, floorMarker);
    let floorSeq = 0;
    let frameLength = 0;
    target.floor.post = async (marker) => {
      floorSeq += 1;
      const response = await fetch(`${floor.baseUrl}/rooms/${room}/broadcast`, {
        method: "POST",
        body: floorFrame(floorSeq, marker, frameLength || DEFAULT_FRAME_LENGTH),
        signal: AbortSignal.timeout(MESSAGE_TIMEOUT_MS),
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`floor broadcast → ${response.status}`);
    };

    context.log(`N=${size}: ${warmup} warm-up + ${messages} messages each${gateway ? ", gateway and floor alternating" : ", floor only"}`);
    const plan = [];
    if (target.gateway) plan.push(["gateway", warmup, false]);
    plan.push(["floor", warmup, false]);
    for (let sent = 0; sent < messages; sent += BATCH_SIZE) {
      const count = Math.min(BATCH_SIZE, messages - sent);
      if (target.gateway) plan.push(["gateway", count, true]);
      plan.push(["floor", count, true]);
    }
    for (const [side, count, measured] of plan) {
      if (context.timeLeft() < 20_000) {
        context.log(`N=${size}: stopping early, the time budget is nearly spent`);
        break;
      }
      const result = row[side];
      if (result.timeouts >= MAX_TIMEOUTS) continue;
      for (let index = 0; index < count && result.timeouts < MAX_TIMEOUTS; index += 1) {
        // A client the server dropped can never complete a delivery again.
        if (target[side].disconnected > 0) break;
        const latency = await deliver(target[side], `${side}-${size}-${runId}-${result.sent}`);
        result.sent += 1;
        if (latency === undefined) result.timeouts += 1;
        else if (measured) result.latencies.push(latency);
      }
      // The floor's frame matches the size of the gateway's event frame.
      if (side === "gateway" && !frameLength) frameLength = target.gateway.frameLength;
    }
    // The fence: a lost message at the tail shows up as a gap before it.
    for (const side of ["gateway", "floor"]) {
      if (target[side] && (await deliver(target[side], `${side}-${size}-${runId}-fence`)) === undefined) row[side].timeouts += 1;
    }
  } finally {
    for (const side of ["gateway", "floor"]) {
      if (!target[side]) continue;
      Object.assign(row[side], target[side].integrity());
      row[side].frameLength = target[side].frameLength;
      await target[side].close();
    }
  }
  return row;
}

function emptyResult() {
  return { sent: 0, latencies: [], timeouts: 0, lost: 0, reordered: 0, duplicates: 0, malformed: 0, disconnected: 0, frameLength: 0 };
}

const gatewayMarker = (frame) => (frame.type === "space.message" ? frame.data?.text : undefined);
const floorMarker = (frame) => (frame.type === "floor" ? frame.text : undefined);

/** A floor frame shaped like an event, padded to `length` characters. */
function floorFrame(seq, marker, length) {
  const bare = JSON.stringify({ seq, type: "floor", text: marker, pad: "" });
  return JSON.stringify({ seq, type: "floor", text: marker, pad: "x".repeat(Math.max(0, length - bare.length)) });
}

/**
 * Opens `size` clients on `url`; each frame is JSON, and `markerOf(frame)`
 * names the benchmark message it carries, if any. With `seqs` (the default)
 * every frame must carry a `seq`, and `integrity()` counts what was lost,
 * reordered or doubled; without, frames are only matched by their marker
 * (peers.mjs, whose Agents SDK frames have none).
 */
export async function openClients(context, label, url, size, markerOf, { seqs = true } = {}) {
  const sockets = [];
  const tracks = [];
  const waiting = new Map();
  let frameLength = 0;
  let closing = false;
  let disconnected = 0;

  const onFrame = (clientIndex, data) => {
    const at = performance.now();
    const track = tracks[clientIndex];
    let frame;
    try {
      frame = JSON.parse(typeof data === "string" ? data : Buffer.from(data).toString("utf8"));
    } catch {
      track.malformed += 1;
      return;
    }
    if (seqs) {
      if (!Number.isInteger(frame?.seq)) {
        track.malformed += 1;
        return;
      }
      track.observe(frame.seq);
    }
    const marker = markerOf(frame);
    const entry = marker === undefined ? undefined : waiting.get(marker);
    if (!entry || entry.received[clientIndex]) return;
    entry.received[clientIndex] = 1;
    entry.remaining -= 1;
    if (!frameLength && typeof data === "string") frameLength = data.length;
    if (entry.remaining === 0) entry.done(at);
  };

  const openOne = (clientIndex) =>
    new Promise((resolveOpen, reject) => {
      const socket = new WebSocket(url);
      sockets[clientIndex] = socket;
      tracks[clientIndex] = new SeqTrack();
      const timer = setTimeout(() => reject(new Error(`${label}: client ${clientIndex} did not open within ${OPEN_TIMEOUT_MS}ms`)), OPEN_TIMEOUT_MS);
      socket.addEventListener("open", () => {
        clearTimeout(timer);
        resolveOpen();
      });
      socket.addEventListener("error", () => {
        clearTimeout(timer);
        reject(new Error(`${label}: WebSocket to ${url.replace(/token=[^&]+/, "token=…")} failed`));
      });
      socket.addEventListener("message", (event) => onFrame(clientIndex, event.data));
      socket.addEventListener("close", () => {
        if (!closing) disconnected += 1;
      });
    });

  const close = async () => {
    closing = true;
    const closed = sockets.map(
      (socket) =>
        new Promise((resolveClose) => {
          if (!socket || socket.readyState === WebSocket.CLOSED) return resolveClose();
          socket.addEventListener("close", () => resolveClose());
          try {
            socket.close(1000, "bench done");
          } catch {
            resolveClose();
          }
        }),
    );
    await Promise.race([Promise.all(closed), context.sleep(5_000)]);
  };

  const opening = performance.now();
  try {
    for (let first = 0; first < size; first += OPEN_CONCURRENCY) {
      const batch = [];
      for (let clientIndex = first; clientIndex < Math.min(size, first + OPEN_CONCURRENCY); clientIndex += 1) batch.push(openOne(clientIndex));
      await Promise.all(batch);
    }
  } catch (error) {
    await close();
    throw await explainUpgradeFailure(error, url);
  }
  context.log(`N=${size}: ${label} clients open in ${Math.round(performance.now() - opening)}ms`);

  return {
    size,
    get frameLength() {
      return frameLength;
    },
    get disconnected() {
      return disconnected;
    },
    waiting,
    post: undefined,
    close,
    integrity() {
      const totals = { lost: 0, reordered: 0, duplicates: 0, malformed: 0, disconnected };
      for (const track of tracks) {
        totals.lost += track.missing.size;
        totals.reordered += track.reordered;
        totals.duplicates += track.duplicates;
        totals.malformed += track.malformed;
      }
      return totals;
    },
  };
}

/** The WebSocket API hides the status of a refused upgrade: ask over HTTP. */
async function explainUpgradeFailure(error, url) {
  try {
    const response = await fetch(url.replace(/^ws/, "http"), {
      headers: { upgrade: "websocket", connection: "upgrade", "sec-websocket-version": "13", "sec-websocket-key": randomBytes(16).toString("base64") },
      signal: AbortSignal.timeout(5_000),
    });
    const body = await response.text();
    return new Error(`${error.message} (upgrade answered ${response.status} ${body.slice(0, 300)})`);
  } catch {
    return error;
  }
}

/**
 * Posts one message and resolves the milliseconds until every client had it,
 * or undefined when some client still lacked it after MESSAGE_TIMEOUT_MS.
 */
async function deliver(target, marker) {
  let done;
  const delivered = new Promise((resolveDelivered) => (done = resolveDelivered));
  const entry = { remaining: target.size, received: new Uint8Array(target.size), done };
  target.waiting.set(marker, entry);
  let timer;
  const timedOut = new Promise((resolveTimeout) => (timer = setTimeout(() => resolveTimeout(undefined), MESSAGE_TIMEOUT_MS)));
  const start = performance.now();
  try {
    const posted = target.post(marker);
    const [finishedAt] = await Promise.all([Promise.race([delivered, timedOut]), Promise.race([posted, timedOut])]);
    return finishedAt === undefined ? undefined : finishedAt - start;
  } finally {
    clearTimeout(timer);
    target.waiting.delete(marker);
  }
}

/** One client's view of a sequence: the first seq seen sets the baseline. */
class SeqTrack {
  last = undefined;
  seen = new Set();
  missing = new Set();
  reordered = 0;
  duplicates = 0;
  malformed = 0;

  observe(seq) {
    if (this.seen.has(seq)) {
      this.duplicates += 1;
      return;
    }
    this.seen.add(seq);
    if (this.last === undefined || seq === this.last + 1) {
      this.last = seq;
    } else if (seq > this.last + 1) {
      for (let gap = this.last + 1; gap < seq; gap += 1) this.missing.add(gap);
      this.last = seq;
    } else {
      this.reordered += 1;
      this.missing.delete(seq);
    }
  }
}

function percentile(values, fraction) {
  if (!values.length) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

function printTable(rows) {
  const format = (value) => (value === undefined ? "n/a" : value.toFixed(1));
  const header = ["N", "gateway median ms", "gateway p95 ms", "floor median ms", "floor p95 ms", "ratio", "lost", "reordered", "dup", "frame bytes"];
  const lines = rows.map((row) => {
    const gatewayMedian = percentile(row.gateway.latencies, 0.5);
    const floorMedian = percentile(row.floor.latencies, 0.5);
    return [
      String(row.size),
      format(gatewayMedian),
      format(percentile(row.gateway.latencies, 0.95)),
      format(floorMedian),
      format(percentile(row.floor.latencies, 0.95)),
      gatewayMedian === undefined || !floorMedian ? "n/a" : `${(gatewayMedian / floorMedian).toFixed(2)}x`,
      String(row.gateway.lost),
      String(row.gateway.reordered),
      String(row.gateway.duplicates),
      String(row.gateway.frameLength || row.floor.frameLength),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const render = (cells) => cells.map((cell, column) => cell.padStart(widths[column])).join("  ");
  console.log(`\n${render(header)}\n${widths.map((width) => "-".repeat(width)).join("  ")}`);
  for (const line of lines) console.log(render(line));
  for (const row of rows) {
    const notes = [];
    for (const side of ["gateway", "floor"]) {
      const result = row[side];
      if (result.timeouts) notes.push(`${side}: ${result.timeouts} message(s) not delivered to every client within ${MESSAGE_TIMEOUT_MS}ms`);
      if (result.disconnected) notes.push(`${side}: ${result.disconnected} client(s) disconnected by the server during the run`);
      if (result.malformed) notes.push(`${side}: ${result.malformed} frame(s) without a JSON seq`);
      if (side === "floor" && (result.lost || result.reordered || result.duplicates)) {
        notes.push(`floor: lost ${result.lost}, reordered ${result.reordered}, dup ${result.duplicates}`);
      }
    }
    if (notes.length) console.log(`N=${row.size}: ${notes.join("; ")}`);
  }
  console.log("(latency: from just before the POST until the last of N clients has the frame; lost/reordered/dup: gateway seq checks summed over clients)");
}
