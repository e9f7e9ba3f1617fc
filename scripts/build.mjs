#!/usr/bin/env node
/**
 * Builds what is not TypeScript-in-workerd (esbuild, well under a second):
 *   client/dist/index.js   the SDK (`switchboard/client`), ESM for browsers and Node 20+
 *   cli/dist/switchboard.js the CLI (`npx switchboard`), Node 20+
 *   web/dist/              the live space page and the API reference (Workers static assets)
 * `--types` also writes the SDK's declarations (client/dist/types, via tsc).
 *
 * Nothing built is committed: `npm install` (prepare), `npm run dev`, `npm test`
 * (vitest.config.ts) and `wrangler deploy` ([build] in wrangler.toml) all run this.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const swaggerFiles = ["swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"];

export async function buildAll({ types = false, quiet = false } = {}) {
  const started = Date.now();
  const common = { bundle: true, format: "esm", sourcemap: true, logLevel: quiet ? "error" : "warning", legalComments: "none" };
  await Promise.all([
    build({
      ...common,
      entryPoints: [join(root, "client/src/index.ts")],
      outfile: join(root, "client/dist/index.js"),
      platform: "neutral",
      target: "es2022",
      mainFields: ["module", "main"],
    }),
    build({
      ...common,
      entryPoints: [join(root, "cli/src/cli.ts")],
      outfile: join(root, "cli/dist/switchboard.js"),
      platform: "node",
      target: "node20",
      banner: { js: "// Built by scripts/build.mjs from cli/src: do not edit." },
    }),
    buildWeb(common),
  ]);
  if (types) {
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const result = spawnSync(
      process.execPath,
      [tsc, "-p", "client", "--noEmit", "false", "--declaration", "--emitDeclarationOnly", "--rootDir", "client/src", "--outDir", "client/dist/types"],
      {
        cwd: root,
        stdio: "inherit",
      },
    );
    if (result.status !== 0) throw new Error("tsc could not write the SDK's declarations");
  }
  if (!quiet) console.log(`[build] client, cli and web built in ${Date.now() - started} ms`);
}

async function buildWeb(common) {
  const out = join(root, "web/dist");
  // Overwritten in place, never emptied first: a running wrangler dev or test may be reading it.
  mkdirSync(join(out, "reference"), { recursive: true });
  cpSync(join(root, "web/static"), out, { recursive: true });
  const swagger = join(root, "node_modules", "swagger-ui-dist");
  for (const file of swaggerFiles) {
    if (!existsSync(join(swagger, file))) throw new Error(`swagger-ui-dist is missing ${file}: run npm install`);
    cpSync(join(swagger, file), join(out, "reference", file));
  }
  await build({
    ...common,
    entryPoints: [join(root, "web/src/main.ts"), join(root, "web/src/reference.ts")],
    outdir: out,
    entryNames: "[name]",
    platform: "browser",
    target: "es2022",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await buildAll({ types: process.argv.includes("--types"), quiet: process.argv.includes("--quiet") });
  } catch (error) {
    console.error(`[build] failed: ${error?.message ?? error}`);
    process.exit(1);
  }
}
