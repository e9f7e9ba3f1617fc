/** The CLI's commands, each on the client SDK. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type AgentDocument, type Message, type Switchboard, SwitchboardError, type ToolCallPart } from "../../client/src/index";
import { type CommandContext, UsageError } from "./command-context";
import { EventPrinter } from "./event-printer";
import { requireDemo, requireVar, SetupError } from "./local-setup";

type Command = (context: CommandContext, positionals: string[]) => Promise<void>;

export const commands: Record<string, Command> = {
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
      if (status === "reconnecting" && error)
        context.io.err(`… connection lost (${error.message}); reconnecting in ${delayMs} ms, resuming after seq ${subscription.lastSeq ?? "(live)"}\n`);
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
        if (part.account) {
          context.io.out(
            `    waits for ${part.account.entityId} to connect ${part.account.service}: switchboard accounts connect ${part.account.flowId} --as ${part.account.entityId}\n`,
          );
          continue;
        }
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

  async agents(context, positionals) {
    const [action, argument] = positionals;
    if (action === "export") return exportAgent(context, argument);
    if (action === "import") return importAgent(context, argument);
    if (action !== undefined) throw new UsageError(`Unknown agents command "${action}" (agents, agents export <AGENT>, agents import <FILE>)`);
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

  async "dead-letters"(context, positionals) {
    const [first, deadLetterId] = positionals;
    const admin = context.admin();
    if (first === "redeliver") {
      if (!deadLetterId) throw new UsageError("dead-letters redeliver needs the dead letter's id: switchboard dead-letters redeliver dlt_…");
      const redelivered = await admin.webhooks.redeliver(deadLetterId);
      if (context.flags.json) return context.json(redelivered);
      const what =
        redelivered.status === "delivered"
          ? "already delivered by an earlier redelivery"
          : `redelivering to ${redelivered.url} (webhook-id ${redelivered.webhookId}; watch it with \`switchboard dead-letters\`)`;
      return context.io.out(`${redelivered.id}: ${what}\n`);
    }
    const limit = context.flags.limit === undefined ? 50 : Number(context.flags.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new UsageError("--limit is a whole number from 1 to 200");
    const { deadLetters } = await admin.webhooks.deadLetters({ ...(first && { agentId: first }), limit });
    if (!context.flags.json && deadLetters.length === 0)
      return context.io.out(`No dead letters${first ? ` for ${first}` : ""}: every push got through or is still being retried.\n`);
    context.table(
      deadLetters.map((row) => ({ ...row, to: row.subscriptionId ?? row.toolCallId ?? "", error: row.lastError })),
      ["id", "status", "type", "to", "attempts", "deadAt", "error"],
    );
  },

  async accounts(context, positionals) {
    const [action, connectionKey] = positionals;
    if (action === "revoke") return revokeAccount(context, connectionKey);
    if (action === "connect") return connectAccount(context, connectionKey);
    if (action !== undefined)
      throw new UsageError(
        `Unknown accounts command "${action}" (accounts, accounts connect <FLOW_ID> --as ENTITY, accounts connect --agent AGENT --tool NAME, accounts revoke <KEY>)`,
      );
    const entityId = await entityNamed(context, context.flags.entity);
    if (entityId && context.actingAs()) throw new UsageError(ownOnly("accounts"));
    const client = await context.client();
    const connections: AccountConnection[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.accounts.list({ ...(entityId && { entityId }), limit: 100, ...(cursor && { cursor }) });
      connections.push(...page.connections);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    if (context.flags.json) return context.json(connections);
    if (connections.length === 0) {
      const whose = entityId ? ` for ${entityId}` : context.actingAs() ? "" : " on this gateway";
      return context.io.out(`No connected accounts${whose}. A person connects one from the card that asks them, when an agent's tool needs it.\n`);
    }
    context.table(
      connections.map((connection) => ({
        entity: connection.entityId,
        service: connection.connectionKey,
        scopes: connection.scopes.join(" "),
        issuer: connection.issuer ?? "",
        connected: connection.createdAt,
        expires: connection.expiresAt ?? "",
        revoked: connection.revokedAt ?? "",
      })),
      ["entity", "service", "scopes", "issuer", "connected", "expires", "revoked"],
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

/** `agents export <AGENT>`: the portable document on stdout (redirect it to a file). */
async function exportAgent(context: CommandContext, agentId: string | undefined): Promise<void> {
  if (!agentId) throw new UsageError("agents export needs the agent id: switchboard agents export agt_… > agent.json");
  const document = await context.admin().exportAgent(agentId);
  context.io.out(`${JSON.stringify(document, null, 2)}\n`);
}

/** `agents import <FILE> [--name NAME]`: a new agent from an exported document. */
async function importAgent(context: CommandContext, file: string | undefined): Promise<void> {
  if (!file) throw new UsageError("agents import needs the document's file: switchboard agents import agent.json");
  let text: string;
  try {
    text = readFileSync(resolve(context.io.cwd, file), "utf8");
  } catch (error) {
    throw new SetupError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  let document: AgentDocument;
  try {
    document = JSON.parse(text) as AgentDocument;
  } catch (error) {
    throw new SetupError(`${file} is not JSON (${(error as Error).message}); give a file \`switchboard agents export\` wrote`);
  }
  // The gateway checks the document whole (a 400 lists every problem with its path); the CLI only reads the file.
  const agent = await context.admin().importAgent(document, { name: context.flags.name });
  if (context.flags.json) return context.json(agent);
  context.io.out(`imported ${agent.id} (entity ${agent.entityId}) as "${agent.name}"\n`);
}

type AccountConnection = Awaited<ReturnType<Switchboard["accounts"]["list"]>>["connections"][number];

/** `--entity`: an entity id as given, or an agent id (agt_…) turned into its agent's entity id. */
async function entityNamed(context: CommandContext, named: string | undefined): Promise<string | undefined> {
  if (!named?.startsWith("agt_")) return named;
  return (await context.admin().agents.get(named)).entityId;
}

/** `--as` with `--entity`: a person sees and revokes only their own, so naming anyone is the secret key's. */
const ownOnly = (command: string) => `${command} --as ENTITY is that person's own: --entity is for the secret key (drop --as to act as the operator)`;

/** `accounts connect --agent AGENT --tool NAME` (or `--server`, `--provider`): an operator's link that connects the agent's own account there. */
async function connectAgentAccount(context: CommandContext, agentId: string): Promise<void> {
  const { tool, server, provider } = context.flags;
  const named = [tool, server, provider].filter((value) => value !== undefined);
  if (named.length !== 1) throw new UsageError("accounts connect --agent needs exactly one of --tool NAME, --server NAME or --provider NAME");
  if (context.actingAs()) throw new UsageError("accounts connect --agent is the operators' (the secret key): drop --as");
  const target = tool !== undefined ? { tool } : server !== undefined ? { server } : { provider: provider ?? "" };
  const link = await context.admin().agents.connectAccount(agentId, target);
  if (context.flags.json) return context.json(link);
  const scopes = link.scopes.length > 0 ? ` (${link.scopes.join(" ")})` : "";
  context.io.out(
    `Open this link in a browser and sign in as the account ${agentId} should use at ${link.service}${scopes}; it works once, until ${link.expiresAt}:\n${link.startUrl}\n`,
  );
}

/** `accounts connect <FLOW_ID> --as ENTITY`: the link that connects the account a card asks that person for, to open in their browser. */
async function connectAccount(context: CommandContext, flowId: string | undefined): Promise<void> {
  if (context.flags.agent !== undefined) return connectAgentAccount(context, context.flags.agent);
  if (!flowId) throw new UsageError("accounts connect needs the flow id the card names: switchboard accounts connect flw_… --as ent_…");
  const actingAs = context.actingAs();
  if (!actingAs) throw new UsageError("accounts connect is the person's own: add --as ENTITY (the person the card asks)");
  const client = await context.client();
  let link: { startUrl: string; service: string; scopes: string[]; expiresAt: string };
  try {
    link = await client.accounts.connectLink(flowId);
  } catch (error) {
    if (!(error instanceof SwitchboardError) || error.code !== "not_found") throw error;
    throw new SetupError(
      `not_found: ${error.message}\n  The card may be for someone else, or its wait is over: see the calls waiting with \`switchboard answer --as ${actingAs}\`.`,
    );
  }
  if (context.flags.json) return context.json(link);
  const scopes = link.scopes.length > 0 ? ` (${link.scopes.join(" ")})` : "";
  context.io.out(`Open this link in your browser to connect ${link.service}${scopes}; it works once, until ${link.expiresAt}:\n${link.startUrl}\n`);
}

/** `accounts revoke <KEY>`: a person's own (`--as`), or anyone's with the secret key, named with `--entity`. */
async function revokeAccount(context: CommandContext, connectionKey: string | undefined): Promise<void> {
  if (!connectionKey)
    throw new UsageError(
      "accounts revoke needs the connection's key (its service, as `switchboard accounts` lists it): switchboard accounts revoke https://mcp.example.com/mcp --entity ent_…",
    );
  const actingAs = context.actingAs();
  const entityId = await entityNamed(context, context.flags.entity);
  if (actingAs && entityId) throw new UsageError(ownOnly("accounts revoke"));
  if (!actingAs && !entityId) throw new UsageError(`accounts revoke with the secret key needs whose connection it is: --entity ent_… (or --as ENTITY to revoke as that person)`);
  const client = await context.client();
  let revoked: { entityId: string; connectionKey: string };
  try {
    revoked = await client.accounts.revoke(connectionKey, entityId ? { entityId } : {});
  } catch (error) {
    if (!(error instanceof SwitchboardError) || error.code !== "not_found") throw error;
    const list = `switchboard accounts${actingAs ? ` --as ${context.flags.as}` : ` --entity ${entityId}`}`;
    throw new SetupError(`not_found: ${error.message}\n  It may be revoked already: see what there is with \`${list}\`.`);
  }
  if (context.flags.json) return context.json(revoked);
  context.io.out(`revoked ${revoked.connectionKey} for ${revoked.entityId}: its tokens are erased (it stays listed as revoked until the account is connected again)\n`);
}

/** The live page's sign-in link: credentials in the fragment, which never reaches a server. */
export function pageLink(baseUrl: string, publicKey: string, token: string, spaceId?: string): string {
  const fragment = new URLSearchParams({ publicKey, token, ...(spaceId ? { space: spaceId } : {}) });
  return `${baseUrl}/#${fragment}`;
}

async function pendingCalls(client: Switchboard, spaceId: string): Promise<{ message: Message; part: ToolCallPart }[]> {
  const messages = await client.messages.all(spaceId);
  return messages.flatMap((message) => (message.parts ?? []).flatMap((part) => (part.type === "tool_call" && part.status === "requires_action" ? [{ message, part }] : [])));
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
