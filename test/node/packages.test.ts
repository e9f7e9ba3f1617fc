/**
 * The SDK, the CLI and the React bindings as someone else's project gets
 * them: each package packed with `npm pack` (whose `prepack` builds it), the
 * tarballs installed into a fresh project outside the repository (with React
 * from the registry, as the bindings' docs say), the README's and
 * docs/client.md's TypeScript examples (taken from their ```ts fences, as
 * written) and docs/react.md's (its ```tsx fences) type-checked there under
 * `strict` with `skipLibCheck: false`, with both `nodenext` and `bundler`
 * resolution, with the repository's TypeScript and with TypeScript 5 (what
 * most projects have); the README's example then run, compiled, against the
 * live gateway, and the CLI run with `npx`.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docPreludes, type ExampleModule, exampleModule, locatedReport } from "./example-module";
import { admin, gateway, spaceEvent } from "./gateway";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
/** The line before a ```ts fence that says the code is not the SDK's (the page's own code, say), or not a whole program (a sketch). */
const notAnSdkExample = ["<!-- not an SDK example", "<!-- example: not checked"];

type Example = { doc: string; line: number; code: string };

/** The ```ts (or ```tsx) fences of a Markdown file, with the line of each fence. */
function tsExamples(doc: string, language: "ts" | "tsx" = "ts"): Example[] {
  const lines = readFileSync(join(root, doc), "utf8").split("\n");
  const examples: Example[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (lines[index].trim() !== `\`\`\`${language}`) continue;
    const previous = lines
      .slice(0, index)
      .reverse()
      .find((line) => line.trim() !== "");
    let end = index + 1;
    while (end < lines.length && lines[end].trim() !== "```") end++;
    if (!notAnSdkExample.some((marker) => previous?.trim().startsWith(marker))) examples.push({ doc, line: index + 1, code: lines.slice(index + 1, end).join("\n") });
    index = end;
  }
  return examples;
}

/** Run, the example prints what it made for the test to check, then ends (its live space would keep it running). */
const readmeEpilogue = `
console.log("example made " + JSON.stringify({ personId: ada.id, agentId: agent.id, spaceId: space.id }));
process.exit(0);
`;
/**
 * What the types promise beyond the examples: a config written with its
 * defaults left out is taken, one without a model is not; answers, events and
 * tool arguments are never \`any\` (\`notAny\` needs a second argument for
 * an \`any\`); events narrow by \`type\`; a handler may annotate its arguments.
 */
const typesCheck = `
import { Switchboard, type AgentConfigInput, type SpaceEventOf, type ToolHandlers } from "@switchboard/client";

type IsAny<T> = 0 extends 1 & T ? true : false;
function notAny<T>(value: T, ...proof: IsAny<T> extends true ? ["is any"] : []): T {
  return value;
}

const server = new Switchboard({ baseUrl: "http://localhost:8787", secretKey: "sk" });
const minimal: AgentConfigInput = { agent: { name: "Minimal" }, model: { provider: "scripted", turns: [] } };
// @ts-expect-error a config needs a model
const withoutModel: AgentConfigInput = { agent: { name: "No model" } };
const created = notAny(await server.agents.create(minimal));
const stored = notAny(await server.agents.get(created.id));
const maxSteps: number = stored.config.loop.maxSteps;
await server.agents.update(created.id, { ...minimal, loop: { maxSteps: 3 } });
await server.importAgent(notAny(await server.exportAgent(created.id)), { name: "Copy" });

server.subscribe("spc_x").on("event", (event) => {
  notAny(event);
  if (event.type === "space.message") {
    const text: string | undefined = event.data.text;
    const seq: number = event.data.seq;
  }
  if (event.type === "space.member.joined") {
    const joined: string = event.data.entityId;
    // @ts-expect-error a member's event has no message text
    event.data.text.length;
  }
});
server.subscribeAgent("agt_x").on("event", (event) => {
  if (event.type === "tool.pending") notAny(event.data.toolCallId).toUpperCase();
});
const started: SpaceEventOf<"tool.started">["type"] = "tool.started";

const handlers: ToolHandlers = {
  untyped: (args, call) => [notAny(args), notAny(call).toolName],
  typed: async ({ orderId }: { orderId: string }) => orderId.toUpperCase(),
};
await server.handleTools(handlers, { agentId: "agt_x" }).close();
`;

/** What docs/react.md's examples leave to the reader: the public key, your server's token, an order service. */
const reactDocPrelude = `
declare const publicKey: string;
declare function tokenFromYourServer(): Promise<string>;
declare const orders: { find(orderId: string, options: { signal: AbortSignal }): Promise<unknown> };
`;

/**
 * What the bindings' types promise beyond the examples: hooks give no
 * \`any\`, a provider needs a client or its options, a handler may annotate
 * its arguments, a registry takes components by tool name (\`by_name\` or
 * \`byName\`) and a \`Fallback\`.
 */
const reactTypesCheck = `
import { Switchboard, type StreamStatus, type TimelineMessage } from "@switchboard/client";
import { DefaultToolCard, SwitchboardProvider, ToolCards, type ToolCardProps, type ToolRegistry, useMe, useSpace, useSwitchboard, useToolHandler, useToolResult } from "@switchboard/react";

type IsAny<T> = 0 extends 1 & T ? true : false;
function notAny<T>(value: T, ...proof: IsAny<T> extends true ? ["is any"] : []): T {
  return value;
}

function Checked({ message }: { message: TimelineMessage }) {
  const space = notAny(useSpace("spc_x", { transport: "sse", afterSeq: 0 }));
  const status: StreamStatus = space.status;
  for (const item of space.timeline) {
    if (item.kind === "message") notAny(item.message.text);
    else notAny(item.failure.error).toUpperCase();
  }
  const sent: Promise<{ id: string; seq: number }> = space.send("Hello", { mentions: ["ent_x"] });
  const { submit, decline, pending, error } = notAny(useToolResult("call_x", { runId: "run_x" }));
  const taken: Promise<boolean> = submit({ rating: 5 });
  const declined: Promise<boolean> = decline("not now");
  const { outcomes } = useToolHandler("untyped", (args, call) => [notAny(args), notAny(call).toolName, call.signal.aborted]);
  useToolHandler("typed", async ({ orderId }: { orderId: string }) => orderId.toUpperCase(), { spaceId: "spc_x", timeoutMs: 5_000 });
  notAny(outcomes[0]);
  const client: Switchboard = useSwitchboard();
  const name: string | undefined = notAny(useMe()).me?.entity.name;
  return <ToolCards message={message} tools={tools} />;
}

function Named({ call, canAnswer, waitingFor }: ToolCardProps) {
  return <p>{canAnswer ? call.toolName : waitingFor}</p>;
}
const tools: ToolRegistry = { by_name: { lookup: Named }, Fallback: DefaultToolCard };
const camel: ToolRegistry = { byName: { lookup: Named } };

const withOptions = <SwitchboardProvider options={{ baseUrl: "http://localhost:8787", publicKey: "pk", token: () => "jwt" }}>{null}</SwitchboardProvider>;
const withClient = <SwitchboardProvider client={new Switchboard({ baseUrl: "http://localhost:8787", secretKey: "sk" })}>{null}</SwitchboardProvider>;
// @ts-expect-error a provider needs a client or the options to make one
const withNothing = <SwitchboardProvider>{null}</SwitchboardProvider>;
`;

/** The installed packages' declarations with comments and string literals taken out: where an \`any\` would be a type. */
function anyInDeclarations(folder: string): string[] {
  const found: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".d.ts")) {
        const code = readFileSync(path, "utf8")
          .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, " "))
          .replace(/\/\/.*$/gm, "")
          .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""');
        code.split("\n").forEach((line, index) => {
          if (/\bany\b/.test(line)) found.push(`${relative(folder, path)}:${index + 1}: ${line.trim()}`);
        });
      }
    }
  };
  walk(folder);
  return found;
}

function versionOf(packageJson: string): string {
  return (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
}

/** The environment for npm and the compilers: this process's, less what `npm test` set for its own npm (a workspace, a prefix). */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name) && name !== "INIT_CWD") env[name] = value;
  return { ...env, npm_config_cache: process.env.npm_config_cache ?? join(homedir(), ".npm"), npm_config_update_notifier: "false", ...extra };
}

async function sh(file: string, args: string[], cwd: string, env = childEnv(), timeout = 180_000): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, out: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return { code: typeof failed.code === "number" ? failed.code : 1, out: `${failed.stdout ?? ""}${failed.stderr ?? ""}${failed.stdout || failed.stderr ? "" : failed.message}` };
  }
}

const project = mkdtempSync(join(tmpdir(), "switchboard-packages-"));
// The repository's TypeScript, and the TypeScript 5 the codegen workspace keeps (the one most projects use), installed as `typescript5`.
const compilers = [
  { version: versionOf(join(root, "node_modules/typescript/package.json")), tsc: "node_modules/typescript/bin/tsc", install: "typescript" },
  {
    version: versionOf(createRequire(join(root, "codegen/package.json")).resolve("typescript/package.json")),
    tsc: "node_modules/typescript5/bin/tsc",
    install: "typescript5@npm:typescript",
  },
];
const modules: Record<string, ExampleModule> = {};
let tarballs: string[] = [];

/** tsc's report with each line that points into an example module followed by the document line it came from. */
const located = (report: string) => locatedReport(report, modules);

beforeAll(async () => {
  for (const folder of ["client", "cli", "react"]) {
    const packed = await sh("npm", ["pack", "--pack-destination", project], join(root, folder));
    expect(packed.code, `npm pack in ${folder}/:\n${packed.out}`).toBe(0);
  }
  tarballs = readdirSync(project).filter((name) => name.endsWith(".tgz"));
  expect(tarballs.sort()).toEqual(["switchboard-cli-0.1.0.tgz", "switchboard-client-0.1.0.tgz", "switchboard-react-0.1.0.tgz"]);

  writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "someone-elses-app", private: true, type: "module" }, null, 2)}\n`);
  const typesNode = versionOf(join(root, "node_modules/@types/node/package.json"));
  // React as the bindings' docs install it, at the repository's versions (from npm's cache when it has them).
  const react = ["react", "react-dom", "@types/react", "@types/react-dom"].map((name) => `${name}@${versionOf(join(root, "node_modules", name, "package.json"))}`);
  const installed = await sh(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      ...tarballs.map((name) => `./${name}`),
      ...compilers.map(({ install, version }) => `${install}@${version}`),
      `@types/node@${typesNode}`,
      ...react,
    ],
    project,
  );
  expect(installed.code, `npm install in ${project}:\n${installed.out}`).toBe(0);

  modules["readme.ts"] = exampleModule(tsExamples("README.md"), docPreludes["README.md"], readmeEpilogue);
  modules["client-doc.ts"] = exampleModule(tsExamples("docs/client.md"), docPreludes["docs/client.md"]);
  modules["types-check.ts"] = { text: typesCheck, origins: [] };
  modules["react-doc.tsx"] = exampleModule(tsExamples("docs/react.md", "tsx"), reactDocPrelude);
  modules["react-types-check.tsx"] = { text: reactTypesCheck, origins: [] };
  for (const [file, module] of Object.entries(modules)) writeFileSync(join(project, file), module.text);
  const common = { strict: true, skipLibCheck: false, target: "es2022", types: ["node"], forceConsistentCasingInFileNames: true };
  const files = Object.keys(modules).filter((file) => file.endsWith(".ts"));
  writeFileSync(
    join(project, "tsconfig.nodenext.json"),
    JSON.stringify({ compilerOptions: { ...common, module: "nodenext", moduleResolution: "nodenext", lib: ["es2023"], outDir: "out", rootDir: "." }, files }),
  );
  writeFileSync(
    join(project, "tsconfig.bundler.json"),
    JSON.stringify({ compilerOptions: { ...common, module: "esnext", moduleResolution: "bundler", lib: ["es2023", "dom", "dom.iterable"], noEmit: true }, files }),
  );
  // The bindings' code runs in a browser: the DOM's types and React's JSX (Node's types stay: the SDK's webhook dependency names Buffer).
  const browser = { ...common, lib: ["es2023", "dom", "dom.iterable"], jsx: "react-jsx", noEmit: true };
  const reactFiles = Object.keys(modules).filter((file) => file.endsWith(".tsx"));
  writeFileSync(
    join(project, "tsconfig.react-nodenext.json"),
    JSON.stringify({ compilerOptions: { ...browser, module: "nodenext", moduleResolution: "nodenext" }, files: reactFiles }),
  );
  writeFileSync(
    join(project, "tsconfig.react-bundler.json"),
    JSON.stringify({ compilerOptions: { ...browser, module: "esnext", moduleResolution: "bundler" }, files: reactFiles }),
  );
}, 300_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("the packages, installed from their tarballs in a project outside the repository", () => {
  it("finds the examples to check", () => {
    expect(tsExamples("README.md").length).toBeGreaterThan(0);
    expect(tsExamples("docs/client.md").length).toBeGreaterThan(3);
    expect(tsExamples("docs/react.md", "tsx").length).toBeGreaterThan(4);
  });

  it("ships declarations with no `any` in them", () => {
    expect(anyInDeclarations(join(project, "node_modules/@switchboard/client/dist/types"))).toEqual([]);
    expect(anyInDeclarations(join(project, "node_modules/@switchboard/react/dist/types"))).toEqual([]);
  });

  it("installs the bindings with one React and one SDK: the app's own", () => {
    const listed = (path: string) => readdirSync(join(project, path));
    expect(listed("node_modules/@switchboard")).toEqual(["cli", "client", "react"]);
    expect(() => listed("node_modules/@switchboard/react/node_modules")).toThrow();
  });

  for (const { version, tsc } of compilers) {
    for (const resolution of ["nodenext", "bundler"]) {
      it(`type-checks the README's and docs/client.md's examples with TypeScript ${version}, moduleResolution ${resolution}, strict, skipLibCheck false`, async () => {
        const checked = await sh(process.execPath, [tsc, "-p", `tsconfig.${resolution}.json`, ...(resolution === "nodenext" ? ["--noEmit"] : [])], project);
        expect(located(checked.out), `tsc -p tsconfig.${resolution}.json in ${project}`).toBe("");
        expect(checked.code).toBe(0);
      }, 120_000);

      it(`type-checks docs/react.md's examples and the React bindings' types with TypeScript ${version}, moduleResolution ${resolution}, strict, skipLibCheck false`, async () => {
        const checked = await sh(process.execPath, [tsc, "-p", `tsconfig.react-${resolution}.json`], project);
        expect(located(checked.out), `tsc -p tsconfig.react-${resolution}.json in ${project}`).toBe("");
        expect(checked.code).toBe(0);
      }, 120_000);
    }
  }

  it("runs the README's example, compiled, against the gateway", async () => {
    const compiled = await sh(process.execPath, [compilers[0].tsc, "-p", "tsconfig.nodenext.json"], project);
    expect(located(compiled.out)).toBe("");
    const ran = await sh(
      process.execPath,
      ["out/readme.js"],
      project,
      childEnv({
        SWITCHBOARD_URL: gateway.baseUrl,
        GATEWAY_SECRET_KEY: gateway.vars.GATEWAY_SECRET_KEY,
        GATEWAY_PUBLIC_KEY: gateway.vars.GATEWAY_PUBLIC_KEY,
        JWT_SECRET: gateway.vars.JWT_SECRET,
      }),
      60_000,
    );
    expect(ran.code, ran.out).toBe(0);
    const made = ran.out.split("\n").find((line) => line.startsWith("example made "));
    expect(made, ran.out).toBeDefined();
    const { personId, agentId, spaceId } = JSON.parse((made as string).slice("example made ".length)) as { personId: string; agentId: string; spaceId: string };
    // Ada's message is in the space, and the agent it woke read it and ended its run.
    const { messages } = await admin.messages.list(spaceId);
    expect(messages.map((message) => [message.entityId, message.text])).toContainEqual([personId, "Hello!"]);
    const finished = await spaceEvent(spaceId, "agent.cycle.finished", () => true);
    expect(finished.data.status).toBe("completed");

    // The CLI from its own tarball, through npx, with the gateway and keys from the environment.
    const cliEnv = childEnv({ SWITCHBOARD_URL: gateway.baseUrl, GATEWAY_SECRET_KEY: gateway.vars.GATEWAY_SECRET_KEY });
    const help = await sh("npx", ["--no", "switchboard", "help"], project, cliEnv, 60_000);
    expect(help.code, help.out).toBe(0);
    expect(help.out).toContain("switchboard say <text>");
    await expect.poll(async () => (await admin.agents.runs(agentId)).runs.length, { timeout: 20_000 }).toBeGreaterThan(0);
    const runs = await sh("npx", ["--no", "switchboard", "runs", agentId, "--json"], project, cliEnv, 60_000);
    expect(runs.code, runs.out).toBe(0);
    expect((JSON.parse(runs.out) as { id: string; status: string }[]).map((entry) => entry.status)).toEqual(["completed"]);
  }, 180_000);
});
