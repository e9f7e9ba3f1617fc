/**
 * The workers project runs on its own bindings only: what wrangler.toml
 * declares and the test values vitest.config.ts sets, never a developer's
 * `.dev.vars` (which would bring real model keys into every test).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const declared = ["SWITCHBOARD_VERSION", "DB", "FILES", "SPACE", "AGENT"];
const testValues = [
  "TEST_MIGRATIONS",
  "GATEWAY_SECRET_KEY",
  "GATEWAY_PUBLIC_KEY",
  "JWT_SECRET",
  "WEBHOOK_SECRET",
  "TOOL_API_TOKEN",
  "AGENT_CLIENT_SECRET",
  "WEATHER_API_KEY",
  "WEB_SEARCH_API_KEY",
  "ACCOUNTS_KEYS",
];

describe("test bindings", () => {
  it("are the config's and the tests' own, nothing read from a .dev.vars", () => {
    // The test plugin's own bindings start with __VITEST_POOL_WORKERS_.
    const unexpected = Object.keys(env).filter((name) => !declared.includes(name) && !testValues.includes(name) && !name.startsWith("__VITEST_POOL_WORKERS_"));
    expect(unexpected).toEqual([]);
    expect(env.GATEWAY_SECRET_KEY).toBe("test-secret-key");
  });
});
