/**
 * The servers the benchmarks and the soak run against: `wrangler dev` for
 * the gateway (a snapshot of the working tree, a fresh database, fresh
 * keys), the floor (bench/floor-worker) and the Agents SDK peer
 * (bench/peer-worker), each on free loopback ports, started lazily and always
 * stopped by `cleanup()`. Shared by bench/run.mjs and bench/soak.mjs.
 *
 *   const servers = createServers({ log, deadline, verbose });
 *   const gateway = await servers.gateway(); // {baseUrl, wsBaseUrl, pid, secretKey, publicKey, signToken(sub), request(), api()}
 *   await servers.cleanup();
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { signToken } from "../scripts/seed-demo.mjs";

const benchDirectory = dirname(fileURLToPath(import.meta.url));
export const root = resolve(benchDirectory, "..");
const wranglerBin = join(root, "node_modules", ".bin", "wrangler");
const localNode = join(root, "node_modules", "node", "bin", "node");
const nodeBin = existsSync(localNode) ? localNode : process.execPath;
const SECRET_NAMES = ["GATEWAY_SECRET_KEY", "GATEWAY_PUBLIC_KEY", "JWT_SECRET", "WEBHOOK_SECRET"];
const STARTUP_TIMEOUT_MS = 120_000;
/** Top-level entries the gateway snapshot leaves out. */
const SNAPSHOT_SKIP = new Set(["node_modules", ".git", ".wrangler", ".ci-out", "dist", "coverage", ".dev.vars", "bench"]);

export class HttpError extends Error {
  constructor(method, path, status, body) {
    super(`${method} ${path} → ${status} ${typeof body === "string" ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300)}`);
    this.status = status;
    this.body = body;
  }
}

export function sleep(milliseconds) {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, milliseconds));
}

/**
 * `log(...parts)` prints progress; every start gives up at `deadline` (ms
 * since the epoch); `verbose` echoes the servers' output.
 */
export function createServers({ log, deadline, verbose = false, unminified = false }) {
  /** Every process and directory this run created, so cleanup can undo it. */
  const children = new Set();
  const temporaryDirectories = new Set();

  // ---------------------------------------------------------------- processes

  function freePort() {
    return new Promise((resolvePort, reject) => {
      const server = createServer();
      server.unref();
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address();
        server.close(() => resolvePort(port));
      });
    });
  }

  function childEnvironment(extra = {}) {
    const environment = {
      ...process.env,
      // Loopback only: no metrics, no Request.cf download, no banner (and so no update check).
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_HIDE_BANNER: "true",
      ...extra,
    };
    // With `[secrets] required`, wrangler also reads process.env: keep the
    // developer's own keys out of the servers this run starts.
    for (const name of SECRET_NAMES) delete environment[name];
    return environment;
  }

  /** Runs wrangler to completion (bounded); resolves its output, rejects on a non-zero exit. */
  function runWrangler(args, { cwd = root, timeoutMs = 120_000 } = {}) {
    return new Promise((resolveRun, reject) => {
      const child = spawn(nodeBin, [wranglerBin, ...args], {
        cwd,
        env: childEnvironment({ CI: "true" }),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      children.add(child);
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      const timer = setTimeout(() => killGroup(child, "SIGKILL"), timeoutMs);
      child.once("error", reject);
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        children.delete(child);
        if (code === 0) resolveRun(output);
        else reject(new Error(`wrangler ${args.slice(0, 3).join(" ")} exited with ${code ?? signal}:\n${output.slice(-3000)}`));
      });
    });
  }

  function killGroup(child, signal) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, signal); // wrangler and the workerd it started
    } catch {
      try {
        child.kill(signal);
      } catch {
        // Already gone.
      }
    }
  }

  async function stopChild(child) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolveExit) => child.once("exit", resolveExit));
    killGroup(child, "SIGTERM");
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }

  /**
   * Starts `wrangler dev` for one config on free loopback ports and waits until
   * `readyPath` answers. Resolves `{baseUrl, wsBaseUrl, output, stop}`.
   */
  async function startWranglerDev({ label, config, persistTo, envFile }) {
    const port = await freePort();
    const inspectorPort = await freePort();
    const args = [
      "dev",
      "--config",
      config,
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      persistTo,
      "--show-interactive-dev-session=false",
      "--log-level",
      verbose ? "info" : "warn",
    ];
    if (envFile) args.push("--env-file", envFile);
    const child = spawn(nodeBin, [wranglerBin, ...args], {
      cwd: dirname(config),
      env: childEnvironment(),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.add(child);
    child.once("exit", () => children.delete(child));
    let output = "";
    const keep = (chunk) => {
      output = (output + chunk).slice(-20_000);
      if (verbose) process.stdout.write(`[${label}] ${chunk}`);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);

    const baseUrl = `http://127.0.0.1:${port}`;
    const server = {
      label,
      baseUrl,
      wsBaseUrl: `ws://127.0.0.1:${port}`,
      /** The DevTools inspector wrangler proxies to the Worker (`/json` lists the targets). */
      inspectorPort,
      /** The wrangler process (leader of its group; workerd runs below it). */
      pid: child.pid,
      output: () => output,
      stop: () => stopChild(child),
    };
    const startLimit = Math.min(Date.now() + STARTUP_TIMEOUT_MS, deadline);
    while (Date.now() < startLimit) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${label}: wrangler dev exited with ${child.exitCode ?? child.signalCode}:\n${output.slice(-3000)}`);
      }
      try {
        const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        log(`${label} answers on ${baseUrl} (GET /health → ${response.status})`);
        return server;
      } catch {
        await sleep(250);
      }
    }
    await server.stop();
    throw new Error(`${label}: no answer on ${baseUrl} within ${STARTUP_TIMEOUT_MS / 1000}s:\n${output.slice(-3000)}`);
  }

  // ---------------------------------------------------------------- servers

  function temporaryDirectory(prefix) {
    const directory = mkdtempSync(join(tmpdir(), prefix));
    temporaryDirectories.add(directory);
    return directory;
  }

  /**
   * Copies the working tree (without node_modules, state and secrets) so the
   * gateway under test is the code as it was when the run began: `wrangler dev`
   * reloads the Worker when a watched file changes, which would drop every
   * WebSocket in the middle of a measurement.
   */
  function snapshotWorkingTree(directory) {
    const app = join(directory, "app");
    cpSync(root, app, {
      recursive: true,
      filter: (source) => !SNAPSHOT_SKIP.has(relative(root, source).split(sep)[0]),
    });
    symlinkSync(join(root, "node_modules"), join(app, "node_modules"), "dir");
    return app;
  }

  /** The commit the tree is on and how many files differ from it, for the record (never fails). */
  function describeTree() {
    try {
      const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8", timeout: 5_000, stdio: ["ignore", "pipe", "ignore"] }).trim();
      const changed = git("status", "--porcelain").split("\n").filter(Boolean).length;
      return `commit ${git("rev-parse", "--short", "HEAD")}${changed ? ` + ${changed} uncommitted change(s)` : ""}`;
    } catch {
      return "a tree that is not a git checkout";
    }
  }

  async function startGateway() {
    const directory = temporaryDirectory("switchboard-bench-gateway-");
    const persistTo = join(directory, "state");
    const app = snapshotWorkingTree(directory);
    log(`gateway: snapshot of ${describeTree()}`);
    if (unminified) {
      // A CPU profile names functions by their identifiers: this build is not minified (the deploy build is).
      const configPath = join(app, "wrangler.toml");
      writeFileSync(configPath, readFileSync(configPath, "utf8").replace(/^minify = true$/m, "minify = false"));
      log("gateway: not minified, so the profile has names (--profile)");
    }
    const secrets = {
      GATEWAY_SECRET_KEY: randomBytes(32).toString("hex"),
      GATEWAY_PUBLIC_KEY: randomBytes(24).toString("hex"),
      JWT_SECRET: randomBytes(48).toString("base64url"),
      WEBHOOK_SECRET: randomBytes(32).toString("hex"),
    };
    const envFile = join(directory, "bench.env");
    writeFileSync(
      envFile,
      Object.entries(secrets)
        .map(([name, value]) => `${name}=${value}\n`)
        .join(""),
      { mode: 0o600 },
    );
    log("gateway: applying D1 migrations to a fresh local database");
    await runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo], { cwd: app });
    log("gateway: starting wrangler dev on a snapshot of the working tree");
    const server = await startWranglerDev({ label: "gateway", config: join(app, "wrangler.toml"), persistTo, envFile });

    /** JSON request with the secret key (or `options.headers`); resolves `{status, body}`. */
    async function request(method, path, body, options = {}) {
      const headers = { "x-secret-key": secrets.GATEWAY_SECRET_KEY, ...options.headers };
      if (body !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(server.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      });
      const text = await response.text();
      let parsed = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: keep the text for the error message.
      }
      return { status: response.status, body: parsed };
    }

    return {
      ...server,
      secretKey: secrets.GATEWAY_SECRET_KEY,
      publicKey: secrets.GATEWAY_PUBLIC_KEY,
      jwtSecret: secrets.JWT_SECRET,
      // HS256, as a client's own backend would issue it (the demo seeding's signer).
      signToken: (sub, ttlSeconds = 3600) => signToken(sub, secrets.JWT_SECRET, ttlSeconds),
      request,
      /** Like `request`, but resolves the body of a 2xx answer and throws an HttpError otherwise. */
      async api(method, path, body, options) {
        const answer = await request(method, path, body, options);
        if (answer.status < 200 || answer.status > 299) throw new HttpError(method, path, answer.status, answer.body);
        return answer.body;
      },
    };
  }

  async function startFloor() {
    const persistTo = join(temporaryDirectory("switchboard-bench-floor-"), "state");
    const config = join(benchDirectory, "floor-worker", "wrangler.toml");
    // The agent-cycle floor writes the gateway's own tables: same schema, same indexes.
    log("floor: applying the gateway's D1 migrations to a fresh local database");
    await runWrangler(["d1", "migrations", "apply", "DB", "--local", "--config", config, "--persist-to", persistTo], { cwd: dirname(config) });
    log("floor: starting wrangler dev");
    return startWranglerDev({ label: "floor", config, persistTo });
  }

  /** bench/hello-worker under wrangler dev: `fetch` answers `ok`, nothing else. */
  async function startHello() {
    const persistTo = join(temporaryDirectory("switchboard-bench-hello-"), "state");
    const config = join(benchDirectory, "hello-worker", "wrangler.toml");
    log("hello-world: starting wrangler dev");
    return startWranglerDev({ label: "hello", config, persistTo });
  }

  /** The Agents SDK peer in bench/peer-worker (no D1: its agents keep their own SQLite). */
  async function startPeer() {
    const persistTo = join(temporaryDirectory("switchboard-bench-peer-"), "state");
    const config = join(benchDirectory, "peer-worker", "wrangler.toml");
    log("peer (Agents SDK): starting wrangler dev");
    return startWranglerDev({ label: "peer", config, persistTo });
  }

  const started = new Map();
  function lazily(name, start) {
    return () => {
      if (!started.has(name)) started.set(name, start());
      return started.get(name);
    };
  }

  let cleaningUp;

  /** Stops every server and process this factory started and removes its folders (once). */
  function cleanup() {
    cleaningUp ??= (async () => {
      const servers = await Promise.allSettled(started.values());
      await Promise.allSettled(servers.filter((result) => result.status === "fulfilled").map((result) => result.value.stop()));
      await Promise.allSettled([...children].map(stopChild));
      for (const directory of temporaryDirectories) rmSync(directory, { recursive: true, force: true });
    })();
    return cleaningUp;
  }

  return {
    /** The gateway (this repo's worker) with fresh keys and a fresh database. */
    gateway: lazily("gateway", startGateway),
    /** The floor worker in bench/floor-worker. */
    floor: lazily("floor", startFloor),
    /** The Agents SDK peer in bench/peer-worker. */
    peer: lazily("peer", startPeer),
    /** A hello-world Worker (bench/hello-worker). */
    hello: lazily("hello", startHello),
    cleanup,
    /** Last resort (process exit): SIGKILL to every process group still running. */
    killAll: () => {
      for (const child of children) killGroup(child, "SIGKILL");
    },
  };
}
