/**
 * The repository stands alone: its docs and its source say what a thing is or
 * does, never where it was decided. This reads the files from disk (no
 * gateway) and fails listing file:line for every citation of a document that
 * is not in the repository (section signs, design seeds, issue numbers, the
 * planning documents by name) and every markdown link that leaves the
 * repository. Public web links (http, https, mailto) are fine.
 *
 * The patterns are built from pieces so that this file, which is scanned like
 * any other, does not match itself.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");

/** What must not be written, each with why (shown in the failure). */
const forbidden: { pattern: RegExp; why: string }[] = [
  { pattern: new RegExp(String.fromCodePoint(0xa7)), why: "a section number of a document outside the repository" },
  { pattern: new RegExp(`\\b${"se"}eds? ?0?0\\d`, "i"), why: "a design seed: say what the thing does" },
  { pattern: new RegExp(`\\b${"iss"}ues? #?\\d+`, "i"), why: "an issue number: say what changed and why" },
  { pattern: new RegExp(`${"CONT"}RACT|${"STY"}LE\\.md|${"TOOL"}CHAIN\\.md`), why: "a planning document that is not in the repository" },
  { pattern: new RegExp(`\\.\\./${"sha"}red\\b`), why: "a path outside the repository" },
  {
    pattern: new RegExp(`\\b(?:the|a|fixed|public) ${"cont"}ract\\b|\\b${"cont"}ract's\\b`, "i"),
    why: "an outside document: name the documented API (docs/api.md, docs/api-reference.md) or say what it is",
  },
];

/** Prose, scanned whole (text and links). */
const proseFiles = ["README.md", "AGENTS.md"];
const proseFolders = ["docs", "client", "cli", "web", "react"];

/** Source and configuration, scanned whole: comments, test names and descriptions alike. */
const sourceFolders = ["src", "web/src", "web/static", "client/src", "codegen", "cli/src", "cli/bin", "react", "scripts", "bench", "test", "migrations", ".ci"];
const sourceFiles = [
  "package.json",
  "client/package.json",
  "cli/package.json",
  "client/openapi.json",
  "wrangler.toml",
  "biome.jsonc",
  ".dependency-cruiser.cjs",
  "vitest.config.ts",
  "drizzle.config.ts",
  "redocly.yaml",
  "tsconfig.json",
];
const sourceExtensions = new Set([".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".css", ".html", ".sql", ".toml", ".json", ".jsonc", ".yaml", ".sh", ""]);
/** Installed or built, not written here. */
const skippedFolders = new Set(["node_modules", "dist", ".wrangler", ".git"]);

function walk(folder: string, keep: (path: string) => boolean): string[] {
  const absolute = join(root, folder);
  let names: string[];
  try {
    names = readdirSync(absolute);
  } catch {
    return []; // a folder this checkout does not have (yet)
  }
  return names.flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(root, path)).isDirectory()) return skippedFolders.has(name) ? [] : walk(path, keep);
    return keep(path) ? [path] : [];
  });
}

function existing(paths: string[]): string[] {
  return paths.filter((path) => {
    try {
      return statSync(join(root, path)).isFile();
    } catch {
      return false;
    }
  });
}

const prose = [...existing(proseFiles), ...proseFolders.flatMap((folder) => walk(folder, (path) => path.endsWith(".md")))];
const source = [...new Set([...existing(sourceFiles), ...sourceFolders.flatMap((folder) => walk(folder, (path) => sourceExtensions.has(extname(path))))])];

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

function wordProblems(path: string, text: string): string[] {
  return text.split("\n").flatMap((line, index) =>
    forbidden.flatMap(({ pattern, why }) => {
      const match = pattern.exec(line);
      return match ? [`${path}:${index + 1}: "${match[0]}" (${why})`] : [];
    }),
  );
}

/** Markdown links, reference definitions and HTML href/src: every target that is not a public URL or an anchor must stay inside the repository. */
function linkProblems(path: string, text: string): string[] {
  const targets = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)|\b(?:href|src)=["']([^"']+)["']/gm;
  const problems: string[] = [];
  for (const match of text.matchAll(targets)) {
    const target = match[1] ?? match[2] ?? match[3];
    if (target === undefined || target.startsWith("#")) continue;
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(target)?.[1]?.toLowerCase();
    if (scheme === "http" || scheme === "https" || scheme === "mailto") continue;
    const where = `${path}:${lineOf(text, match.index)}`;
    if (scheme !== undefined) problems.push(`${where}: link "${target}" (a ${scheme}: link; link a file of the repository relatively)`);
    else if (target.startsWith("/")) problems.push(`${where}: link "${target}" (an absolute path; link a file of the repository relatively)`);
    else {
      const file = decodeURI(target.split("#")[0] ?? "");
      const resolved = resolve(root, dirname(path), file);
      if (resolved !== root && !resolved.startsWith(root + sep)) problems.push(`${where}: link "${target}" (leaves the repository)`);
    }
  }
  return problems;
}

function read(path: string): string {
  return readFileSync(join(root, path), "utf8");
}

describe("the docs and the source stand alone", () => {
  it("finds the files it scans", () => {
    expect(prose).toEqual(expect.arrayContaining(["README.md", "AGENTS.md", join("docs", "api.md")]));
    expect(source).toEqual(expect.arrayContaining([join("src", "index.ts"), join("test", "node", "docs-words.test.ts")]));
  });

  it("the guard catches what it is for", () => {
    const sample = [
      `see ${String.fromCodePoint(0xa7)}7`,
      `${"se"}ed 002's tools`,
      `(${"iss"}ue 10)`,
      `read ${"CONT"}RACT.md`,
      `[x](../${"sha"}red/a.md)`,
      `as the ${"cont"}ract says`,
      "fine: a seeded random, seed-demo.mjs, an issuer, contracts of a function",
    ].join("\n");
    expect(wordProblems("sample.md", sample).map((problem) => problem.split(":")[1])).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(linkProblems("docs/sample.md", `[a](../README.md) [b](../../x.md) [c](/etc/passwd) [d](file:///x) [e](https://example.com) [f](#here)`)).toHaveLength(3);
  });

  it("cites no document outside the repository, in docs or in source", () => {
    const problems = [...prose, ...source].flatMap((path) => wordProblems(path, read(path)));
    expect(problems.length, `Say it in the reader's words instead:\n${problems.join("\n")}`).toBe(0);
  });

  it("links only to files inside the repository, or to public web pages", () => {
    const problems = prose.flatMap((path) => linkProblems(path, read(path)));
    expect(problems.length, problems.join("\n")).toBe(0);
  });
});
