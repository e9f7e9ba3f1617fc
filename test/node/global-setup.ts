/**
 * Starts one real gateway for the node project, the way a new user does:
 * `node scripts/dev.mjs` (what `npm run dev` runs) on a free loopback port,
 * with its own keys file and its own state folder (so the developer's
 * `.dev.vars` and `.wrangler/state` are never touched). Waits for the
 * sign-in link it prints, and hands the tests the URL, the link, the keys
 * and the demo's ids. Stops the whole process group at the end.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { parseDotenv } from "../../scripts/parse-dotenv.mjs";
import { devVarsTheExamplesAdd } from "./doc-examples";

export type Gateway = {
  baseUrl: string;
  link: string;
  stateDir: string;
  envFile: string;
  vars: Record<string, string>;
  demo: { personId: string; spaceId: string; agentId: string; agentEntityId: string };
  /** Everything the dev server printed so far is in this file. */
  logFile: string;
};

declare module "vitest" {
  export interface ProvidedContext {
    gateway: Gateway;
  }
}

const root = join(import.meta.dirname, "..", "..");
const startDeadlineMs = 150_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export default async function setup(project: TestProject) {
  const directory = mkdtempSync(join(tmpdir(), "switchboard-node-tests-"));
  const stateDir = join(directory, "state");
  const envFile = join(directory, "dev.vars");
  const logFile = join(directory, "dev.log");
  // The secrets the docs' examples add to `.dev.vars` before restarting `npm run dev` (docs-examples.test.ts runs
  // them; nobody can restart this shared server mid-run); `npm run dev` adds the four keys to the file, as to a reader's.
  writeFileSync(envFile, `${devVarsTheExamplesAdd().join("\n")}\n`, { mode: 0o600 });
  const port = await freePort();
  const { createWriteStream } = await import("node:fs");
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, ["scripts/dev.mjs", "--", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", stateDir, "--env-file", envFile], {
    cwd: root,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      output += chunk;
      log.write(chunk);
    });
  }

  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-(child.pid as number), "SIGKILL");
        } catch {
          // already gone
        }
      }, 10_000);
      await exited;
      clearTimeout(timer);
    }
    log.end();
    rmSync(directory, { recursive: true, force: true });
  };

  try {
    const link = await new Promise<string>((resolve, reject) => {
      const deadline = setTimeout(
        () => reject(new Error(`npm run dev printed no sign-in link within ${startDeadlineMs / 1000}s. Output:\n${output.slice(-4000)}`)),
        startDeadlineMs,
      );
      const check = () => {
        const match = /(http:\/\/127\.0\.0\.1:\d+\/#publicKey=\S+)/.exec(output);
        if (match) {
          clearTimeout(deadline);
          resolve(match[1]);
        }
      };
      for (const stream of [child.stdout, child.stderr]) stream.on("data", check);
      void exited.then((code) => {
        clearTimeout(deadline);
        reject(new Error(`npm run dev exited (${code}) before printing the sign-in link. Output:\n${output.slice(-4000)}`));
      });
    });
    const gateway: Gateway = {
      baseUrl: `http://127.0.0.1:${port}`,
      link,
      stateDir,
      envFile,
      logFile,
      vars: parseDotenv(readFileSync(envFile, "utf8")),
      demo: JSON.parse(readFileSync(join(stateDir, "switchboard-demo.json"), "utf8")),
    };
    project.provide("gateway", gateway);
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}
