#!/usr/bin/env node
/**
 * `npm run bench`: runs the benchmark modules in order against local
 * `wrangler dev` servers that this script starts on free loopback ports and
 * always stops. Each module exports `name` and `async function run(context)`;
 * add a module by adding its name (its file's, without `.mjs`) to MODULES. A
 * flag it does not know, a count that is not one, or an `--only` naming no
 * module is refused (exit 2) before anything starts. Servers start lazily, the first
 * time a module asks for them, and are shared by the modules that follow.
 *
 *   npm run bench                         every module, default sizes
 *   npm run bench -- --only space-fanout  some modules (comma-separated names)
 *   npm run bench -- --sizes 10,100 --messages 50 --warmup 5
 *   npm run bench -- --only agent-cycle,tool-roundtrip --cycles 50 --roundtrips 50 --burst-agents 10
 *   npm run bench -- --only mcp-overhead --mcp-cycles 50
 *   npm run bench -- --only startup --startups 5
 *   npm run bench -- --only peers --peer-sizes 10,100 --peer-messages 40 --peer-roundtrips 40
 *
 * Every wait is bounded; the whole run stops by itself within --budget
 * seconds (default 570). Needs Node 22 (global WebSocket): `npm run` puts the
 * project's Node 22 first on PATH.
 */
import { parseArgs } from "node:util";
import { createServers, HttpError, root, sleep } from "./servers.mjs";
import { printTable } from "./support.mjs";

/** The modules, in the order they run: each is `./<name>.mjs` and exports that `name`. */
const MODULES = ["startup", "space-fanout", "agent-cycle", "tool-roundtrip", "mcp-overhead", "peers", "patterns"];

const USAGE =
  "usage: npm run bench -- [--only a,b] [--sizes 10,100,500] [--messages 200] [--warmup 10] [--cycles 200] [--roundtrips 500]\n" +
  "                        [--burst-agents 50] [--burst-calls 20] [--burst-concurrency 100] [--mcp-cycles 100] [--startups 15]\n" +
  "                        [--peer-sizes 10,100,500] [--peer-messages 100] [--peer-roundtrips 100] [--budget 570] [--verbose] [--profile]";

/** A command line the bench cannot run: what is wrong and the usage, on stderr, exit 2, before any server starts. */
function refuse(problem) {
  console.error(`npm run bench: ${problem}\n${USAGE}`);
  process.exit(2);
}

let flags;
try {
  ({ values: flags } = parseArgs({
    options: {
      only: { type: "string" },
      sizes: { type: "string", default: "10,100,500" },
      messages: { type: "string", default: "200" },
      warmup: { type: "string", default: "10" },
      cycles: { type: "string", default: "200" },
      roundtrips: { type: "string", default: "500" },
      "burst-agents": { type: "string", default: "50" },
      "burst-calls": { type: "string", default: "20" },
      "burst-concurrency": { type: "string", default: "100" },
      "mcp-cycles": { type: "string", default: "100" },
      startups: { type: "string", default: "15" },
      "peer-sizes": { type: "string", default: "10,100,500" },
      "peer-messages": { type: "string", default: "100" },
      "peer-roundtrips": { type: "string", default: "100" },
      budget: { type: "string", default: "570" },
      verbose: { type: "boolean", default: false },
      profile: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  }));
} catch (error) {
  // parseArgs' first sentence names the option ("Unknown option '--bogus'"); the rest is advice about positionals that does not apply here.
  refuse(String(error?.message ?? error).split(". ")[0]);
}

if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}

// Counts: a whole number, at least 1 (the warm-up may be 0). A value that is not one would run as NaN and measure nothing.
const COUNTS = [
  "messages",
  "warmup",
  "cycles",
  "roundtrips",
  "burst-agents",
  "burst-calls",
  "burst-concurrency",
  "mcp-cycles",
  "startups",
  "peer-messages",
  "peer-roundtrips",
  "budget",
];
for (const name of COUNTS) {
  const value = flags[name];
  if (!/^\d+$/.test(value) || (name !== "warmup" && Number(value) === 0))
    refuse(`--${name} takes a whole number${name === "warmup" ? "" : " above 0"}, not ${JSON.stringify(value)}`);
}
if (Number(flags["burst-calls"]) > 20) refuse(`--burst-calls takes 1 to 20 (what one wait_for_results takes), not ${flags["burst-calls"]}`);
for (const name of ["sizes", "peer-sizes"]) {
  const value = flags[name];
  if (!/^\d+(,\d+)*$/.test(value) || value.split(",").some((size) => Number(size) === 0))
    refuse(`--${name} takes client counts above 0, comma-separated (10,100,500), not ${JSON.stringify(value)}`);
}
// --only names modules: one that is not a module would run nothing and still say every module finished.
const only =
  flags.only === undefined
    ? undefined
    : new Set(
        flags.only
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== ""),
      );
if (only) {
  const unknown = [...only].filter((name) => !MODULES.includes(name));
  if (only.size === 0 || unknown.length > 0) {
    refuse(`${only.size === 0 ? "--only names no module" : `--only names no module called ${unknown.join(", ")}`}; the modules are ${MODULES.join(", ")}`);
  }
}

if (typeof WebSocket !== "function" || typeof fetch !== "function") {
  console.error(`The benchmark needs Node 22 (global WebSocket); this is Node ${process.version}. Run it with \`npm run bench\`.`);
  process.exit(1);
}

const startedAt = Date.now();
const deadline = startedAt + Number(flags.budget) * 1000;

const log = (...parts) => console.log(`[bench ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(5)}s]`, ...parts);

const servers = createServers({ log, deadline, verbose: flags.verbose, unminified: flags.profile });
const cleanup = servers.cleanup;

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers`);
    cleanup().finally(() => process.exit(130));
  });
}
process.once("exit", () => {
  // Last resort if something skipped cleanup: never leave a wrangler behind.
  servers.killAll();
});
setTimeout(
  () => {
    log(`the time budget (${flags.budget}s) ran out: stopping`);
    cleanup().finally(() => process.exit(1));
  },
  deadline - Date.now() + 15_000,
).unref();

/** The performance targets, as the modules measured them: printed together at the end. */
const targets = [];

const context = {
  root,
  /**
   * Records one target: `{measure, now, target, met, why}`; `why` is the
   * measured reason when it is missed (a module prints the figures behind it).
   */
  target: (row) => targets.push(row),
  log,
  deadline,
  timeLeft: () => deadline - Date.now(),
  options: {
    sizes: flags.sizes
      .split(",")
      .map(Number)
      .filter((size) => size > 0),
    messages: Number(flags.messages),
    warmup: Number(flags.warmup),
    cycles: Number(flags.cycles),
    roundtrips: Number(flags.roundtrips),
    burstAgents: Number(flags["burst-agents"]),
    burstCalls: Number(flags["burst-calls"]),
    burstConcurrency: Number(flags["burst-concurrency"]),
    mcpCycles: Number(flags["mcp-cycles"]),
    startups: Number(flags.startups),
    peerSizes: flags["peer-sizes"]
      .split(",")
      .map(Number)
      .filter((size) => size > 0),
    peerMessages: Number(flags["peer-messages"]),
    peerRoundtrips: Number(flags["peer-roundtrips"]),
    verbose: flags.verbose,
    /** A CPU profile of the gateway's isolate during the parts that take one (the burst's resolution phase). */
    profile: flags.profile,
  },
  /** The gateway (this repo's worker) with fresh keys and a fresh database. */
  gateway: servers.gateway,
  /** The floor worker in bench/floor-worker. */
  floor: servers.floor,
  /** The Agents SDK peer in bench/peer-worker. */
  peer: servers.peer,
  sleep,
  HttpError,
};

let failures = 0;
try {
  for (const name of MODULES) {
    if (only && !only.has(name)) continue;
    const module = await import(new URL(`./${name}.mjs`, import.meta.url));
    if (context.timeLeft() <= 0) {
      log(`${name}: skipped, no time left`);
      failures += 1;
      continue;
    }
    console.log(`\n=== ${name}${module.description ? `: ${module.description}` : ""}`);
    const moduleStart = Date.now();
    try {
      await module.run(context);
      log(`${name}: done in ${((Date.now() - moduleStart) / 1000).toFixed(1)}s`);
    } catch (error) {
      failures += 1;
      console.error(`\n${name} failed: ${error?.stack ?? error}`);
    }
  }
} finally {
  log("stopping the servers");
  await cleanup();
}
if (targets.length > 0) {
  console.log("\n=== targets, this run");
  printTable(
    ["measure", "now", "target", "met"],
    targets.map((row) => [row.measure, row.now, row.target, row.met === undefined ? "n/a" : row.met ? "yes" : "no"]),
  );
  const missed = targets.filter((row) => row.met === false && row.why);
  if (missed.length > 0)
    console.log(`\nmissed, and why (measured above; docs/development.md says what was tried):\n${missed.map((row) => `  ${row.measure}: ${row.why}`).join("\n")}`);
}
log(failures ? `${failures} module(s) failed` : "all modules finished");
process.exit(failures ? 1 : 0);
