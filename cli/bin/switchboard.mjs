#!/usr/bin/env node
// `npx switchboard …` (Node 20+): runs the built CLI, building it first when
// it is missing (a fresh clone before `npm install` finished its prepare step).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const built = join(root, "cli", "dist", "switchboard.js");
if (!existsSync(built)) {
  const { buildAll } = await import(pathToFileURL(join(root, "scripts", "build.mjs")).href);
  await buildAll({ quiet: true });
}
await import(pathToFileURL(built).href);
