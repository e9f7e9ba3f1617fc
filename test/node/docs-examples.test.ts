/**
 * Every shell and TypeScript example of README.md and docs/*.md, taken from
 * its fence as written, run the way a reader runs it, against the node
 * project's gateway (`npm run dev`, started by global-setup.ts).
 *
 * Shell: each document's blocks in one bash session, in order (a block uses
 * the variables the blocks before it set; a block marked `runs first` opens
 * the session), in a project folder of the document's own (reader-project.ts:
 * `.dev.vars`, the URL `npm run dev` recorded, a demo), with BASE, SECRET and
 * PUBLIC set as docs/tools.md's set-up sets them (the other pages say to use
 * those). A block passes when it ends within its time, with status 0,
 * printing what its document shows and no error it does not
 * (output-problems.ts).
 *
 * TypeScript: every example but a sketch is type-checked, strict, each
 * document's as one module (what the prose leaves to the reader declared
 * before it: example-module.ts), against the workspace packages' source; each
 * document's examples not marked `not run` then run, in order, as one
 * program with Node (its type stripping), against the gateway.
 *
 * A block that cannot run here says so in its document, with why
 * (doc-examples.ts); the skipped tests are named with that reason.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DocExample, docExamples, exampleDocuments, repositoryRoot } from "./doc-examples";
import { type ExampleModule, docPreludes, exampleModule, locatedReport } from "./example-module";
import { gateway } from "./gateway";
import { outputProblems } from "./output-problems";
import { readerEnv, readerProject } from "./reader-project";
import { ShellSession } from "./shell-session";

const run = promisify(execFile);
const blockTimeoutMs = 60_000;
const documents = exampleDocuments().map((doc) => ({ doc, ...docExamples(doc) }));
const examples = documents.flatMap((document) => document.examples);
const workspace = mkdtempSync(join(tmpdir(), "switchboard-docs-examples-"));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const name = (example: DocExample) => `${example.doc}:${example.line}`;
const fileName = (doc: string) => doc.replace(/[^\w]+/g, "-");

/** Each document's project folder, made when its first example needs it. */
const projects = new Map<string, Promise<string>>();
function projectOf(doc: string): Promise<string> {
  let project = projects.get(doc);
  if (!project) {
    project = readerProject(join(workspace, fileName(doc)), gateway);
    projects.set(doc, project);
  }
  return project;
}

/** curl as the examples call it, but saying why it failed even under `-s` (output-problems.ts reads that). */
const curlHome = join(workspace, "curl");
mkdirSync(curlHome);
writeFileSync(join(curlHome, ".curlrc"), "show-error\n");
const shellEnv = readerEnv({
  BASE: gateway.baseUrl,
  SECRET: gateway.vars.GATEWAY_SECRET_KEY,
  PUBLIC: gateway.vars.GATEWAY_PUBLIC_KEY,
  CURL_HOME: curlHome,
});
/** What a program using the SDK reads: the gateway and its keys, by the names docs/client.md gives. */
const programEnv = readerEnv({
  SWITCHBOARD_URL: gateway.baseUrl,
  GATEWAY_SECRET_KEY: gateway.vars.GATEWAY_SECRET_KEY,
  GATEWAY_PUBLIC_KEY: gateway.vars.GATEWAY_PUBLIC_KEY,
  JWT_SECRET: gateway.vars.JWT_SECRET,
  WEBHOOK_SECRET: gateway.vars.WEBHOOK_SECRET,
});

function report(example: DocExample, result: { status: number; stdout: string; stderr: string; timedOut: boolean }): string {
  const said = result.timedOut ? `did not end within ${blockTimeoutMs / 1000} s` : `ended with status ${result.status}`;
  return `${name(example)} ${said}.\n--- the block\n${example.code}\n--- stdout\n${result.stdout.slice(-6000)}\n--- stderr\n${result.stderr.slice(-4000)}`;
}

it("has the tools the examples use: bash, curl and jq (apt-get install -y curl jq)", async () => {
  const { stdout } = await run("bash", ["-c", "for tool in curl jq; do command -v $tool > /dev/null || echo $tool; done"]);
  expect(stdout.split("\n").filter(Boolean), "missing").toEqual([]);
});

describe("the examples' markers", () => {
  it("are each the line before a ```sh or ```ts fence, of a known kind, with a reason", () => {
    expect(documents.flatMap((document) => document.problems)).toEqual([]);
  });

  it("leave most examples to run", () => {
    const skipped = examples.filter((example) => example.marker?.kind === "not run" || example.marker?.kind === "not checked");
    // Each one is also a skipped test named with its reason (below), so a run lists them without printing.
    expect(skipped.length).toBeLessThan(examples.length / 2);
  });
});

for (const { doc, examples: shellExamples } of documents.map((document) => ({ ...document, examples: document.examples.filter((example) => example.language === "sh") }))) {
  if (shellExamples.length === 0) continue;
  describe(`${doc}: the shell examples, in one session, in order`, () => {
    let session: ShellSession | undefined;
    afterAll(() => session?.close());
    const order = [...shellExamples.filter((example) => example.marker?.kind === "runs first"), ...shellExamples.filter((example) => example.marker?.kind !== "runs first")];
    for (const example of order) {
      if (example.marker?.kind === "not run") {
        it.skip(`${name(example)}: not run (${example.marker.reason})`, () => {});
        continue;
      }
      it(
        `${name(example)} runs as written`,
        async () => {
          session ??= new ShellSession(await projectOf(doc), shellEnv);
          const result = await session.run(example.code, blockTimeoutMs);
          expect(result.timedOut, report(example, result)).toBe(false);
          expect(result.status, report(example, result)).toBe(0);
          expect(outputProblems(example, result.stdout, result.stderr, gateway.baseUrl), report(example, result)).toEqual([]);
        },
        blockTimeoutMs + 15_000,
      );
    }
  });
}

describe("the TypeScript examples", () => {
  const typeScript = documents
    .map(({ doc, examples: all }) => ({ doc, examples: all.filter((example) => example.language === "ts" && example.marker?.kind !== "not checked") }))
    .filter(({ examples: checked }) => checked.length > 0);
  const modules: Record<string, ExampleModule> = {};
  let checked = { code: 0, out: "" };

  beforeAll(async () => {
    // Against the workspace packages' source (`@switchboard/client` is client/src): what the docs promise of the code as it is now.
    const folder = join(workspace, "typecheck");
    mkdirSync(folder);
    symlinkSync(join(repositoryRoot, "node_modules"), join(folder, "node_modules"));
    for (const { doc, examples: checkedExamples } of typeScript) {
      const module = exampleModule(checkedExamples, docPreludes[doc]);
      modules[`${fileName(doc)}.mts`] = module;
      writeFileSync(join(folder, `${fileName(doc)}.mts`), module.text);
    }
    const tsconfig = {
      extends: join(repositoryRoot, "client", "tsconfig.json"),
      compilerOptions: { types: ["node"], noEmit: true, jsx: "react-jsx", paths: { "@switchboard/*": [join(repositoryRoot, "*", "src", "index.ts")] } },
      include: [],
      files: Object.keys(modules),
    };
    writeFileSync(join(folder, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    try {
      const { stdout, stderr } = await run(process.execPath, [join(repositoryRoot, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], { cwd: folder });
      checked = { code: 0, out: `${stdout}${stderr}` };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string; message: string };
      checked = { code: failed.code ?? 1, out: `${failed.stdout ?? ""}${failed.stderr ?? ""}` || failed.message };
    }
    checked.out = locatedReport(checked.out, modules);
  }, 120_000);

  it("finds examples to check", () => {
    expect(typeScript.map(({ doc }) => doc)).toEqual(expect.arrayContaining(["README.md", "docs/client.md"]));
  });

  for (const { doc, examples: checkedExamples } of typeScript) {
    for (const example of checkedExamples) {
      it(`${name(example)} type-checks (strict)`, () => {
        const lines = example.code.split("\n").length;
        const inside = (origin: string) => {
          const line = Number(origin.slice(origin.lastIndexOf(":") + 1));
          return origin.startsWith(`${doc}:`) && line > example.line && line <= example.line + lines;
        };
        const errors = checked.out.split("\n").filter((line, index, all) => {
          const origin = /^\s+\((.+)\)$/.exec(all[index + 1] ?? "")?.[1];
          return origin !== undefined && inside(origin) && /error TS\d+/.test(line);
        });
        expect(errors, checked.out).toEqual([]);
      });
    }
  }

  it("the compiler finds nothing else wrong (the preludes, the packages)", () => {
    expect(checked.out, checked.out).toBe("");
    expect(checked.code).toBe(0);
  });

  for (const { doc, examples: checkedExamples } of typeScript) {
    const runnable = checkedExamples.filter((example) => example.marker === undefined);
    for (const example of checkedExamples.filter((example) => example.marker?.kind === "not run")) {
      it.skip(`${name(example)}: not run (${example.marker?.reason})`, () => {});
    }
    if (runnable.length === 0) continue;
    it(
      `${doc}:${runnable.map((example) => example.line).join(",")} run${runnable.length > 1 ? ", in order, as one program" : ""}`,
      async () => {
        const project = await projectOf(doc);
        const program = `${fileName(doc)}.examples.mts`;
        writeFileSync(join(project, program), exampleModule(runnable).text);
        const result = await run(process.execPath, [program], { cwd: project, env: programEnv, timeout: blockTimeoutMs }).then(
          ({ stdout, stderr }) => ({ status: 0, stdout, stderr, timedOut: false }),
          (error: { code?: number | string; killed?: boolean; stdout?: string; stderr?: string }) => ({
            status: typeof error.code === "number" ? error.code : -1,
            stdout: error.stdout ?? "",
            stderr: error.stderr ?? String(error),
            timedOut: error.killed === true,
          }),
        );
        const shown: DocExample = { ...runnable[0], code: runnable.map((example) => example.code).join("\n") };
        expect(result.status, report(shown, result)).toBe(0);
      },
      blockTimeoutMs + 15_000,
    );
  }
});
