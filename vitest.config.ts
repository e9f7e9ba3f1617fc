import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { buildAll } from "./scripts/build.mjs";
import { fakeRemote } from "./test/fake-remote.ts";

export default defineConfig(async () => {
  // The Worker serves web/dist as static assets: build it (with the SDK and CLI) before anything runs.
  await buildAll({ quiet: true });
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
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
    test: {
      include: ["test/**/*.test.ts"],
      setupFiles: ["./test/setup.ts"],
      testTimeout: 30_000,
    },
  };
});
