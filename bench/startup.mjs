/**
 * Bundle and start-up: what the Worker weighs, and how long a fresh workerd
 * takes from spawn to the first answered request, against a hello-world
 * Worker started the same way in the same run.
 *
 * Bundle. Built exactly as a deploy builds it (scripts/bundle-report.mjs:
 * `wrangler deploy --dry-run --outdir`); prints the total and the largest
 * packages. `npm run bundle:report` prints the whole report.
 *
 * Start-up. workerd itself (the binary `wrangler dev` runs, resolved from
 * wrangler's own dependencies), no wrangler and no Miniflare in between:
 * this script writes a workerd config for the deploy bundle (the gateway's
 * compatibility date and flags, its two Durable Object classes with SQLite
 * storage in memory, its vars and four generated secrets) and one for
 * bench/hello-worker (same date and flags, nothing else). D1, R2 and the
 * static assets are left out: module evaluation never touches a binding, and
 * `GET /health` needs none. Each start, alternating hello-world and gateway
 * after two unmeasured pairs:
 *   spawn → listening    workerd reports its port on `--control-fd` (an
 *                        event, no polling); workerd compiles and evaluates
 *                        every Worker module before it listens
 *   spawn → answered     the first `GET /health` answer has been read
 *   CPU to listening     workerd's CPU time (all threads, /proc schedstat)
 *                        at the listen event: steadier than wall time on a
 *                        busy machine
 *   RSS                  workerd's resident memory after the first answer
 *   second request       a second `GET /health` on the warm process
 * Module evaluation, two ways: the listen-time difference above (gateway −
 * hello-world), and `import()` of the deploy bundle in a fresh Node 22 (the
 * same V8 engine family) with `cloudflare:workers` stubbed, timed around the
 * import: parse, compile and top-level evaluation of every module, nothing
 * else.
 */
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { bundleReport } from "../scripts/bundle-report.mjs";
import { median, ms, percentile, printTable, ratio, residentKiB } from "./support.mjs";

export const name = "startup";
export const description = "the deploy bundle's size, and a fresh workerd from spawn to the first answered GET /health, vs a hello-world Worker";

const WARMUP_PAIRS = 2;
const START_TIMEOUT_MS = 30_000;
const EVALUATIONS = 9;

export async function run(context) {
  const { startups } = context.options;
  const directory = mkdtempSync(join(tmpdir(), "switchboard-bench-startup-"));
  try {
    context.log("startup: building the Worker as a deploy does (wrangler deploy --dry-run)");
    const bundleDirectory = join(directory, "bundle");
    const report = await bundleReport({ outdir: bundleDirectory });
    const kib = (bytes) => (bytes / 1024).toFixed(1);
    console.log(`\nbundle: ${report.modules.length} module file(s), ${kib(report.total.raw)} KiB, ${kib(report.total.gzip)} KiB gzip (target ≤ 450 KiB gzip)`);
    console.log(
      `largest: ${report.byPackage
        .slice(0, 8)
        .map((entry) => `${entry.name} ${kib(entry.gzip ?? 0)}`)
        .join(", ")} (KiB gzip; npm run bundle:report for all)`,
    );
    const gzipKiB = report.total.gzip / 1024;
    context.target({ measure: "bundle, gzip", now: `${gzipKiB.toFixed(1)} KiB`, target: "≤ 450 KiB", met: gzipKiB <= 450, why: "npm run bundle:report says what is in it" });
    if (report.duplicates.length) console.log(`in the bundle twice: ${report.duplicates.map((duplicate) => duplicate.name).join(", ")}`);

    const workerd = workerdBinary();
    const gatewayConfig = writeGatewayConfig(context.root, directory, report.moduleFiles);
    const helloConfig = writeWorkerdConfig(directory, "hello", {
      ...readWranglerConfig(context.root),
      modules: [join(context.root, "bench", "hello-worker", "index.js")],
      durableObjects: [],
      bindings: {},
    });

    context.log(`startup: ${WARMUP_PAIRS} unmeasured + ${startups} measured starts of each, alternating (${basename(workerd)} ${workerdVersion(workerd)})`);
    const samples = { hello: [], gateway: [] };
    for (let index = 0; index < WARMUP_PAIRS + startups; index += 1) {
      if (context.timeLeft() < 30_000) {
        context.log("startup: stopping early, the time budget is nearly spent");
        break;
      }
      const hello = await startOnce(workerd, helloConfig, "/");
      const gateway = await startOnce(workerd, gatewayConfig, "/health");
      // 503 is the gateway's own answer too: this bare workerd binds no D1, R2 or objects, which /health reports.
      if (gateway.status !== 200 && !(gateway.status === 503 && gateway.body.includes('"misconfigured"'))) {
        throw new Error(`the gateway answered GET /health with ${gateway.status}: ${gateway.body.slice(0, 300)}`);
      }
      if (index < WARMUP_PAIRS) continue;
      samples.hello.push(hello);
      samples.gateway.push(gateway);
    }

    const row = (label, values, unit = ms) => [label, values.length, unit(median(values)), unit(percentile(values, 0.95))];
    const pick = (side, field) => samples[side].map((sample) => sample[field]).filter((value) => value !== undefined);
    printTable(
      ["fresh workerd", "n", "median", "p95"],
      [
        row("hello-world: spawn → listening (ms)", pick("hello", "listening")),
        row("gateway: spawn → listening (ms)", pick("gateway", "listening")),
        row("hello-world: spawn → GET / answered (ms)", pick("hello", "answered")),
        row("gateway: spawn → GET /health answered (ms)", pick("gateway", "answered")),
        row("hello-world: workerd CPU to listening (ms)", pick("hello", "cpuToListen")),
        row("gateway: workerd CPU to listening (ms)", pick("gateway", "cpuToListen")),
        row("hello-world: second request (ms)", pick("hello", "second")),
        row("gateway: second GET /health (ms)", pick("gateway", "second")),
        row("hello-world: RSS after the answer (MiB)", pick("hello", "rssKiB"), mebibytes),
        row("gateway: RSS after the answer (MiB)", pick("gateway", "rssKiB"), mebibytes),
      ],
    );
    const answered = { gateway: median(pick("gateway", "answered")), hello: median(pick("hello", "answered")) };
    const listening = { gateway: median(pick("gateway", "listening")), hello: median(pick("hello", "listening")) };
    console.log(`start-up, spawn → first answer: gateway ${ms(answered.gateway)} ms, hello-world ${ms(answered.hello)} ms, ratio ${ratio(answered.gateway, answered.hello)}`);
    context.target({
      measure: "start-up, fresh workerd → first answered request, gateway / hello-world",
      now: `${ms(answered.gateway)} / ${ms(answered.hello)} ms = ${ratio(answered.gateway, answered.hello)}`,
      target: "measured",
    });
    console.log(`the gateway's modules, compiled and evaluated by workerd before it listens: ${ms(listening.gateway - listening.hello)} ms (listening, gateway − hello-world)`);

    const evaluation = evaluateInNode(directory, report.moduleFiles, context);
    if (evaluation) {
      console.log(
        `the deploy bundle's import() in a fresh Node ${process.versions.node} (V8 ${process.versions.v8}), cloudflare:workers stubbed, ${evaluation.wall.length} runs: median ${ms(median(evaluation.wall))} ms wall, ${ms(median(evaluation.cpu))} ms CPU`,
      );
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const mebibytes = (kib) => (kib === undefined ? "n/a" : (kib / 1024).toFixed(1));

/** The workerd binary wrangler runs (its own dependency, so the versions match). */
function workerdBinary() {
  const wranglerRequire = createRequire(createRequire(import.meta.url).resolve("wrangler"));
  const workerd = wranglerRequire("workerd");
  return workerd.default ?? workerd;
}

function workerdVersion(binary) {
  try {
    return execFileSync(binary, ["--version"], { encoding: "utf8", timeout: 10_000 }).trim();
  } catch {
    return "version unknown";
  }
}

/** The gateway's compatibility settings, Durable Object classes and vars, from wrangler.toml. */
function readWranglerConfig(root) {
  const wranglerRequire = createRequire(join(root, "package.json"));
  const { unstable_readConfig } = wranglerRequire("wrangler");
  const config = unstable_readConfig({ config: join(root, "wrangler.toml") }, { hideWarnings: true });
  const sqlite = new Set(config.migrations.flatMap((migration) => migration.new_sqlite_classes ?? []));
  return {
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags ?? [],
    durableObjects: config.durable_objects.bindings.map((binding) => ({ className: binding.class_name, sqlite: sqlite.has(binding.class_name) })),
    bindings: Object.fromEntries(Object.entries(config.vars ?? {}).map(([name, value]) => [name, typeof value === "string" ? value : JSON.stringify(value)])),
  };
}

function writeGatewayConfig(root, directory, moduleFiles) {
  const config = readWranglerConfig(root);
  const secrets = ["GATEWAY_SECRET_KEY", "GATEWAY_PUBLIC_KEY", "JWT_SECRET", "WEBHOOK_SECRET"];
  for (const secret of secrets) config.bindings[secret] = `startup-bench-${secret.toLowerCase()}-${"x".repeat(32)}`;
  return writeWorkerdConfig(directory, "gateway", { ...config, modules: moduleFiles.filter((file) => /\.m?js$/.test(file)) });
}

/** Writes a workerd config (capnp text) serving one Worker on an ephemeral loopback port. */
function writeWorkerdConfig(directory, label, { compatibilityDate, compatibilityFlags, durableObjects, bindings, modules }) {
  const text = (value) => JSON.stringify(value);
  // capnp embeds files relative to the config: copy the modules beside it.
  mkdirSync(join(directory, label), { recursive: true });
  const moduleEntries = modules.map((file, index) => {
    const name = index === 0 ? "index.js" : basename(file);
    copyFileSync(file, join(directory, label, name));
    return `(name = ${text(name)}, esModule = embed ${text(`${label}/${name}`)})`;
  });
  const lines = [
    `using Workerd = import "/workerd/workerd.capnp";`,
    `const config :Workerd.Config = (`,
    `  services = [ (name = "main", worker = .worker) ],`,
    `  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],`,
    `);`,
    `const worker :Workerd.Worker = (`,
    `  modules = [ ${moduleEntries.join(", ")} ],`,
    `  compatibilityDate = ${text(compatibilityDate)},`,
    `  compatibilityFlags = [ ${compatibilityFlags.map(text).join(", ")} ],`,
    `  bindings = [ ${Object.entries(bindings)
      .map(([name, value]) => `(name = ${text(name)}, text = ${text(value)})`)
      .join(", ")} ],`,
  ];
  if (durableObjects.length) {
    lines.push(
      `  durableObjectNamespaces = [ ${durableObjects.map((object) => `(className = ${text(object.className)}, uniqueKey = ${text(`startup-${object.className}`)}, enableSql = ${object.sqlite})`).join(", ")} ],`,
    );
    lines.push(`  durableObjectStorage = (inMemory = void),`);
  }
  lines.push(`);`);
  const file = join(directory, `${label}.capnp`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/**
 * Starts workerd on `configFile`, waits for its listen event, reads the
 * first answer of GET `path`, then a second one, and stops it. Resolves the
 * times (ms from just before the spawn), CPU and memory.
 */
async function startOnce(binary, configFile, path) {
  const started = performance.now();
  const child = spawn(binary, ["serve", configFile, "--control-fd=3"], { stdio: ["ignore", "ignore", "pipe", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk) => (errors = (errors + chunk).slice(-4000)));
  try {
    const port = await new Promise((resolvePort, reject) => {
      let control = "";
      const timer = setTimeout(() => reject(new Error(`workerd did not listen within ${START_TIMEOUT_MS} ms:\n${errors}`)), START_TIMEOUT_MS);
      child.stdio[3].on("data", (chunk) => {
        control += chunk;
        for (const line of control.split("\n")) {
          try {
            const message = JSON.parse(line);
            if (message.event === "listen" && message.socket === "http") {
              clearTimeout(timer);
              resolvePort(message.port);
            }
          } catch {
            // An incomplete line: wait for the rest.
          }
        }
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`workerd exited (${code ?? signal}) before listening:\n${errors}`));
      });
    });
    const listening = performance.now() - started;
    const cpuToListen = cpuMilliseconds(child.pid);
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(START_TIMEOUT_MS) });
    const body = await response.text();
    const answered = performance.now() - started;
    const rssKiB = residentKiB(child.pid);
    const secondStart = performance.now();
    await (await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(START_TIMEOUT_MS) })).arrayBuffer();
    const second = performance.now() - secondStart;
    return { status: response.status, body, listening, answered, cpuToListen, rssKiB, second };
  } finally {
    await stop(child);
  }
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolveExit) => child.once("exit", resolveExit));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/** CPU time of every thread of `pid` so far (Linux /proc schedstat, ns resolution); undefined elsewhere. */
function cpuMilliseconds(pid) {
  try {
    let total = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    return total / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * `import()` of the deploy bundle in fresh Node processes, `cloudflare:workers`
 * replaced by a stub (the bundle only takes `DurableObject` from it). Resolves
 * `{wall, cpu}` lists in ms, or undefined if the bundle cannot load in Node.
 */
function evaluateInNode(directory, moduleFiles, context) {
  const folder = join(directory, "node-evaluation");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "cloudflare-workers.mjs"), "export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }\n");
  for (const file of moduleFiles.filter((path) => /\.m?js$/.test(path))) {
    writeFileSync(join(folder, basename(file).replace(/\.js$/, ".mjs")), readFileSync(file, "utf8").replaceAll('"cloudflare:workers"', '"./cloudflare-workers.mjs"'));
  }
  const entry = join(folder, basename(moduleFiles[0]).replace(/\.js$/, ".mjs"));
  writeFileSync(
    join(folder, "time-import.mjs"),
    "const started = performance.now();\nconst cpu = process.cpuUsage();\nawait import(process.argv[2]);\nconst used = process.cpuUsage(cpu);\nconsole.log(JSON.stringify({ wall: performance.now() - started, cpu: (used.user + used.system) / 1000 }));\n",
  );
  const wall = [];
  const cpu = [];
  try {
    for (let index = 0; index < EVALUATIONS + 1; index += 1) {
      const sample = JSON.parse(execFileSync(process.execPath, [join(folder, "time-import.mjs"), entry], { encoding: "utf8", timeout: 60_000 }));
      if (index === 0) continue; // the first run warms the file cache
      wall.push(sample.wall);
      cpu.push(sample.cpu);
    }
    return { wall, cpu };
  } catch (error) {
    context.log(`startup: the bundle does not load in Node, so its evaluation is not measured there (${String(error?.message ?? error).split("\n")[0]})`);
    return undefined;
  }
}
