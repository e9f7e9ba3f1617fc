/**
 * Tests never read the developer's secrets. Wrangler loads `.dev.vars` from
 * the folder of the config it is given; the workers project is given a copy
 * of wrangler.toml in a folder of its own (scripts/test-wrangler-config.mjs).
 * Checked the way the test plugin reads a config: with a `.dev.vars` beside
 * the original, the original picks it up and the copy does not.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { afterEach, describe, expect, it } from "vitest";
import { writeTestWranglerConfig } from "../../scripts/test-wrangler-config.mjs";

const root = join(import.meta.dirname, "..", "..");
// Wrangler says which secrets file it used; the test checks that itself.
process.env.WRANGLER_LOG = "error";
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const bindingsOf = (configPath: string) => Object.keys(unstable_getMiniflareWorkerOptions(configPath).workerOptions.bindings ?? {});

describe("the workers test project's config", () => {
  it("leaves a developer's .dev.vars (and .env) behind, keeping the config's own vars", () => {
    const project = mkdtempSync(join(tmpdir(), "switchboard-devvars-"));
    const cache = mkdtempSync(join(tmpdir(), "switchboard-test-config-"));
    folders.push(project, cache);
    copyFileSync(join(root, "wrangler.toml"), join(project, "wrangler.toml"));
    writeFileSync(join(project, ".dev.vars"), "OPENAI_API_KEY=sk-real-key-of-the-developer\n");
    writeFileSync(join(project, ".env"), "ANTHROPIC_API_KEY=also-real\n");

    expect(bindingsOf(join(project, "wrangler.toml"))).toContain("OPENAI_API_KEY");
    const copy = writeTestWranglerConfig(join(project, "wrangler.toml"), cache);
    expect(bindingsOf(copy)).toEqual(["SWITCHBOARD_VERSION"]);
  });

  it("is the same Worker: entry point, bindings, assets and aliases as wrangler.toml, with absolute paths", async () => {
    const cache = mkdtempSync(join(tmpdir(), "switchboard-test-config-"));
    folders.push(cache);
    const copy = writeTestWranglerConfig(join(root, "wrangler.toml"), cache);
    const { workerOptions, main } = unstable_getMiniflareWorkerOptions(copy);
    expect(main).toBe(join(root, "src", "index.ts"));
    expect(Object.keys(workerOptions.durableObjects ?? {}).sort()).toEqual(["AGENT", "SPACE"]);
    expect(Object.keys(workerOptions.d1Databases ?? {})).toEqual(["DB"]);
    expect(Object.keys(workerOptions.r2Buckets ?? {})).toEqual(["FILES"]);
    expect((workerOptions.assets as { directory?: string } | undefined)?.directory).toBe(join(root, "web", "dist"));
  });
});
