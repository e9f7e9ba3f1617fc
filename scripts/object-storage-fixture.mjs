#!/usr/bin/env node
/**
 * Makes an object-storage fixture for the upgrade test
 * (`test/crash/storage-upgrade.test.ts`): the agent and space objects'
 * SQLite, tables and rows, exactly as the code of a given commit writes them.
 *
 *   node scripts/object-storage-fixture.mjs <commit> [--only agent|space]
 *
 * The commit's tree is exported (`git archive`, nothing in this checkout
 * changes) to a temporary directory using this checkout's packages (linked
 * one by one: its own `node_modules/.cache`, where the test setup writes a
 * wrangler config naming the tree's Worker, must not be this checkout's);
 * the scenario (`test/fixtures/object-storage/scenario.ts`) and its maker
 * (`make-fixture.ts`) are copied in, run there with that commit's own vitest
 * setup, and what the maker prints is written to
 * `test/fixtures/object-storage/<short commit>.json`. Make one when an
 * object's tables change, from the last commit before the change, and
 * commit it with the change.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const fixtures = join(root, "test/fixtures/object-storage");
const [commit, flag, only] = process.argv.slice(2);
if (!commit || (flag !== undefined && (flag !== "--only" || !["agent", "space"].includes(only)))) {
  console.error("usage: node scripts/object-storage-fixture.mjs <commit> [--only agent|space]");
  process.exit(2);
}

const git = (...args) => {
  const result = spawnSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
};
const full = git("rev-parse", "--verify", `${commit}^{commit}`);
const tree = mkdtempSync(join(tmpdir(), "object-storage-fixture-"));
try {
  const archive = spawnSync("sh", ["-c", `git archive ${full} | tar -x -C "${tree}"`], { cwd: root, stdio: "inherit" });
  if (archive.status !== 0) throw new Error("git archive failed");
  mkdirSync(join(tree, "node_modules"));
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (![".cache", ".vite", ".vite-temp", ".vitest-cache"].includes(entry)) symlinkSync(join(root, "node_modules", entry), join(tree, "node_modules", entry));
  }
  const target = join(tree, "test/fixtures/object-storage");
  mkdirSync(target, { recursive: true });
  cpSync(join(fixtures, "scenario.ts"), join(target, "scenario.ts"));
  cpSync(join(fixtures, "make-fixture.ts"), join(target, "zz-make-fixture.test.ts"));

  const run = spawnSync("npx", ["vitest", "run", "--project", "workers", "test/fixtures/object-storage/zz-make-fixture.test.ts"], {
    cwd: tree,
    encoding: "utf8",
    maxBuffer: 1 << 30,
    env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
  });
  const line = `${run.stdout}\n${run.stderr}`.split("\n").find((text) => text.startsWith("OBJECT_STORAGE_FIXTURE "));
  if (run.status !== 0 || !line) {
    console.error(run.stdout.slice(-20_000), run.stderr.slice(-20_000));
    throw new Error(`the scenario did not run on ${full} (exit ${run.status})`);
  }
  const { madeAt, roles, agent, space } = JSON.parse(line.slice("OBJECT_STORAGE_FIXTURE ".length));
  const objects = Object.entries({ agent, space }).filter(([kind]) => only === undefined || kind === only);
  const out = join(fixtures, `${full.slice(0, 7)}.json`);
  writeFileSync(out, fixtureText({ commit: full, madeWith: `scripts/object-storage-fixture.mjs${only ? ` --only ${only}` : ""}`, madeAt, roles }, objects));
  console.log(`wrote ${out}`);
} finally {
  rmSync(tree, { recursive: true, force: true });
}

/** The fixture as JSON a reviewer can read: one line per schema statement and per row. */
function fixtureText(head, objects) {
  const lines = Object.entries(head).map(([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value)},`);
  const bodies = objects.map(([kind, stored]) => {
    const schema = stored.schema.map((statement) => `      ${JSON.stringify(statement)}`).join(",\n");
    const tables = Object.entries(stored.rows)
      .map(([table, rows]) => `      ${JSON.stringify(table)}: [${rows.length === 0 ? "" : `\n${rows.map((row) => `        ${JSON.stringify(row)}`).join(",\n")}\n      `}]`)
      .join(",\n");
    return `  ${JSON.stringify(kind)}: {\n    "schema": [\n${schema}\n    ],\n    "rows": {\n${tables}\n    }\n  }`;
  });
  return `{\n${lines.join("\n")}\n${bodies.join(",\n")}\n}\n`;
}
