/**
 * `switchboard`: the gateway from a terminal, built on the client SDK.
 * In the project folder it needs no flags: keys from `.dev.vars`, the URL of
 * the running `npm run dev`, the demo's person, space and agent.
 */
import { parseArgs } from "node:util";
import { SwitchboardError } from "../../client/src/index";
import { CommandContext, UsageError, type CliIo, type Flags } from "./command-context";
import { commands } from "./commands";
import { readLocalSetup, SetupError } from "./local-setup";

const usage = `switchboard — talk to a Switchboard gateway (defaults: the local \`npm run dev\` and its demo)

  switchboard say <text> [--space S] [--as ENTITY]     post a message (default: as the demo person, in the demo space)
  switchboard watch [SPACE] [--live] [--json]          the space live: streamed text, tool cards, failed runs
  switchboard answer                                   list the calls waiting for an answer in the space
  switchboard answer <callId> <json>                   answer one (a space tool's card, an external call)
  switchboard spaces [--as ENTITY]                     every space (or the spaces of ENTITY)
  switchboard agents                                   every agent, with both of its ids
  switchboard agents export <AGENT> > agent.json       the agent as one portable document (config, goals, memories, plans, notes)
  switchboard agents import <FILE> [--name NAME]       a new agent from such a document (here or on another gateway)
  switchboard entities [--type human|agent|service]
  switchboard runs [AGENT] [--limit N]                 an agent's runs with status and error (default: the demo agent)
  switchboard dead-letters [AGENT] [--limit N]         webhook deliveries that gave up, newest first (all agents, or AGENT's)
  switchboard dead-letters redeliver <ID>              deliver one again now (the same webhook-id: receivers dedupe it)
  switchboard accounts [--entity E] [--as ENTITY]      connected accounts: everyone's, one entity's, or (--as) a person's own
  switchboard accounts revoke <KEY> [--entity E]       erase one's tokens (whose: --entity with the secret key, or --as)
  switchboard accounts connect <FLOW> --as ENTITY      the link a "connect your account" card asks that person to open
  switchboard accounts connect --agent A --tool NAME   an operator connects an agent's own account (or --server, --provider)
  switchboard token <ENTITY> [--expires-in 1h]         a JWT for ENTITY (signed with JWT_SECRET)
  switchboard link [ENTITY]                            a sign-in link for the live page (default: the demo person)

Options: --url URL (or SWITCHBOARD_URL) · --dev-vars PATH · --state-dir DIR (or SWITCHBOARD_STATE_DIR)
         --space SPACE · --as ENTITY|person
         --after-seq N (watch: replay after N; default 0) · --json (raw events / JSON output)
Ids: an agent may be named by its agent id (agt_…) or its entity id (ent_…) where an entity is expected.`;

export type { CliIo };

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: "string" },
        "dev-vars": { type: "string" },
        "state-dir": { type: "string" },
        space: { type: "string" },
        as: { type: "string" },
        live: { type: "boolean" },
        json: { type: "boolean" },
        "after-seq": { type: "string" },
        limit: { type: "string" },
        type: { type: "string" },
        "expires-in": { type: "string" },
        name: { type: "string" },
        entity: { type: "string" },
        agent: { type: "string" },
        tool: { type: "string" },
        server: { type: "string" },
        provider: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    io.err(`error: ${(error as Error).message}\n\n${usage}\n`);
    return 2;
  }
  const flags = parsed.values as Flags;
  const [command, ...rest] = parsed.positionals;
  if (!command || flags.help || command === "help") {
    io.out(`${usage}\n`);
    return command || flags.help ? 0 : 2;
  }
  try {
    const setup = readLocalSetup({ cwd: io.cwd, url: flags.url, devVars: flags["dev-vars"], stateDir: flags["state-dir"], env: io.env });
    const context = new CommandContext(setup, flags, io);
    const handler = commands[command];
    if (!handler) throw new UsageError(`Unknown command "${command}"`);
    await handler(context, rest);
    return 0;
  } catch (error) {
    io.err(`${describeError(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

function describeError(error: unknown): string {
  if (error instanceof UsageError) return `error: ${error.message}\n\n${usage}`;
  if (error instanceof SetupError) return `error: ${error.message}`;
  if (error instanceof SwitchboardError) {
    const hints: Record<string, string> = {
      network_error: "Is the gateway running? Start it with `npm run dev` (or pass --url).",
      unauthorized: "The keys do not match the running gateway: was it started with another .dev.vars? Restart `npm run dev`.",
      forbidden: "These credentials may not do that (a JWT on a secret-key route, or not a member of the space).",
      route_not_found: "This gateway does not have that route: is it an older version?",
    };
    const hint = hints[error.code] ? `\n  ${hints[error.code]}` : "";
    const details = Array.isArray(error.details) ? `\n${error.details.map((detail) => `  - ${detail.path}: ${detail.message}`).join("\n")}` : "";
    return `error: ${error.code}: ${error.message}${details}${hint}`;
  }
  return `error: ${(error as Error)?.stack ?? error}`;
}
