#!/usr/bin/env node
/**
 * `npm run scale-model`: the written scale model (docs/scale.md), checked.
 *
 * Inputs are the bench's per-action figures (D1 statements and object hops
 * per message, cycle, tool call and result: `npm run bench`) and Cloudflare's
 * published limits. A workload (how many people post how often, how many
 * agents answer, how many tool calls a cycle makes) is simulated second by
 * second for a simulated hour, with arrivals drawn at random (Poisson), and
 * every second's load is compared with what one D1 database and one object
 * carry. Printed: the peak and median load of each resource as a share of
 * its limit, at 1x, 10x and 100x the workload, what breaks first, and the
 * same with the database split (per-tenant databases, `--shards`).
 *
 *   npm run scale-model
 *   npm run scale-model -- --messages-per-second 20 --agents-per-space 2 --shards 8
 *
 * Deterministic: the random arrivals come from a seeded generator.
 */
import { parseArgs } from "node:util";

const { values: flags } = parseArgs({
  options: {
    // The workload at 1x.
    spaces: { type: "string", default: "200" },
    "messages-per-second": { type: "string", default: "5" },
    "agents-per-space": { type: "string", default: "1" },
    "tool-calls-per-cycle": { type: "string", default: "1" },
    "pending-share": { type: "string", default: "0.3" },
    "sockets-per-space": { type: "string", default: "5" },
    // Per-action costs, from the bench (agent-cycle: stats delta per cycle; tool-roundtrip: per round and per resolution).
    "statements-per-message": { type: "string", default: "0.5" },
    "statements-per-cycle": { type: "string", default: "2.5" },
    "statements-per-tool-call": { type: "string", default: "1" },
    "statements-per-result": { type: "string", default: "2" },
    "hops-per-message": { type: "string", default: "1" },
    "hops-per-cycle": { type: "string", default: "3" },
    // The platform: D1 runs one query at a time, so its rate is 1 / the time a statement takes.
    "d1-statement-ms": { type: "string", default: "1" },
    "object-requests-per-second": { type: "string", default: "1000" },
    shards: { type: "string", default: "1" },
    seconds: { type: "string", default: "3600" },
    seed: { type: "string", default: "42" },
  },
});
const number = (name) => Number(flags[name]);

/** A small seeded generator (mulberry32), so a run can be checked by running it again. */
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Poisson arrivals with mean `mean` (Knuth for small means, a normal approximation above 50). */
function poisson(random, mean) {
  if (mean > 50) return Math.max(0, Math.round(mean + Math.sqrt(mean) * Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random())));
  const limit = Math.exp(-mean);
  let count = 0;
  for (let product = random(); product > limit; product *= random()) count += 1;
  return count;
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};

/** One simulated hour at `scale` times the workload: per-second load on each resource. */
function simulate(scale, shards) {
  const random = generator(number("seed") + scale);
  const spaces = number("spaces") * scale;
  const rate = number("messages-per-second") * scale;
  const agentsPerSpace = number("agents-per-space");
  const callsPerCycle = number("tool-calls-per-cycle");
  const pendingShare = number("pending-share");
  const d1Capacity = 1000 / number("d1-statement-ms");
  const objectCapacity = number("object-requests-per-second");
  const d1Load = [];
  const busiestSpaceLoad = [];
  const fanoutFrames = [];
  for (let second = 0; second < number("seconds"); second += 1) {
    const messages = poisson(random, rate);
    const cycles = messages * agentsPerSpace;
    const calls = cycles * callsPerCycle;
    const results = calls * pendingShare;
    // A result starts a follow-up cycle (batched with others that arrive while one runs: at most one per result).
    const followUps = results;
    const statements =
      messages * number("statements-per-message") +
      (cycles + followUps) * number("statements-per-cycle") +
      calls * number("statements-per-tool-call") +
      results * number("statements-per-result");
    // Per-tenant databases split the statements evenly (tenants of similar size).
    d1Load.push(statements / shards / d1Capacity);
    // The busiest space this second: messages land on spaces at random; its object serves the posts, the wakes and the replies.
    let busiest = 0;
    const perSpace = new Map();
    for (let index = 0; index < messages; index += 1) {
      const space = Math.floor(random() * spaces);
      const count = (perSpace.get(space) ?? 0) + 1;
      perSpace.set(space, count);
      busiest = Math.max(busiest, count);
    }
    busiestSpaceLoad.push((busiest * (number("hops-per-message") + agentsPerSpace * number("hops-per-cycle"))) / objectCapacity);
    fanoutFrames.push(messages * (1 + agentsPerSpace) * number("sockets-per-space"));
  }
  return {
    scale,
    shards,
    d1: { median: percentile(d1Load, 0.5), p99: percentile(d1Load, 0.99), max: Math.max(...d1Load) },
    space: { median: percentile(busiestSpaceLoad, 0.5), max: Math.max(...busiestSpaceLoad) },
    framesPerSecond: percentile(fanoutFrames, 0.5),
    rate,
  };
}

const percent = (value) => `${(value * 100).toFixed(value < 0.1 ? 2 : 1)}%`;
const rows = [];
for (const shards of [1, number("shards")].filter((value, index, all) => all.indexOf(value) === index)) {
  for (const scale of [1, 10, 100]) rows.push(simulate(scale, shards));
}

console.log(
  `Workload at 1x: ${flags["messages-per-second"]} messages/s over ${flags.spaces} spaces, ${flags["agents-per-space"]} agent(s) answering each, ` +
    `${flags["tool-calls-per-cycle"]} tool call(s) a cycle (${percent(number("pending-share"))} answered later), ${flags["sockets-per-space"]} sockets a space.`,
);
console.log(
  `Costs (from the bench): message ${flags["statements-per-message"]}, cycle ${flags["statements-per-cycle"]}, tool call ${flags["statements-per-tool-call"]}, result ${flags["statements-per-result"]} D1 statements; ` +
    `D1 ${1000 / number("d1-statement-ms")} statements/s per database (${flags["d1-statement-ms"]} ms each), ${flags["object-requests-per-second"]} requests/s per object.\n`,
);
console.log("| scale | databases | messages/s | D1 load median | D1 load p99 | busiest space object (max) | frames/s (median) | first to break |");
console.log("|---|---|---|---|---|---|---|---|");
for (const row of rows) {
  const breaks = row.d1.p99 >= 1 ? "D1 (one writer)" : row.space.max >= 1 ? "the busiest space's object" : "nothing";
  console.log(
    `| ${row.scale}x | ${row.shards} | ${row.rate} | ${percent(row.d1.median)} | ${percent(row.d1.p99)} | ${percent(row.space.max)} | ${Math.round(row.framesPerSecond)} | ${breaks} |`,
  );
}
const single = rows.filter((row) => row.shards === 1);
const ceiling = single[0].rate / single[0].d1.median;
console.log(`\nOne database carries about ${Math.round(ceiling)} messages/s of this workload (its median load reaches 100% there).`);
