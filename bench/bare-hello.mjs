#!/usr/bin/env node
/**
 * The soak's reference without wrangler: bench/hello-worker (`fetch` answers
 * `ok`) in a bare workerd (the binary `wrangler dev` runs, with a config this
 * script writes: no proxy, no Miniflare entry worker), driven with plain GETs
 * in four equal rounds, 4 in flight, its RSS read from /proc after each round.
 * Compare with `npm run soak -- --target hello`, the same Worker under
 * `wrangler dev` (docs/development.md, "npm run soak").
 *
 *   node bench/bare-hello.mjs              # 12,000 requests
 *   node bench/bare-hello.mjs --requests 40000
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values: flags } = parseArgs({ options: { requests: { type: "string", default: "12000" } } });
const total = Number(flags.requests);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wranglerRequire = createRequire(createRequire(join(root, "package.json")).resolve("wrangler"));
const workerd = wranglerRequire("workerd");
const binary = workerd.default ?? workerd;

const directory = mkdtempSync(join(tmpdir(), "switchboard-bare-hello-"));
copyFileSync(join(root, "bench", "hello-worker", "index.js"), join(directory, "index.js"));
writeFileSync(
  join(directory, "hello.capnp"),
  [
    `using Workerd = import "/workerd/workerd.capnp";`,
    `const config :Workerd.Config = ( services = [ (name = "main", worker = .worker) ], sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ] );`,
    `const worker :Workerd.Worker = ( modules = [ (name = "index.js", esModule = embed "index.js") ], compatibilityDate = "2026-08-01", compatibilityFlags = [ "nodejs_compat" ] );`,
  ].join("\n"),
);

const child = spawn(binary, ["serve", join(directory, "hello.capnp"), "--control-fd=3"], { stdio: ["ignore", "ignore", "pipe", "pipe"] });
const rssMiB = () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
let exitCode = 0;
try {
  // workerd reports its port on the control fd when it listens.
  const port = await new Promise((resolvePort, reject) => {
    let control = "";
    const timer = setTimeout(() => reject(new Error("workerd did not listen within 30 s")), 30_000);
    child.stdio[3].on("data", (chunk) => {
      control += chunk;
      for (const line of control.split("\n")) {
        try {
          const message = JSON.parse(line);
          if (message.event === "listen") {
            clearTimeout(timer);
            resolvePort(message.port);
          }
        } catch {
          // an incomplete line
        }
      }
    });
    child.once("exit", (code) => reject(new Error(`workerd exited (${code}) before listening`)));
  });
  const get = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`GET → ${response.status}`);
  };
  await get();
  const rows = [["start", 0, rssMiB()]];
  let done = 0;
  for (let round = 1; round <= 4; round += 1) {
    const target = Math.floor((total * round) / 4);
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (done < target) {
          done += 1;
          await get();
        }
      }),
    );
    rows.push([`round ${round}`, done, rssMiB()]);
  }
  console.log(`bare workerd, hello-world, ${total} GETs (4 in flight):`);
  for (const [label, requests, mib] of rows) console.log(`  ${label.padEnd(8)} ${String(requests).padStart(6)} requests  RSS ${mib.toFixed(1)} MiB`);
  const perRequest = ((rows[4][2] - rows[2][2]) * 1024 * 1024) / (rows[4][1] - rows[2][1]);
  console.log(`from round 2 to 4: ${perRequest >= 0 ? "+" : ""}${perRequest.toFixed(0)} bytes per request`);
} catch (error) {
  console.error(`bare-hello failed: ${error?.message ?? error}`);
  exitCode = 1;
} finally {
  child.kill("SIGKILL");
  rmSync(directory, { recursive: true, force: true });
}
process.exit(exitCode);
