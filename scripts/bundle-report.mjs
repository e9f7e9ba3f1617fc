#!/usr/bin/env node
/**
 * `npm run bundle:report`: what is in the Worker bundle. Builds it exactly as
 * a deploy would (`wrangler deploy --dry-run --outdir <tmp> --metafile`: the
 * same esbuild, conditions, aliases and rules), then prints
 *
 *   - every module file wrangler would upload, raw and gzip, and the total;
 *   - the contributors by package (raw from esbuild's metafile; gzip by
 *     compressing each package's own output text, cut out of the bundle with
 *     its source map, so the gzip column is an estimate that sums to a
 *     little more than the total: each package is compressed without the
 *     others);
 *   - packages that are in the bundle twice (two versions or two paths, or
 *     zod's v3 copy beside v4);
 *   - the packages the gateway never runs on Workers and should not ship
 *     (ajv: code generation with `new Function`, which Workers forbid).
 *
 *   npm run bundle:report                 top 25 packages
 *   npm run bundle:report -- --top 60 --files 30
 *   npm run bundle:report -- --json       machine-readable (the bench uses it)
 *   npm run bundle:report -- --limit 450  exit 1 when the total gzip is over 450 KiB
 *   npm run bundle:report -- --keep       keep the build (bundle, map, metafile) and say where
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const wranglerBin = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
const localNode = join(root, "node_modules", "node", "bin", "node");
const nodeBin = existsSync(localNode) ? localNode : process.execPath;
/** One package holding two whole copies of itself (zod 4 ships zod 3 beside it). */
const COPIES_INSIDE = { zod: ["zod/v3/", "zod/v4/"] };
/** Packages that must never be in the Worker (why, for the report). */
const UNWANTED = {
  ajv: "compiles validators with new Function, which Workers forbid; the MCP client is given @cfworker/json-schema",
  "ajv-formats": "only used with ajv",
};

/**
 * Builds the Worker with wrangler into a temporary folder; resolves the
 * report. `config` is a wrangler.toml (the gateway's by default); `keep`
 * leaves the build (bundle, source map, metafile) in place and says where;
 * `outdir` builds into a folder the caller owns (and keeps), and the report
 * then lists the module files' paths in `moduleFiles`.
 */
export async function bundleReport({ config = join(root, "wrangler.toml"), keep = false, outdir: callerOutdir } = {}) {
  const outdir = callerOutdir ?? mkdtempSync(join(tmpdir(), "switchboard-bundle-"));
  try {
    await runWrangler(["deploy", "--dry-run", "--config", config, "--outdir", outdir, "--metafile"], dirname(config));
    const moduleFiles = listFiles(outdir).filter((file) => !file.endsWith(".map") && !file.endsWith(".json") && !file.endsWith("README.md"));
    const modules = moduleFiles.map((file) => {
      const bytes = readFileSync(file);
      return { file: relative(outdir, file), raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
    });
    const all = Buffer.concat(moduleFiles.map((file) => readFileSync(file)));
    const total = { raw: all.length, gzip: gzipSync(all, { level: 9 }).length, modules: modules.length };
    const metafile = JSON.parse(readFileSync(join(outdir, "bundle-meta.json"), "utf8"));
    const base = dirname(config);
    const packages = new Map();
    const paths = new Map();
    const entryOf = (name) => {
      if (!packages.has(name)) packages.set(name, { name, raw: 0, text: [] });
      return packages.get(name);
    };
    for (const [outputName, output] of Object.entries(metafile.outputs)) {
      if (outputName.endsWith(".map")) continue;
      const outputFile = join(outdir, outputName.split("/").pop());
      if (existsSync(outputFile) && existsSync(`${outputFile}.map`)) {
        const owners = ownersOfOriginalSources(Object.keys(output.inputs), base);
        const texts = textBySource(readFileSync(outputFile, "utf8"), JSON.parse(readFileSync(`${outputFile}.map`, "utf8")), outdir);
        for (const [source, text] of texts) entryOf(owners.get(source) ?? packageOf(relative(base, source)).name).text.push(text);
      }
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        const owner = packageOf(input);
        entryOf(owner.name).raw += bytesInOutput;
        if (owner.directory) {
          const seen = paths.get(owner.name) ?? new Set();
          seen.add(owner.directory);
          paths.set(owner.name, seen);
        }
      }
    }
    const byPackage = [...packages.values()]
      .map(({ name, raw, text }) => ({ name, raw, gzip: text.length ? gzipSync(text.join(""), { level: 9 }).length : undefined }))
      .filter((entry) => entry.raw > 0)
      .sort((a, b) => b.raw - a.raw);
    const duplicates = [...paths]
      .filter(([, directories]) => directories.size > 1)
      .map(([name, directories]) => ({ name, copies: [...directories].map((directory) => ({ directory, version: versionAt(dirname(config), directory) })) }));
    const inputNames = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    for (const [name, parts] of Object.entries(COPIES_INSIDE)) {
      const present = parts.filter((part) => inputNames.some((input) => input.includes(`node_modules/${part}`)));
      if (present.length > 1) duplicates.push({ name, copies: present.map((part) => ({ directory: `node_modules/${part}`, version: "inside one package" })) });
    }
    const unwanted = byPackage.filter((entry) => UNWANTED[entry.name]).map((entry) => ({ ...entry, why: UNWANTED[entry.name] }));
    return { total, modules, ...(callerOutdir && { moduleFiles }), byPackage, duplicates, unwanted };
  } finally {
    if (callerOutdir) {
      // The caller's folder: left as it is.
    } else if (keep) console.error(`the build is kept in ${outdir}`);
    else rmSync(outdir, { recursive: true, force: true });
  }
}

function runWrangler(args, cwd) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(nodeBin, [wranglerBin, ...args], {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true", CI: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolveRun(output) : reject(new Error(`wrangler ${args.join(" ")} exited with ${code}:\n${output.slice(-3000)}`))));
  });
}

function listFiles(directory) {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

/** `node_modules/@scope/name/…` → the last package on the path; our own files by their src/ folder. `input` is relative to the project. */
function packageOf(input) {
  const path = normalise(input);
  const marker = "node_modules/";
  const at = path.lastIndexOf(marker);
  if (at < 0) {
    const parts = path.split("/");
    const source = parts.indexOf("src");
    if (source >= 0 && parts.length > source + 2) return { name: `(ours) src/${parts[source + 1]}` };
    return { name: `(ours) ${parts.slice(Math.max(source, 0)).join("/")}` };
  }
  const rest = path.slice(at + marker.length).split("/");
  const name = rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  return { name, directory: path.slice(0, at + marker.length) + name };
}

function normalise(path) {
  return path
    .replace(/\\/g, "/")
    .replace(/^(\.\.\/)+/, "")
    .replace(/^\.\//, "");
}

function versionAt(base, directory) {
  for (const candidate of [join(base, directory, "package.json"), join(root, directory, "package.json")]) {
    try {
      return JSON.parse(readFileSync(candidate, "utf8")).version;
    } catch {
      // try the next
    }
  }
  return "?";
}

// ─────────────────────────────────────────────── output text per package

const BASE64 = new Map([..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].map((character, index) => [character, index]));

/** Decodes one VLQ segment of a source map into its numbers. */
function decodeSegment(segment) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const character of segment) {
    const digit = BASE64.get(character);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

/**
 * Cuts the generated code into the ranges each source produced (a mapping
 * starts a range that runs to the next mapping) and joins them per source
 * (absolute paths). Works the same for minified and unminified output.
 */
function textBySource(code, map, mapDirectory) {
  const sources = map.sources.map((source) => resolve(map.sourceRoot || mapDirectory, source));
  const pieces = new Map();
  const mappingLines = map.mappings.split(";");
  const lines = code.split("\n");
  let sourceIndex = 0;
  let current;
  for (let line = 0; line < lines.length; line += 1) {
    const text = lines[line];
    let column = 0;
    let last = 0;
    for (const segment of (mappingLines[line] ?? "").split(",")) {
      if (!segment) continue;
      const values = decodeSegment(segment);
      column += values[0];
      if (current !== undefined && column > last) append(pieces, current, text.slice(last, column));
      last = column;
      if (values.length > 1) {
        sourceIndex += values[1];
        current = sources[sourceIndex];
      }
    }
    if (current !== undefined) append(pieces, current, `${text.slice(last)}\n`);
  }
  return new Map([...pieces].map(([source, parts]) => [source, parts.join("")]));
}

function append(pieces, key, text) {
  const list = pieces.get(key) ?? [];
  list.push(text);
  pieces.set(key, list);
}

/**
 * A package that ships its own source maps is mapped back to its original
 * sources, whose paths can lie outside its folder (drizzle-orm's point at
 * `node_modules/src/…`). So each original source is owned by the package of
 * the bundled file whose map names it.
 */
function ownersOfOriginalSources(inputs, base) {
  const owners = new Map();
  for (const input of inputs) {
    const file = resolve(base, input);
    const mapFile = `${file}.map`;
    if (!input.includes("node_modules/") || !existsSync(mapFile)) continue;
    try {
      const map = JSON.parse(readFileSync(mapFile, "utf8"));
      const name = packageOf(input).name;
      for (const source of map.sources ?? []) owners.set(resolve(dirname(file), map.sourceRoot ?? "", source), name);
    } catch {
      // An unreadable map: its sources fall back to their own paths.
    }
  }
  return owners;
}

// ─────────────────────────────────────────────── the command

const kib = (bytes) => (bytes === undefined ? "n/a" : (bytes / 1024).toFixed(1));

function printTable(header, rows) {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => String(row[column]).length)));
  const render = (cells) => cells.map((cell, column) => (column === 0 ? String(cell).padEnd(widths[column]) : String(cell).padStart(widths[column]))).join("  ");
  console.log(`${render(header)}\n${widths.map((width) => "-".repeat(width)).join("  ")}`);
  for (const row of rows) console.log(render(row));
}

export function printReport(report, { top = 25, files = 10 } = {}) {
  const { total, modules, byPackage, duplicates, unwanted } = report;
  console.log(`\nWorker bundle (wrangler deploy --dry-run): ${modules.length} module file(s), ${kib(total.raw)} KiB, ${kib(total.gzip)} KiB gzip\n`);
  if (modules.length > 1) {
    printTable(
      ["module file", "KiB", "KiB gzip"],
      [...modules]
        .sort((a, b) => b.raw - a.raw)
        .slice(0, files)
        .map((module) => [module.file, kib(module.raw), kib(module.gzip)]),
    );
    console.log("");
  }
  printTable(
    ["package", "KiB", "KiB gzip", "share"],
    byPackage.slice(0, top).map((entry) => [entry.name, kib(entry.raw), kib(entry.gzip), `${((entry.raw / total.raw) * 100).toFixed(1)}%`]),
  );
  if (byPackage.length > top) {
    const rest = byPackage.slice(top);
    console.log(`… and ${rest.length} more (${kib(rest.reduce((sum, entry) => sum + entry.raw, 0))} KiB)`);
  }
  console.log(duplicates.length ? "\nin the bundle twice:" : "\nin the bundle twice: none (one path per package)");
  for (const duplicate of duplicates) console.log(`  ${duplicate.name}: ${duplicate.copies.map((copy) => `${copy.version} at ${copy.directory}`).join(", ")}`);
  console.log(unwanted.length ? "\nshipped but unusable on Workers:" : "\nshipped but unusable on Workers: none");
  for (const entry of unwanted) console.log(`  ${entry.name} (${kib(entry.raw)} KiB): ${entry.why}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values: flags } = parseArgs({
    options: {
      top: { type: "string", default: "25" },
      files: { type: "string", default: "10" },
      json: { type: "boolean", default: false },
      limit: { type: "string" },
      config: { type: "string" },
      keep: { type: "boolean", default: false },
    },
  });
  const report = await bundleReport({ config: flags.config ? resolve(flags.config) : undefined, keep: flags.keep });
  if (flags.json) console.log(JSON.stringify(report, null, 2));
  else printReport(report, { top: Number(flags.top), files: Number(flags.files) });
  if (flags.limit && report.total.gzip > Number(flags.limit) * 1024) {
    console.error(`\nover the limit: ${kib(report.total.gzip)} KiB gzip > ${flags.limit} KiB`);
    process.exit(1);
  }
}
