import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig, type Plugin } from "vitest/config";
import { unstable_readConfig } from "wrangler";
import { buildAll } from "./scripts/build.mjs";
import { writeTestWranglerConfig } from "./scripts/test-wrangler-config.mjs";
import { fakeRemote } from "./test/fake-remote.ts";
import { dropHarmlessWorkerdLines } from "./test/harmless-workerd-lines.ts";

// workerd's log reaches this process's output directly, past vitest's console handling:
// the lines known to be harmless are dropped there, each with its reason (test/harmless-workerd-lines.ts).
dropHarmlessWorkerdLines(process.stdout);
dropHarmlessWorkerdLines(process.stderr);

/**
 * Some packages ship source maps that name sources they do not ship (the MCP
 * SDK, @workflow/serde): Vite warns once for each such file it loads into the
 * workers project. Nothing in this repository can change that, and a stack
 * trace through them reads the built file either way, so that one warning,
 * for files under node_modules only, is not shown.
 */
function quietPackageSourceMaps(): Plugin {
  const packageMapWithoutSources = /^Sourcemap for ".*\/node_modules\/.*" points to missing source files$/;
  return {
    name: "switchboard:quiet-package-source-maps",
    configResolved(config) {
      const warnOnce = config.logger.warnOnce.bind(config.logger);
      config.logger.warnOnce = (message, options) => {
        if (!packageMapWithoutSources.test(message)) warnOnce(message, options);
      };
    },
  };
}

/**
 * Two projects, one `npm test`:
 * - `workers`: the Worker and its objects inside workerd (@cloudflare/vitest-plugin);
 * - `node`: the client SDK, the CLI and the live page as people use them, against
 *   a real `npm run dev` (started once by test/node/global-setup.ts) and, for
 *   the page, a headless Chromium.
 */
export default defineConfig(async () => {
  // The Worker serves web/dist as static assets: build it (with the SDK and CLI) before anything runs.
  await buildAll({ quiet: true });
  const migrations = await readD1Migrations("./migrations");
  /** Tests that need an agent's tracing on: the `workers-traced` project runs them, the `workers` project leaves them out. */
  const tracedTests = "test/telemetry/traced";
  // The Worker's bundle aliases (wrangler.toml [alias]): the tests run what ships.
  // Wrangler matches the exact import name; so does each pattern here.
  const bundleAliases = Object.entries<string>(unstable_readConfig({ config: "./wrangler.toml" }, { hideWarnings: true }).alias ?? {}).map(([name, path]) => ({
    find: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`),
    replacement: resolve(path),
  }));
  /** A project inside workerd on the Worker's own config and the tests' bindings (`tracing`: the OTLP settings, for the traced tests). */
  const workersProject = (name: string, files: { include: string[]; exclude?: string[] }, tracing: Record<string, string> = {}) => ({
    plugins: [
      cloudflareTest({
        // wrangler.toml as written, from a folder with no `.dev.vars`: tests never read the developer's secrets.
        wrangler: { configPath: writeTestWranglerConfig() },
        miniflare: {
          // Every outbound fetch is answered by the fake remote: tests never reach the network.
          outboundService: fakeRemote,
          bindings: {
            ...tracing,
            TEST_MIGRATIONS: migrations,
            GATEWAY_SECRET_KEY: "test-secret-key",
            GATEWAY_PUBLIC_KEY: "test-public-key",
            JWT_SECRET: "test-jwt-secret-that-is-long-enough",
            WEBHOOK_SECRET: "test-webhook-secret",
            TOOL_API_TOKEN: "test-tool-token",
            // The client secret of tools that act as their agent by the client credentials grant (test/fake-remote.ts knows it).
            AGENT_CLIENT_SECRET: "agent-secret",
            // The secrets the design documents' examples name (test/design-examples.test.ts takes them as written).
            WEATHER_API_KEY: "test-weather-key",
            WEB_SEARCH_API_KEY: "test-search-key",
            // Connected accounts' tokens are sealed with this key (id "test1"; docs/accounts.md).
            ACCOUNTS_KEYS: "test1:+C+D5F3BTe8O+QZXfG6qeCz7dfFdnW6mQXFRMjxPZu0=",
          },
        },
      }),
      quietPackageSourceMaps(),
    ],
    resolve: { alias: bundleAliases },
    test: {
      name,
      ...files,
      setupFiles: ["./test/setup.ts"],
      testTimeout: 30_000,
      // Files share a runtime (one per worker), its D1, objects and modules: a fresh workerd and module graph
      // for each file cost about 3 s a file, three quarters of this project's time. So a test reads only what
      // it made (its own ids, never a whole table's count) and never counts on a module's state being fresh.
      isolate: false,
    },
  });
  return {
    test: {
      // Vitest's default is one worker fewer than the cores: on 2 cores, one file at a time, while most
      // files spend their time waiting on workerd, the dev server or Chromium. Two at least.
      maxWorkers: Math.max(2, availableParallelism() - 1),
      // The OAuth tests (node project) run a real oidc-provider with its in-memory store and its development log-in and
      // consent pages, on purpose (a test server needs nothing else); it warns once about each. Nothing else is dropped here.
      onConsoleLog: (log: string) => (/^oidc-provider WARNING: a quick start development-only (in-memory adapter|feature devInteractions)/.test(log) ? false : undefined),
      projects: [
        workersProject("workers", { include: ["test/**/*.test.ts"], exclude: ["test/node/**", `${tracedTests}/**`] }),
        // The same runtime with tracing on (the OTLP endpoint is the fake remote's `otel.test`, which keeps every
        // export): what a traced agent sends out and records. Its own workerd, so every other test runs as a
        // deployment without an endpoint does.
        workersProject(
          "workers-traced",
          { include: [`${tracedTests}/**/*.test.ts`] },
          { OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel.test", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
        ),
        {
          test: {
            name: "node",
            environment: "node",
            include: ["test/node/**/*.test.ts"],
            globalSetup: ["./test/node/global-setup.ts"],
            testTimeout: 60_000,
            hookTimeout: 120_000,
            // Chosen: a file's clients, listeners and child processes never outlive it into the next file.
            isolate: true,
            // One file at a time: the files share one dev server, and two of them write rows no route makes (a dead
            // letter, a connected account) straight into its local D1 with `wrangler d1 execute`. A second writer on
            // that SQLite file makes whoever comes second fail with SQLITE_BUSY: the test's writer retries
            // (test/node/local-d1.ts), the dev server answers 500. Seen in CI with two node files at once. The workers
            // project still runs beside this one.
            fileParallelism: false,
          },
        },
      ],
    },
  };
});
