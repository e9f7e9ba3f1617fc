#!/usr/bin/env node
// `npx switchboard …` (Node 20+): runs the built CLI. In a clone where it is
// not built yet (before `npm install` finished its prepare step), builds it
// first; an installed package always has it.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(packageRoot, "dist", "switchboard.js");
const buildScript = join(packageRoot, "..", "scripts", "build.mjs");
if (!existsSync(built)) {
  if (!existsSync(buildScript)) {
    console.error(`switchboard: ${built} is missing: reinstall @switchboard/cli`);
    process.exit(1);
  }
  const { buildAll } = await import(pathToFileURL(buildScript).href);
  await buildAll({ quiet: true, only: ["cli"] });
}
await import(pathToFileURL(built).href);
