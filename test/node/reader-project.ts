/**
 * A project folder as a reader of the docs has one after `npm install` and
 * `npm run dev`, for the examples to run in: `node_modules` and `scripts/`
 * (links to the repository's), `.dev.vars` with the gateway's keys (a copy:
 * what an example appends stays in the copy), and `.wrangler/state` with the
 * URL `npm run dev` recorded and a demo of its own, seeded the way
 * `npm run dev` seeds one (so an example that changes the demo agent changes
 * nobody else's).
 */
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import seedDemo from "../../scripts/seed-demo.mjs";
import { repositoryRoot } from "./doc-examples";

export type GatewayFiles = { baseUrl: string; envFile: string; stateDir: string; vars: Record<string, string> };

export async function readerProject(folder: string, gateway: GatewayFiles): Promise<string> {
  const state = join(folder, ".wrangler", "state");
  mkdirSync(state, { recursive: true });
  for (const name of ["node_modules", "scripts"]) symlinkSync(join(repositoryRoot, name), join(folder, name));
  writeFileSync(join(folder, "package.json"), `${JSON.stringify({ name: "switchboard", private: true, type: "module" }, null, 2)}\n`);
  copyFileSync(gateway.envFile, join(folder, ".dev.vars"));
  copyFileSync(join(gateway.stateDir, "switchboard-dev.json"), join(state, "switchboard-dev.json"));
  const log = console.log;
  // The seed prints the demo's sign-in link, as under `npm run dev`: not wanted in the test's output.
  console.log = () => {};
  try {
    await seedDemo({ baseUrl: gateway.baseUrl, secretKey: gateway.vars.GATEWAY_SECRET_KEY, stateDir: state, vars: gateway.vars });
  } finally {
    console.log = log;
  }
  return folder;
}

/**
 * This process's environment for a reader's shell: Node 22 first on PATH,
 * without what `npm test` set for its own npm, and without a gateway or keys
 * of the developer's (the CLI would prefer them to the project folder's).
 */
export function readerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const notPassed = /^(?:npm_|SWITCHBOARD_|GATEWAY_)|^(?:INIT_CWD|JWT_SECRET|WEBHOOK_SECRET|BASE|SECRET|PUBLIC|TOKEN)$/i;
  for (const [name, value] of Object.entries(process.env)) if (!notPassed.test(name)) env[name] = value;
  return { ...env, PATH: `${join(repositoryRoot, "node_modules", "node", "bin")}:${process.env.PATH ?? ""}`, NO_COLOR: "1", ...extra };
}
