import { resolve } from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { unstable_readConfig } from "wrangler";
import { buildAll } from "./scripts/build.mjs";
import { writeTestWranglerConfig } from "./scripts/test-wrangler-config.mjs";
import { fakeRemote } from "./test/fake-remote.ts";

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
  // The Worker's bundle aliases (wrangler.toml [alias]): the tests run what ships.
  // Wrangler matches the exact import name; so does each pattern here.
  const bundleAliases = Object.entries<string>(unstable_readConfig({ config: "./wrangler.toml" }, { hideWarnings: true }).alias ?? {}).map(([name, path]) => ({
    find: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`),
    replacement: resolve(path),
  }));
  return {
    test: {
      projects: [
        {
          plugins: [
            cloudflareTest({
              // wrangler.toml as written, from a folder with no `.dev.vars`: tests never read the developer's secrets.
              wrangler: { configPath: writeTestWranglerConfig() },
              miniflare: {
                // Every outbound fetch is answered by the fake remote: tests never reach the network.
                outboundService: fakeRemote,
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  GATEWAY_SECRET_KEY: "test-secret-key",
                  GATEWAY_PUBLIC_KEY: "test-public-key",
                  JWT_SECRET: "test-jwt-secret-that-is-long-enough",
                  WEBHOOK_SECRET: "test-webhook-secret",
                  TOOL_API_TOKEN: "test-tool-token",
                },
              },
            }),
          ],
          resolve: { alias: bundleAliases },
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: ["test/node/**"],
            setupFiles: ["./test/setup.ts"],
            testTimeout: 30_000,
          },
        },
        {
          test: {
            name: "node",
            environment: "node",
            include: ["test/node/**/*.test.ts"],
            globalSetup: ["./test/node/global-setup.ts"],
            testTimeout: 60_000,
            hookTimeout: 120_000,
          },
        },
      ],
    },
  };
});
