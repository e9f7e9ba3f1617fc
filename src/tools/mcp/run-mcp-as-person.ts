/**
 * A tool of an MCP server that acts as a person (`auth` on the server): the
 * call goes over that person's own connection to the server, with their
 * token (`mcp-as-person.ts`). When it cannot (they never connected, the
 * grant is gone, the server wants more scopes), the call waits for them to
 * connect (`engine/ask-to-connect.ts`); once they have, the agent object
 * makes the call once with their token (`resumeMcpAsPerson`) and settles it.
 */
import type { AppEnv } from "../../env";
import { accountWaitDefaultMs, askToConnect, gatewayOriginOf, resumeAccountWait } from "../engine/ask-to-connect";
import type { PendingCall } from "../engine/pending-calls";
import type { InlineCall } from "../engine/resolved-tool";
import type { PendingCallContext } from "../engine/run-pending-call";
import type { SettingsAccess } from "../engine/tool-context";
import { providerToolName } from "../engine/tool-naming";
import { failed, type ToolOutcome } from "../engine/tool-outcome";
import { accountOwnerOf, agentNotConnected } from "../gateway/send-as-person";
import type { McpServerConfig } from "../config/mcp-server-config";
import { AccountNeededError } from "./account-needed";
import { actsAsPersonMcp, mcpAccount, mcpAuthority, type PersonMcpServer, personTokenSource, withPersonToken } from "./mcp-as-person";
import type { McpCallOptions } from "./mcp-connection";
import type { McpPerson, McpPool } from "./mcp-pool";
import { isMcpRequestTimeout } from "./mcp-pool";
import { mcpToolOutcome } from "./mcp-tool-result";

/** The person a connection to `server` acts for, with their token on every request. */
export function mcpPerson(env: AppEnv, server: PersonMcpServer, entityId: string, gatewayOrigin: string | undefined): McpPerson {
  const tokens = personTokenSource(env, server, mcpAccount(server, entityId), gatewayOrigin);
  return { entityId, wrapFetch: (send) => withPersonToken(send, tokens, server) };
}

type CallOptions = McpCallOptions & { media: boolean };

type AsPersonCall = { kind: "done"; outcome: ToolOutcome } | { kind: "account_needed"; reason: string; scopes: string[] };

/** Calls `tool` of the server over `person`'s connection. Never throws but for D1 and a missing ACCOUNTS_KEYS. */
async function callAsPerson(
  pool: McpPool,
  env: AppEnv,
  server: PersonMcpServer,
  person: McpPerson,
  tool: string,
  args: Record<string, unknown>,
  options: CallOptions,
): Promise<AsPersonCall> {
  const listing = await pool.listing(server, env, Date.now(), person);
  if (!listing.ok) {
    if (listing.accountNeeded) return { kind: "account_needed", ...listing.accountNeeded };
    return { kind: "done", outcome: failed(`MCP server "${server.name}" cannot be reached: ${listing.error}`, "upstream") };
  }
  if (!listing.tools.some((definition) => definition.name === tool)) {
    return { kind: "done", outcome: failed(`MCP server "${server.name}" does not offer "${tool}" to this person`, "validation") };
  }
  try {
    const answer = await pool.callTool(listing.key, tool, args, options);
    return { kind: "done", outcome: mcpToolOutcome(answer, { media: options.media }) };
  } catch (error) {
    if (error instanceof AccountNeededError) return { kind: "account_needed", reason: error.reason, scopes: error.scopes };
    const timedOut = isMcpRequestTimeout(error);
    return {
      kind: "done",
      outcome: failed(
        timedOut ? `MCP tool "${tool}" on "${server.name}" timed out after ${options.timeoutMs}ms` : `MCP tool "${tool}" on "${server.name}" failed: ${(error as Error).message}`,
        timedOut ? "timeout" : "upstream",
      ),
    };
  }
}

export async function runMcpAsPerson(context: PendingCallContext & SettingsAccess, server: PersonMcpServer, tool: string, call: InlineCall): Promise<ToolOutcome> {
  const entityId = accountOwnerOf(server.auth, context);
  if (entityId === undefined) {
    return failed(
      `"${call.toolName}" acts as the person who asked for it, and no person's message started this run (it came from an event from outside): there is no one whose account it could use`,
      "permission",
    );
  }
  const account = mcpAccount(server, entityId);
  const waiting = await resumeAccountWait(context, call, account);
  if (waiting !== undefined) return waiting;

  const timeoutMs = server.timeout ?? context.config.limits.toolTimeout;
  const person = mcpPerson(context.env, server, entityId, gatewayOriginOf(context));
  const done = await callAsPerson(context.toolRuntime.kept.mcp, context.env, server, person, tool, (call.args ?? {}) as Record<string, unknown>, {
    timeoutMs,
    signal: call.abortSignal,
    onProgress: (progress) => call.progress(progress),
    media: context.mediaToolResults,
    // In `_meta`, as every MCP call made for a call: the server's spans join the run's trace.
    traceparent: call.span?.traceparent,
  });
  if (done.kind === "done") return done.outcome;
  // The agent's own account: nobody to ask now; an operator connects it.
  if (server.auth.owner === "agent") return failed(agentNotConnected(account.serviceName, done.reason, server.auth, context.agent.agentId, { server: server.name }), "permission");
  return askToConnect(context, call, {
    account,
    reason: done.reason,
    scopes: done.scopes,
    auth: server.auth,
    authority: () => mcpAuthority(server, context.env),
    waitMs: server.timeout ?? accountWaitDefaultMs,
    executionType: "mcp",
  });
}

/** The server (with `auth`) whose tool a call named, and the tool's own name, by listing the server as the call's person. */
async function toolOfCall(pool: McpPool, env: AppEnv, servers: readonly McpServerConfig[], call: PendingCall, person: (server: PersonMcpServer) => McpPerson) {
  for (const server of servers) {
    if (!actsAsPersonMcp(server)) continue;
    const listing = await pool.listing(server, env, Date.now(), person(server));
    const candidates = listing.ok ? listing.tools : (pool.knownTools(server) ?? server.auth.tools ?? []);
    const found = candidates.find((definition) => providerToolName(server.name, definition.name) === call.toolName);
    if (found !== undefined) return { server, tool: found.name };
  }
  return undefined;
}

/**
 * The call of a server's tool that waited for its person's account, made
 * now that they connected it (from the agent object, under the call's lock):
 * the server as the agent's config has it now. Its answer settles the call.
 */
export async function resumeMcpAsPerson(
  env: AppEnv,
  pool: McpPool,
  servers: readonly McpServerConfig[],
  call: PendingCall,
  options: { toolTimeoutMs: number; gatewayOrigin?: string; media: boolean },
): Promise<Extract<ToolOutcome, { type: "ok" | "error" }>> {
  const entityId = call.initiatorEntityId;
  if (!entityId) return { type: "error", message: `"${call.toolName}" has no person to act as: it was not run`, kind: "permission" };
  const person = (server: PersonMcpServer) => mcpPerson(env, server, entityId, options.gatewayOrigin);
  const found = await toolOfCall(pool, env, servers, call, person);
  if (found === undefined) return { type: "error", message: `"${call.toolName}" is no longer a tool of an MCP server that acts as a person: it was not run`, kind: "validation" };
  const { server, tool } = found;
  const done = await callAsPerson(pool, env, server, person(server), tool, (call.args ?? {}) as Record<string, unknown>, {
    timeoutMs: server.timeout ?? options.toolTimeoutMs,
    media: options.media,
    // The span of the call that waited for the person (kept with the pending call): the resumed call is still its request.
    traceparent: call.traceparent ?? undefined,
  });
  if (done.kind === "account_needed") {
    return { type: "error", message: `${server.auth.service ?? server.name} was connected, and still refused: ${done.reason}`, kind: "permission" };
  }
  const { outcome } = done;
  if (outcome.type === "ok") return { type: "ok", value: outcome.value };
  if (outcome.type === "error") return outcome;
  return { type: "error", message: `"${call.toolName}" ended without an answer`, kind: "upstream" };
}
