/**
 * The shell and TypeScript examples of README.md and docs/*.md, read from
 * their Markdown fences as written: each with its document, the line of its
 * fence, what the line before it says about it, and the output the document
 * shows for it. Shared by docs-examples.test.ts (which runs them),
 * packages.test.ts (which type-checks the SDK's in a project of its own) and
 * global-setup.ts (which starts the gateway with the keys the examples add).
 *
 * What the line before a fence may say (an HTML comment, so readers of the
 * rendered page do not see it):
 * - `<!-- example: not run (why) -->`: a shell example that cannot run in a
 *   test (a Cloudflare account, the registry, a command that runs until
 *   stopped…), or a TypeScript one that is type-checked but not run;
 * - `<!-- example: not checked (why) -->`: TypeScript that is not a whole
 *   program's code (a sketch): neither type-checked nor run;
 * - `<!-- example: runs first (why) -->`: the set-up the page's examples
 *   need, also the ones above it: its page's session starts with it.
 * Every other block of a page runs, in order, in one shell session (sh) or
 * one program (ts), so a block uses what the blocks before it made.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const repositoryRoot = join(import.meta.dirname, "..", "..");

export type ExampleLanguage = "sh" | "ts";
export type ExampleMarker = { kind: "not run" | "not checked" | "runs first"; reason: string };
/** What a document shows a block prints: the fence after it (```, ```json or ```text), with only blank lines between. */
export type ShownOutput = { line: number; text: string; json: boolean };

export type DocExample = {
  /** The document, relative to the repository: `README.md`, `docs/tools.md`. */
  doc: string;
  /** The line of the opening fence (1-based). */
  line: number;
  language: ExampleLanguage;
  /** The block's text, without the fences and without the fence's own indentation. */
  code: string;
  marker?: ExampleMarker;
  output?: ShownOutput;
};

/** A marker the test cannot read: no reason, an unknown kind, or no fence after it. */
export type MarkerProblem = { doc: string; line: number; problem: string };

const languages: Record<string, ExampleLanguage> = { sh: "sh", bash: "sh", ts: "ts", typescript: "ts" };
const outputLanguages = new Set(["", "json", "text"]);
const markerPattern = /^<!--\s*example:\s*(.*?)\s*-->$/;
const markerKinds = ["not run", "not checked", "runs first"] as const;

/** README.md and every docs/*.md, in that order. */
export function exampleDocuments(): string[] {
  const docs = readdirSync(join(repositoryRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs];
}

type Fence = { line: number; indent: string; language: string; body: string[]; before: string | undefined; end: number };

/** Every fenced block of a document, with the nearest non-blank line before it. */
function fences(lines: string[]): Fence[] {
  const found: Fence[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)```\s*([\w-]*)/.exec(lines[index]);
    if (!open) continue;
    let end = index + 1;
    while (end < lines.length && lines[end].trim() !== "```") end++;
    const indent = open[1];
    const before = lines
      .slice(0, index)
      .reverse()
      .find((line) => line.trim() !== "");
    found.push({
      line: index + 1,
      indent,
      language: open[2],
      body: lines.slice(index + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart())),
      before: before?.trim(),
      end,
    });
    index = end;
  }
  return found;
}

function readMarker(text: string): ExampleMarker | string {
  const match = markerPattern.exec(text);
  if (!match) return "not an example marker";
  const said = match[1];
  const kind = markerKinds.find((name) => said === name || said.startsWith(`${name} `) || said.startsWith(`${name}(`));
  if (!kind) return `"${said}" is not one of: ${markerKinds.join(", ")}`;
  const reason = /^\((.*)\)$/.exec(said.slice(kind.length).trim())?.[1]?.trim();
  if (!reason) return `"${said}" gives no reason: write it as <!-- example: ${kind} (why) -->`;
  return { kind, reason };
}

/** The shell and TypeScript examples of one document, and the problems of its markers. */
export function docExamples(doc: string): { examples: DocExample[]; problems: MarkerProblem[] } {
  const lines = readFileSync(join(repositoryRoot, doc), "utf8").split("\n");
  const blocks = fences(lines);
  const examples: DocExample[] = [];
  const problems: MarkerProblem[] = [];
  const markedLines = new Set<number>();
  blocks.forEach((fence, index) => {
    const language = languages[fence.language];
    if (!language) return;
    const example: DocExample = { doc, line: fence.line, language, code: fence.body.join("\n") };
    if (fence.before?.startsWith("<!--") && markerPattern.test(fence.before)) {
      const marker = readMarker(fence.before);
      const markerLine = lines.slice(0, fence.line - 1).findLastIndex((line) => line.trim() !== "") + 1;
      markedLines.add(markerLine);
      if (typeof marker === "string") problems.push({ doc, line: markerLine, problem: marker });
      else if (marker.kind === "runs first" && language !== "sh") problems.push({ doc, line: markerLine, problem: "only a shell example runs first" });
      else if (marker.kind === "not checked" && language !== "ts") problems.push({ doc, line: markerLine, problem: "only TypeScript is type-checked: say not run" });
      else example.marker = marker;
    }
    const next = blocks[index + 1];
    if (language === "sh" && next && outputLanguages.has(next.language) && lines.slice(fence.end + 1, next.line - 1).every((line) => line.trim() === "")) {
      example.output = { line: next.line, text: next.body.join("\n"), json: next.language === "json" };
    }
    examples.push(example);
  });
  lines.forEach((text, index) => {
    if (markerPattern.test(text.trim()) && !markedLines.has(index + 1)) {
      problems.push({ doc, line: index + 1, problem: "an example marker must be the line right before a ```sh or ```ts fence" });
    }
  });
  return { examples, problems };
}

/**
 * The `NAME=value` lines the examples append to `.dev.vars` (`echo
 * 'NAME=value' >> .dev.vars`, then a restart of `npm run dev`). The test's
 * gateway cannot be restarted in the middle of the run (every node test
 * shares it), so global-setup.ts starts it with these lines already in its
 * keys file, and the examples' own appends change nothing it reads.
 */
export function devVarsTheExamplesAdd(): string[] {
  const added: string[] = [];
  for (const doc of exampleDocuments()) {
    for (const example of docExamples(doc).examples) {
      if (example.language !== "sh") continue;
      for (const match of example.code.matchAll(/^echo '([A-Z][A-Z0-9_]*=[^']*)' >> \.dev\.vars$/gm)) added.push(match[1]);
    }
  }
  return added;
}
