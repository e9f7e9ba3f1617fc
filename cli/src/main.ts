/**
 * `switchboard`: the gateway from a terminal, built on the client SDK.
 * In the project folder it needs no flags: keys from `.dev.vars`, the URL of
 * the running `npm run dev`, the demo's person, space and agent.
 */
import { parseArgs } from "node:util";
import { Switchboard, SwitchboardError, signToken, type Message, type ToolCallPart } from "../../client/src/index";
import { EventPrinter } from "./event-printer";
import { readLocalSetup, requireDemo, requireVar, SetupError, type LocalSetup } from "./local-setup";

const usage = `switchboard — talk to a Switchboard gateway (defaults: the local \`npm run dev\` and its demo)

  switchboard say <text> [--space S] [--as ENTITY]     post a message (default: as the demo person, in the demo space)
  switchboard watch [SPACE] [--live] [--json]          the space live: streamed text, tool cards, failed runs
  switchboard answer                                   list the calls waiting for an answer in the space
  switchboard answer <callId> <json>                   answer one (a space tool's card, an external call)
  switchboard spaces [--as ENTITY]                     every space (or the spaces of ENTITY)
  switchboard agents                                   every agent, with both of its ids
  switchboard entities [--type human|agent|service]
  switchboard runs [AGENT] [--limit N]                 an agent's runs with status and error (default: the demo agent)
  switchboard token <ENTITY> [--expires-in 1h]         a JWT for ENTITY (signed with JWT_SECRET)
  switchboard link [ENTITY]                            a sign-in link for the live page (default: the demo person)

Options: --url URL (or SWITCHBOARD_URL) · --dev-vars PATH · --state-dir DIR (or SWITCHBOARD_STATE_DIR)
         --space SPACE · --as ENTITY|person
         --after-seq N (watch: replay after N; default 0) · --json (raw events / JSON output)
Ids: an agent may be named by its agent id (agt_…) or its entity id (ent_…) where an entity is expected.`;

type Flags = {
  url?: string;
  "dev-vars"?: string;
  "state-dir"?: string;
  space?: string;
  as?: string;
  live?: boolean;
  json?: boolean;
  "after-seq"?: string;
  limit?: string;
  type?: string;
  "expires-in"?: string;
  help?: boolean;
};

export type CliIo = { out: (text: string) => void; err: (text: string) => void; cwd: string; env: Record<string, string | undefined>; signal?: AbortSignal; colors?: boolean };

class UsageError extends Error {}

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
    io.err(`${describeError(error, flags)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

function describeError(error: unknown, flags: Flags): string {
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
  void flags;
  return `error: ${(error as Error)?.stack ?? error}`;
}

class CommandContext {
  constructor(
    readonly setup: LocalSetup,
    readonly flags: Flags,
    readonly io: CliIo,
  ) {}

  /** The secret-key client. */
  admin(): Switchboard {
    return new Switchboard({ baseUrl: this.setup.baseUrl, secretKey: requireVar(this.setup, "GATEWAY_SECRET_KEY") });
  }

  /** `--as`: the entity to act as (`person` is the demo person); undefined without `--as`. */
  actingAs(): string | undefined {
    const as = this.flags.as;
    if (!as) return undefined;
    return as === "person" ? requireDemo(this.setup, "--as <entityId>").personId : as;
  }

  async token(entityId: string, expiresIn: string | number = "1h"): Promise<string> {
    return signToken(entityId, { secret: requireVar(this.setup, "JWT_SECRET"), expiresIn });
  }

  /** A client acting as `entityId` (public key + a fresh JWT). */
  async member(entityId: string): Promise<Switchboard> {
    const token = await this.token(entityId);
    return new Switchboard({ baseUrl: this.setup.baseUrl, publicKey: requireVar(this.setup, "GATEWAY_PUBLIC_KEY"), token });
  }

  /** `--as` given: that entity's client; otherwise the secret key. */
  async client(): Promise<Switchboard> {
    const entityId = this.actingAs();
    return entityId ? this.member(entityId) : this.admin();
  }

  space(positional?: string): string {
    return positional ?? this.flags.space ?? requireDemo(this.setup, "a space id (--space spc_…)").spaceId;
  }

  json(value: unknown): void {
    this.io.out(`${JSON.stringify(value, null, 2)}\n`);
  }

  table(rows: Record<string, unknown>[], columns: string[]): void {
    if (this.flags.json) return this.json(rows);
    if (rows.length === 0) return this.io.out("(none)\n");
    const cell = (value: unknown) => (value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value));
    const widths = columns.map((column) => Math.min(60, Math.max(column.length, ...rows.map((row) => cell(row[column]).length))));
    const line = (values: string[]) => values.map((value, index) => value.slice(0, 60).padEnd(widths[index])).join("  ").trimEnd();
    this.io.out(`${line(columns)}\n${rows.map((row) => line(columns.map((column) => cell(row[column])))).join("\n")}\n`);
  }
}

type Command = (context: CommandContext, positionals: string[]) => Promise<void>;

const commands: Record<string, Command> = {
  async say(context, positionals) {
    const text = positionals.join(" ").trim();
    if (!text) throw new UsageError('say needs the text: switchboard say "Hello agent!"');
    const spaceId = context.space();
    const actingAs = context.actingAs();
    const message = actingAs
      ? await (await context.member(actingAs)).messages.send(spaceId, { text })
      : await context.admin().messages.send(spaceId, { text, entityId: requireDemo(context.setup, "--as <entityId>").personId });
    if (context.flags.json) return context.json(message);
    context.io.out(`sent ${message.id} (seq ${message.seq}) to ${spaceId}\n`);
  },

  async watch(context, positionals) {
    const spaceId = context.space(positionals[0]);
    const client = await context.client();
    const afterSeq = context.flags.live ? undefined : Number(context.flags["after-seq"] ?? 0);
    if (afterSeq !== undefined && !Number.isInteger(afterSeq)) throw new UsageError("--after-seq must be a whole number");
    const printer = new EventPrinter({ write: context.io.out }, context.io.colors ?? false);
    printer.setMembers((await client.spaces.members(spaceId)).members);
    if (!context.flags.json) context.io.err(`watching ${spaceId} at ${context.setup.baseUrl} (Ctrl-C stops)\n`);
    const subscription = client.subscribe(spaceId, { afterSeq, signal: context.io.signal });
    let opens = 0;
    subscription.on("status", ({ status, delayMs, error }) => {
      if (status === "reconnecting" && error) context.io.err(`… connection lost (${error.message}); reconnecting in ${delayMs} ms, resuming after seq ${subscription.lastSeq ?? "(live)"}\n`);
      if (status !== "open" || context.flags.json) return;
      opens += 1;
      const from = subscription.lastSeq === undefined ? " (live from now)" : ` (${opens === 1 ? "replaying" : "resuming"} after seq ${subscription.lastSeq})`;
      context.io.err(`${opens === 1 ? "connected" : "reconnected"}${from}\n`);
    });
    subscription.on("event", (event) => {
      if (context.flags.json) return context.io.out(`${JSON.stringify(event)}\n`);
      if (event.type === "space.member.joined") {
        client.spaces
          .members(spaceId)
          .then(({ members }) => printer.setMembers(members))
          .catch(() => undefined);
      }
      printer.print(event);
    });
    await subscription.done;
  },

  async answer(context, positionals) {
    const spaceId = context.space();
    const client = await context.client();
    const [callId, resultText] = positionals;
    const pending = await pendingCalls(client, spaceId);
    if (!callId) {
      if (context.flags.json) return context.json(pending);
      if (pending.length === 0) return context.io.out(`No call in ${spaceId} is waiting for an answer.\n`);
      const tools = (await client.spaces.tools(spaceId)).tools;
      for (const { part, message } of pending) {
        const tool = tools.find((candidate) => candidate.name === part.toolName && candidate.agentEntityId === message.entityId);
        context.io.out(`${part.toolCallId}  ${part.toolName}(${part.args === undefined ? "" : JSON.stringify(part.args)})\n`);
        if (tool?.resultSchema) context.io.out(`    answer shaped like: ${JSON.stringify(tool.resultSchema)}\n`);
        context.io.out(`    switchboard answer ${part.toolCallId} '<json>'\n`);
      }
      return;
    }
    if (resultText === undefined) throw new UsageError(`answer needs the result as JSON: switchboard answer ${callId} '{"confirmed": true}'`);
    let result: unknown;
    try {
      result = JSON.parse(resultText);
    } catch (error) {
      throw new UsageError(`The result is not JSON (${(error as Error).message}). Quote it for the shell: '{"confirmed": true}'`);
    }
    const runId = pending.find((entry) => entry.part.toolCallId === callId)?.part.runId ?? (await findRunOfCall(context, callId));
    if (!runId) throw new SetupError(`No call ${callId} waits for an answer in ${spaceId} or in any agent's pending calls. List them with \`switchboard answer\`.`);
    const answer = await client.submitToolResult(runId, callId, result);
    if (context.flags.json) return context.json(answer);
    context.io.out(`answered ${callId}${"duplicate" in answer && answer.duplicate ? " (the same answer was already given)" : ""}\n`);
  },

  async spaces(context) {
    const client = await context.client();
    const rows = [];
    for await (const space of client.spaces.all()) rows.push(space);
    context.table(rows, ["id", "name", "memberCount", "createdAt"]);
  },

  async agents(context) {
    const rows = [];
    for await (const agent of context.admin().agents.all()) rows.push({ ...agent, model: [agent.model.provider, agent.model.name].filter(Boolean).join(" ") });
    context.table(rows, ["id", "entityId", "name", "model", "updatedAt"]);
  },

  async entities(context) {
    const type = context.flags.type;
    if (type !== undefined && type !== "human" && type !== "agent" && type !== "service") throw new UsageError("--type is human, agent or service");
    const rows = [];
    for await (const entity of context.admin().entities.all({ type })) rows.push(entity);
    context.table(rows, ["id", "type", "name", "agentId", "externalId", "createdAt"]);
  },

  async runs(context, positionals) {
    const agentId = positionals[0] ?? requireDemo(context.setup, "an agent id").agentId;
    const limit = Number(context.flags.limit ?? 20);
    const { runs } = await context.admin().agents.runs(agentId, { limit });
    if (context.flags.json) return context.json(runs);
    context.table(
      runs.map((run) => ({
        id: run.id,
        status: run.status,
        started: run.createdAt,
        ms: run.finishedAt ? Date.parse(run.finishedAt) - Date.parse(run.createdAt) : "",
        tools: run.toolCalls.length,
        error: run.error ?? "",
      })),
      ["id", "status", "started", "ms", "tools", "error"],
    );
  },

  async token(context, positionals) {
    const entityId = positionals[0];
    if (!entityId) throw new UsageError("token needs the entity id: switchboard token ent_…");
    context.io.out(`${await context.token(entityId, context.flags["expires-in"] ?? "1h")}\n`);
  },

  async link(context, positionals) {
    const entityId = positionals[0] ?? requireDemo(context.setup, "an entity id").personId;
    const token = await context.token(entityId, context.flags["expires-in"] ?? "7d");
    context.io.out(`${pageLink(context.setup.baseUrl, requireVar(context.setup, "GATEWAY_PUBLIC_KEY"), token, context.flags.space)}\n`);
  },
};

/** The live page's sign-in link: credentials in the fragment, which never reaches a server. */
export function pageLink(baseUrl: string, publicKey: string, token: string, spaceId?: string): string {
  const fragment = new URLSearchParams({ publicKey, token, ...(spaceId ? { space: spaceId } : {}) });
  return `${baseUrl}/#${fragment}`;
}

async function pendingCalls(client: Switchboard, spaceId: string): Promise<{ message: Message; part: ToolCallPart }[]> {
  const messages = await client.messages.all(spaceId);
  return messages.flatMap((message) => (message.parts ?? []).filter((part) => part.status === "requires_action").map((part) => ({ message, part })));
}

/** The run of a pending call found through the agents' pending-call lists (an external call shown nowhere). */
async function findRunOfCall(context: CommandContext, callId: string): Promise<string | undefined> {
  const admin = context.admin();
  for await (const agent of admin.agents.all()) {
    for (const status of ["waiting", "pending"] as const) {
      const { pendingToolCalls } = await admin.agents.pendingToolCalls(agent.id, { status, limit: 500 });
      const call = (pendingToolCalls as { toolCallId: string; runId: string }[]).find((row) => row.toolCallId === callId);
      if (call) return call.runId;
    }
  }
  return undefined;
}
