#!/usr/bin/env node
/**
 * Copies every JSON example of the design documents Switchboard is built from
 * into `test/fixtures/design-examples/`, verbatim, so the tests can hold the
 * gateway to the documents' own forms without anyone retyping them:
 *
 *   node scripts/extract-design-examples.mjs <folder with the documents>
 *
 * Each document is known by its first heading (the files' names say nothing).
 * What is taken: every fenced `json` block, and a block in any other fence
 * when it parses as a JSON object that is a config. Each becomes
 * `<subject>-<n>.json` (n counts from 1 per document); a block with comments
 * (`/* … *\/` placeholders) is kept as `.jsonc`, and a block that is only a
 * piece of an object (a property without its braces) as `.fragment.txt`.
 * The catalogue writes its configs in YAML: its `yaml` blocks are kept as
 * `.yaml`, as written (the gateway reads JSON; the test converts them, as a
 * user would).
 * `index.json` says where each came from (document, subject, line of the
 * block's first line) and what it is: `agent-config`, `tool-config`,
 * `mcp-server`, `orchestrator-config` (queues and per-server settings of the
 * orchestrator), `catalogue-config` (the catalogue's `tools` settings), `result` (an answer or a stored message) or `other`.
 *
 * Running it again rewrites the folder; the fixtures are committed, and
 * `test/design-examples.test.ts` reads them.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";

const root = resolve(import.meta.dirname, "..");
const target = join(root, "test", "fixtures", "design-examples");

/** Each document's first heading, and the subject its fixtures are named after. */
const subjects = [
  { heading: /^# 06 — Tool System$/, subject: "tool-system" },
  { heading: /^# Tool System$/, subject: "orchestrator" },
  { heading: /^# Tools System$/, subject: "catalogue", yaml: true },
  { heading: /^# Tool Space Messages/, subject: "display-tools" },
  { heading: /^# Hsafa Tools — Design Document$/, subject: "prebuilt-tools" },
];

/** The text with `/* … *\/` and `// …` comments outside strings removed (JSON with comments → JSON). */
export function stripComments(text) {
  let out = "";
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      out += char;
      if (char === "\\") out += text[++index] ?? "";
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char === "/" && text[index + 1] === "*") {
      const end = text.indexOf("*/", index + 2);
      index = end === -1 ? text.length : end + 1;
    } else if (char === "/" && text[index + 1] === "/") {
      const end = text.indexOf("\n", index);
      index = end === -1 ? text.length : end - 1;
    } else out += char;
  }
  return out;
}

/** How a block parses: `json`, `jsonc` (after its comments are removed), `fragment` (inside braces), or not at all. */
export function parseBlock(text) {
  const attempts = [
    ["json", text],
    ["jsonc", stripComments(text)],
    ["fragment", `{${text}}`],
  ];
  for (const [parse, candidate] of attempts) {
    try {
      return { parse, value: JSON.parse(candidate) };
    } catch {
      // the next reading
    }
  }
  return undefined;
}

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** What an example is, by its shape. */
export function kindOf(value) {
  if (!isObject(value)) return "other";
  if (isObject(value.agent) && isObject(value.model)) return "agent-config";
  if (typeof value.executionType === "string") return "tool-config";
  // A REST tool of the orchestrator: a request and the schema of its parameters.
  if (typeof value.url === "string" && typeof value.method === "string" && isObject(value.parametersSchema)) return "tool-config";
  if (isObject(value.mcp) && Array.isArray(value.mcp.servers)) return "mcp-server";
  if (typeof value.command === "string" || (typeof value.transport === "string" && typeof value.url === "string")) return "mcp-server";
  if (isObject(value.queues) || isObject(value.mcpServers)) return "orchestrator-config";
  if (isObject(value.tools)) return "catalogue-config";
  if ("error" in value || isObject(value.tool_output) || Array.isArray(value.parts)) return "result";
  return "other";
}

const configKinds = new Set(["agent-config", "tool-config", "mcp-server", "orchestrator-config", "catalogue-config"]);

/** A YAML block's value, when it is an object (a config), or undefined. */
function parseYamlBlock(text) {
  try {
    const value = parseYaml(text);
    return isObject(value) ? { parse: "yaml", value } : undefined;
  } catch {
    return undefined;
  }
}

/** The fenced blocks of a Markdown text: info string, the line of their first line, their text. */
export function fencedBlocks(text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,})(.*)$/.exec(lines[index]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body = [];
    let end = index + 1;
    while (end < lines.length && !lines[end].trimStart().startsWith(fence)) {
      // An indented fence's lines lose the fence's own indentation.
      body.push(lines[end].startsWith(indent) ? lines[end].slice(indent.length) : lines[end]);
      end++;
    }
    blocks.push({ info: info.trim().split(/\s+/)[0] ?? "", line: index + 2, text: body.join("\n") });
    index = end;
  }
  return blocks;
}

function main() {
  const folder = process.argv[2];
  if (!folder) {
    console.error("usage: node scripts/extract-design-examples.mjs <folder with the design documents>");
    process.exit(2);
  }
  const documents = readdirSync(folder)
    .filter((name) => name.endsWith(".txt") || name.endsWith(".md"))
    .map((name) => ({ name, text: readFileSync(join(folder, name), "utf8") }))
    .flatMap(({ name, text }) => {
      const heading = text.split("\n", 1)[0];
      const known = subjects.find((entry) => entry.heading.test(heading));
      return known ? [{ name, text, title: heading.replace(/^#\s*/, ""), subject: known.subject }] : [];
    });
  const missing = subjects.filter((entry) => !documents.some((document) => document.subject === entry.subject));
  if (missing.length > 0) {
    console.error(`not found in ${folder}: ${missing.map((entry) => entry.subject).join(", ")}`);
    process.exit(1);
  }
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const index = [];
  for (const { subject, yaml } of subjects) {
    const document = documents.find((entry) => entry.subject === subject);
    let n = 0;
    for (const block of fencedBlocks(document.text)) {
      const parsed = yaml && block.info === "yaml" ? parseYamlBlock(block.text) : parseBlock(block.text);
      if (parsed?.parse === "yaml" && !configKinds.has(kindOf(parsed.value))) continue;
      if (block.info !== "json" && parsed?.parse !== "yaml") {
        // Other fences hold code, diagrams and event lines: only a config written as JSON is taken from them.
        if (parsed?.parse !== "json" || !configKinds.has(kindOf(parsed.value))) continue;
      }
      n++;
      const extensions = { json: ".json", jsonc: ".jsonc", yaml: ".yaml", fragment: ".fragment.txt" };
      const extension = parsed === undefined ? ".txt" : extensions[parsed.parse];
      const file = `${subject}-${n}${extension}`;
      writeFileSync(join(target, file), `${block.text}\n`);
      index.push({
        file,
        document: document.title,
        subject,
        line: block.line,
        fence: block.info || "(none)",
        parse: parsed?.parse ?? "none",
        kind: parsed ? kindOf(parsed.value) : "other",
      });
    }
  }
  writeFileSync(join(target, "index.json"), `${JSON.stringify(index, null, 2)}\n`);
  console.log(`${index.length} examples → ${target}`);
  for (const entry of index) console.log(`  ${entry.file.padEnd(32)} ${entry.kind.padEnd(20)} line ${entry.line}`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
