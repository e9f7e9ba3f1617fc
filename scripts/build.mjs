#!/usr/bin/env node
/**
 * Builds what is not TypeScript-in-workerd (esbuild, well under a second):
 *   client/dist/index.js   the SDK (`@switchboard/client`), ESM for browsers and Node 20+ (its dependencies left to the installer)
 *   cli/dist/switchboard.js the CLI (`@switchboard/cli`, `npx switchboard`), Node 20+, the SDK bundled in
 *   react/dist/index.js    the React bindings (`@switchboard/react`), ESM; React and the SDK left to the installer
 *   web/dist/              the live space page, the operator console and the API reference (Workers static assets)
 * `--types` also writes the SDK's and the React bindings' declarations
 * (client/dist/types, react/dist/types, via tsc; the bindings' after the SDK's, which they import).
 * Names (`client`, `cli`, `react`, `web`) build only those: `npm pack` in client/, cli/ and
 * react/ builds its own package and leaves web/dist, which a running gateway serves, alone.
 *
 * Nothing built is committed: `npm install` (prepare), `npm run dev`, `npm test`
 * (vitest.config.ts) and `wrangler deploy` ([build] in wrangler.toml) all run this.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const swaggerFiles = ["swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"];
export const parts = ["client", "cli", "react", "web"];

export async function buildAll({ types = false, quiet = false, only = parts } = {}) {
  const started = Date.now();
  const common = { bundle: true, format: "esm", sourcemap: true, logLevel: quiet ? "error" : "warning", legalComments: "none" };
  const builds = {
    client: () =>
      build({
        ...common,
        entryPoints: [join(root, "client/src/index.ts")],
        outfile: join(root, "client/dist/index.js"),
        platform: "neutral",
        target: "es2022",
        mainFields: ["module", "main"],
        // The package's dependencies (client/package.json): installed beside it, shared with the app's own copies.
        external: ["openapi-fetch", "standardwebhooks"],
      }),
    cli: () =>
      build({
        ...common,
        entryPoints: [join(root, "cli/src/cli.ts")],
        outfile: join(root, "cli/dist/switchboard.js"),
        platform: "node",
        target: "node20",
        banner: { js: "// Built by scripts/build.mjs from cli/src: do not edit." },
      }),
    react: () =>
      build({
        ...common,
        entryPoints: [join(root, "react/src/index.ts")],
        outfile: join(root, "react/dist/index.js"),
        platform: "neutral",
        target: "es2022",
        jsx: "automatic",
        // React and the SDK (react/package.json): the app's own copies, never a second React. Resolved as an
        // installed package would be (react/tsconfig.json maps the SDK to its source, for the typecheck alone).
        packages: "external",
        tsconfig: join(root, "react/tsconfig.build.json"),
      }),
    web: () => buildWeb(common),
  };
  await Promise.all(only.map((part) => builds[part]()));
  if (types && only.includes("client")) writeDeclarations("client/tsconfig.json", "client", "the SDK's");
  // The bindings' declarations import the SDK's: built first when missing (`npm pack` in react/ builds react alone).
  if (types && only.includes("react")) {
    if (!only.includes("client") && !existsSync(join(root, "client/dist/types/index.d.ts"))) writeDeclarations("client/tsconfig.json", "client", "the SDK's");
    writeDeclarations("react/tsconfig.build.json", "react", "the React bindings'");
  }
  if (!quiet) console.log(`[build] ${only.join(", ")} built in ${Date.now() - started} ms`);
}

/** A package's declarations (`<folder>/dist/types`) by tsc, from `<folder>/src`. */
function writeDeclarations(project, folder, what) {
  // Emptied first: a declaration of a file since removed must not ship.
  rmSync(join(root, folder, "dist/types"), { recursive: true, force: true });
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const result = spawnSync(
    process.execPath,
    [tsc, "-p", project, "--noEmit", "false", "--declaration", "--emitDeclarationOnly", "--rootDir", `${folder}/src`, "--outDir", `${folder}/dist/types`],
    { cwd: root, stdio: "inherit" },
  );
  if (result.status !== 0) throw new Error(`tsc could not write ${what} declarations`);
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
    entryPoints: [join(root, "web/src/main.ts"), join(root, "web/src/reference.ts"), join(root, "web/src/console/console.ts")],
    outdir: out,
    entryNames: "[name]",
    platform: "browser",
    target: "es2022",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const names = process.argv.slice(2).filter((argument) => !argument.startsWith("--"));
    const unknown = names.filter((name) => !parts.includes(name));
    if (unknown.length > 0) throw new Error(`unknown part ${unknown.join(", ")} (usage: node scripts/build.mjs [${parts.join("|")}…] [--types] [--quiet])`);
    await buildAll({ types: process.argv.includes("--types"), quiet: process.argv.includes("--quiet"), only: names.length > 0 ? names : parts });
  } catch (error) {
    console.error(`[build] failed: ${error?.message ?? error}`);
    process.exit(1);
  }
}
