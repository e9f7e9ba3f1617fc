/**
 * `npm run dev` with a keys file that is wrong: a second dev server (its own
 * keys file and state folder, stopped at the end) whose JWT_SECRET and
 * FILE_LINK_SECRET are too short. Once it is up it prints each
 * problem `GET /health` reports, once, in red, and never a value; `/health`
 * itself answers 503 naming them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const directory = mkdtempSync(join(tmpdir(), "switchboard-dev-problems-"));
const values = { secretKey: `sk_${"a1".repeat(20)}`, jwtSecret: "too-short-jwt", fileLinkSecret: "short-file-link", webhookSecret: "whsec_not base64 at all!" };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Stops the dev server's whole process group (wrangler and workerd with it), and waits until it has gone. */
async function stopGroup(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (!child.pid || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // already gone
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-(child.pid ?? 0), "SIGKILL");
    } catch {
      // already gone
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

// The folder is the file's (made above, when the file loads): removed after its last test.
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("npm run dev with a misconfigured keys file", () => {
  it("prints each problem once, in red, after the server is up, and /health answers 503", async () => {
    const envFile = join(directory, "dev.vars");
    writeFileSync(
      envFile,
      [
        `GATEWAY_SECRET_KEY=${values.secretKey}`,
        `GATEWAY_PUBLIC_KEY=pk_${"b2".repeat(20)}`,
        `JWT_SECRET=${values.jwtSecret}`,
        `WEBHOOK_SECRET=${values.webhookSecret}`,
        `FILE_LINK_SECRET=${values.fileLinkSecret}`,
        "",
      ].join("\n"),
    );
    const port = await freePort();
    const { NO_COLOR: _noColor, ...environment } = process.env;
    const started = spawn(
      process.execPath,
      ["scripts/dev.mjs", "--", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", join(directory, "state"), "--env-file", envFile],
      {
        cwd: root,
        env: { ...environment, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", FORCE_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    const exited = new Promise((resolve) => started.once("exit", resolve));
    onTestFinished(() => stopGroup(started, exited));
    let output = "";
    const printed = new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`no configuration problem printed within 150 s. Output:\n${output.slice(-4000)}`)), 150_000);
      const check = () => {
        // The line after the problems: everything before it has been printed.
        if (!output.includes("vars and bindings in wrangler.toml")) return;
        clearTimeout(deadline);
        resolve();
      };
      for (const stream of [started.stdout, started.stderr]) {
        stream?.setEncoding("utf8");
        stream?.on("data", (chunk: string) => {
          output += chunk;
          check();
        });
      }
      void exited.then(() => reject(new Error(`npm run dev exited before printing the problems. Output:\n${output.slice(-4000)}`)));
    });
    await printed;

    const red = (text: string) => `\x1b[31m${text}\x1b[0m`;
    const lines = output.split("\n");
    for (const name of ["JWT_SECRET", "FILE_LINK_SECRET"]) {
      const matching = lines.filter((line) => line.includes(`[dev]   ${name} `));
      expect(matching, name).toHaveLength(1);
      expect(matching[0].startsWith("\x1b[31m") && matching[0].endsWith("\x1b[0m"), matching[0]).toBe(true);
    }
    expect(output).toContain(red("[dev]   JWT_SECRET is shorter than 32 bytes; use a long random value (e.g. 48 random bytes, base64)"));
    // The banner came first: the server was up. (The Worker's own log line, "configuration problem: …", may come
    // through wrangler's output at any time; the dev script's list is what follows the banner.)
    expect(output.indexOf("Switchboard is running")).toBeLessThan(output.indexOf("[dev] The gateway reports"));
    // Any webhook secret is accepted, so it is no problem; and no value is ever printed.
    expect(output).not.toContain("[dev]   WEBHOOK_SECRET");
    for (const value of Object.values(values)) expect(output).not.toContain(value);

    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(503);
    const body = (await health.json()) as { ok: boolean; problems: { name: string }[] };
    expect(body.ok).toBe(false);
    expect(body.problems.map((problem) => problem.name)).toEqual(["JWT_SECRET", "FILE_LINK_SECRET"]);
    // A second wrangler dev starting on a busy machine: more than the project's usual minute.
  }, 160_000);
});
