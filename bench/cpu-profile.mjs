/**
 * A CPU profile of the gateway's isolate while a bench part runs, through
 * the inspector `wrangler dev` opens (`--inspector-port`, Chrome DevTools
 * protocol): `Profiler.start` before, `Profiler.stop` after, then the
 * functions with the most self time, and the same summed per source file.
 * Under `wrangler dev` the Worker and all its Durable Objects run in one
 * isolate, so one profile sees the route, the objects and the cycles alike.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Starts sampling; `stop()` resolves the profile's summary, and writes the whole profile to a temporary file (`path`). */
export async function startCpuProfile(inspectorPort, { samplingIntervalUs = 200 } = {}) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const target = targets.find((entry) => entry.webSocketDebuggerUrl) ?? targets[0];
  if (!target?.webSocketDebuggerUrl) throw new Error(`no inspector target on port ${inspectorPort}: ${JSON.stringify(targets)}`);
  // wrangler's inspector proxy wants an Origin (it serves DevTools); Node's WebSocket takes headers as an option.
  const socket = new WebSocket(target.webSocketDebuggerUrl, { headers: { origin: "https://devtools.devprod.cloudflare.dev" } });
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", () => reject(new Error("could not connect to the inspector")), { once: true });
  });
  // Answers carry our request's id (the proxy's own requests use ids from 100000000 up).
  const waiting = new Map();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data));
    const done = waiting.get(message.id);
    if (done) {
      waiting.delete(message.id);
      done(message);
    }
  });
  let nextId = 1;
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => reject(new Error(`inspector: ${method} timed out`)), 60_000);
      waiting.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`inspector: ${method}: ${message.error.message}`));
        else resolve(message.result);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: samplingIntervalUs });
  await send("Profiler.start");
  return {
    async stop() {
      const { profile } = await send("Profiler.stop");
      socket.close();
      // The whole profile too, for Chrome DevTools (Performance → load profile) or your own analysis.
      const path = join(tmpdir(), `switchboard-${Date.now()}.cpuprofile`);
      writeFileSync(path, JSON.stringify(profile));
      return { ...summarize(profile), path };
    },
  };
}

/** Self time per function and per file, from a V8 CPU profile. */
export function summarize(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfSamples = new Map();
  for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const durationMs = (profile.endTime - profile.startTime) / 1000;
  const perFunction = new Map();
  const perFile = new Map();
  for (const [id, count] of selfSamples) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const file = (frame.url || "(native)").replace(/^.*\/(node_modules\/[^/]+(?:\/[^/]+)?)\/.*$/, "$1").replace(/^.*\/(src\/.*)$/, "$1");
    const name = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
    perFunction.set(name, (perFunction.get(name) ?? 0) + count);
    perFile.set(file, (perFile.get(file) ?? 0) + count);
  }
  const top = (map, limit) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, count]) => ({ name, share: count / total, ms: (count / total) * durationMs }));
  // Inclusive time: every sample counts once for each function on its stack (the gateway's own code, named).
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const inclusive = new Map();
  for (const [id, count] of selfSamples) {
    const seen = new Set();
    for (let current = id; current !== undefined; current = parentOf.get(current)) {
      const frame = byId.get(current)?.callFrame;
      if (!frame?.functionName || frame.url.startsWith("cloudflare-internal") || !frame.url) continue;
      const name = `${frame.functionName} :${frame.lineNumber + 1}`;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + count);
    }
  }
  const idle = ["(idle)", "(program)", "(garbage collector)"].map((name) =>
    [...perFunction.entries()].filter(([key]) => key.startsWith(`${name} `)).reduce((sum, [, count]) => sum + count, 0),
  );
  return {
    durationMs,
    samples: total,
    idleShare: idle[0] / total,
    programShare: idle[1] / total,
    gcShare: idle[2] / total,
    functions: top(perFunction, 15),
    files: top(perFile, 12),
    inclusive: top(inclusive, 30),
  };
}

/** Prints a summary as two short tables. */
export function printProfile(summary, print = console.log) {
  const percent = (value) => `${(value * 100).toFixed(1)}%`;
  print(
    `\nCPU profile of the gateway isolate: ${summary.samples} samples over ${(summary.durationMs / 1000).toFixed(1)} s; idle ${percent(summary.idleShare)}, program ${percent(summary.programShare)}, GC ${percent(summary.gcShare)}`,
  );
  print("  self time by file:");
  for (const entry of summary.files) print(`    ${percent(entry.share).padStart(6)}  ${entry.name}`);
  print("  self time by function:");
  for (const entry of summary.functions) print(`    ${percent(entry.share).padStart(6)}  ${entry.name}`);
  print("  time including callees (named functions of the bundle):");
  for (const entry of summary.inclusive) print(`    ${percent(entry.share).padStart(6)}  ${entry.name}`);
  if (summary.path) print(`  the whole profile: ${summary.path}`);
}
