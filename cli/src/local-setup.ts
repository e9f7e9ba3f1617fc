/**
 * Where the CLI finds things on a developer's machine, so that in the project
 * folder no flag is needed: the keys in `.dev.vars`, the URL `npm run dev`
 * wrote to `.wrangler/state/switchboard-dev.json`, and the demo's ids in
 * `.wrangler/state/switchboard-demo.json` (another folder with `--state-dir` or
 * SWITCHBOARD_STATE_DIR, for a dev server started with `--persist-to`).
 * Flags and environment variables win over files. Every miss says how to fix it.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
// `npm run dev` reads `.dev.vars` with the same parser; it lives in scripts/ so plain Node runs it there.
import { parseDotenv } from "../../scripts/parse-dotenv.mjs";

export type DemoIds = { personId: string; spaceId: string; agentId: string; agentEntityId: string };

export class SetupError extends Error {
  override readonly name = "SetupError";
}

/** The folder with `.dev.vars` or `wrangler.toml`, from `start` upwards. */
export function findProjectRoot(start: string): string | undefined {
  for (let folder = resolve(start); ; folder = dirname(folder)) {
    if (existsSync(join(folder, ".dev.vars")) || existsSync(join(folder, "wrangler.toml"))) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}

export type LocalSetup = {
  root: string | undefined;
  baseUrl: string;
  baseUrlSource: string;
  vars: Record<string, string>;
  varsSource: string | undefined;
  demo: DemoIds | undefined;
};

export function readLocalSetup(options: { cwd: string; url?: string; devVars?: string; stateDir?: string; env: Record<string, string | undefined> }): LocalSetup {
  const root = findProjectRoot(options.cwd);
  const varsPath = options.devVars ?? (root ? join(root, ".dev.vars") : undefined);
  let vars: Record<string, string> = {};
  let varsSource: string | undefined;
  if (varsPath && existsSync(varsPath)) {
    vars = parseDotenv(readFileSync(varsPath, "utf8"));
    varsSource = varsPath;
  } else if (options.devVars) {
    throw new SetupError(`No such file: ${options.devVars}`);
  }
  for (const name of ["GATEWAY_SECRET_KEY", "GATEWAY_PUBLIC_KEY", "JWT_SECRET", "WEBHOOK_SECRET"]) {
    const value = options.env[name];
    if (value) vars[name] = value;
  }
  // Where `npm run dev` keeps the URL and the demo's ids (its --persist-to, by default .wrangler/state).
  const stateDir = options.stateDir ?? options.env.SWITCHBOARD_STATE_DIR;
  const state = stateDir ? resolve(options.cwd, stateDir) : root ? join(root, ".wrangler", "state") : undefined;
  let baseUrl = options.url ?? options.env.SWITCHBOARD_URL;
  let baseUrlSource = options.url ? "--url" : "SWITCHBOARD_URL";
  if (!baseUrl && state && existsSync(join(state, "switchboard-dev.json"))) {
    const dev = readJson(join(state, "switchboard-dev.json")) as { baseUrl?: string };
    if (dev.baseUrl) {
      baseUrl = dev.baseUrl;
      baseUrlSource = "the URL `npm run dev` recorded";
    }
  }
  if (!baseUrl) {
    baseUrl = "http://localhost:8787";
    baseUrlSource = "the default (nothing recorded: is `npm run dev` running?)";
  }
  let demo: DemoIds | undefined;
  if (state && existsSync(join(state, "switchboard-demo.json"))) demo = readJson(join(state, "switchboard-demo.json")) as DemoIds;
  return { root, baseUrl: baseUrl.replace(/\/+$/, ""), baseUrlSource, vars, varsSource, demo };
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new SetupError(`Could not read ${path}: ${(error as Error).message}`);
  }
}

/** A key from `.dev.vars` or the environment, or an error that says where it was looked for. */
export function requireVar(setup: LocalSetup, name: string): string {
  const value = setup.vars[name];
  if (value) return value;
  const where = setup.varsSource ? `${setup.varsSource} has no ${name}` : "no .dev.vars found here or above (run `npm run dev` once in the project folder, which creates it)";
  throw new SetupError(`${name} is needed: ${where}; or set ${name} in the environment.`);
}

export function requireDemo(setup: LocalSetup, what: string): DemoIds {
  if (setup.demo) return setup.demo;
  throw new SetupError(`No demo ids (.wrangler/state/switchboard-demo.json): start \`npm run dev\` (it seeds the demo), or pass ${what}.`);
}
