/**
 * An MCP server as a tool provider (the config's `mcp.servers`): its tools,
 * from the agent object's kept connection (`mcp-pool.ts`), offered as
 * `{server}__{tool}` by `allowedTools` / `toolsAllowed` / `toolsDenied`. A
 * tool whose input schema could never validate is skipped and reported. They
 * run through the engine like any other tool: arguments validated against
 * the server's schema, shown in a space when the server is `visible`, with
 * progress notifications as `tool.streaming`, queued and cached by the
 * server's settings, failures as data. A server that cannot be reached is
 * reported (`mcp.server.failed`, or `mcp.server.backoff` while it is left
 * alone) and its tools are simply absent; the cycle goes on.
 */
import type { ResolvedTool } from "../engine/resolved-tool";
import { failed } from "../engine/tool-outcome";
import { checkInputSchema } from "../json-schema/check-input-schema";
import type { ProvidedTool, ToolProvider } from "./tool-provider";
import { providerToolName } from "../engine/tool-naming";
import type { McpToolDefinition } from "../mcp/mcp-connection";
import { isMcpRequestTimeout, type McpListing } from "../mcp/mcp-pool";
import { actsAsPersonMcp, type PersonMcpServer } from "../mcp/mcp-as-person";
import { mcpPerson, runMcpAsPerson } from "../mcp/run-mcp-as-person";
import { gatewayOriginOf } from "../engine/ask-to-connect";
import { accountOwnerOf } from "../gateway/send-as-person";
import type { PendingCallContext } from "../engine/run-pending-call";
import { mcpToolAllowed, type McpServerConfig } from "../config/mcp-server-config";
import { mcpToolOutcome } from "../mcp/mcp-tool-result";
import type { PlatformAccess, RunIdentity, RuntimeAccess, SettingsAccess, StreamAccess } from "../engine/tool-context";

/** `{server}__{tool}`, made safe for model tool names. */
export const mcpToolName = providerToolName;

/** Whether answers of this tool may be cached: it says it only reads, or the config allows side effects. */
function cacheable(server: McpServerConfig, definition: McpToolDefinition): boolean {
  return server.cache !== undefined && (definition.annotations?.readOnlyHint === true || server.cache.allowSideEffects === true);
}

export function mcpProvider(server: McpServerConfig): ToolProvider {
  return {
    name: server.name,
    kind: "mcp",
    async load(context: PlatformAccess & StreamAccess & RuntimeAccess & RunIdentity) {
      if (actsAsPersonMcp(server)) return loadAsPerson(server, context);
      const listing = await context.toolRuntime.kept.mcp.listing(server, context.env);
      if (!listing.ok) {
        reportUnreachable(server, listing, context);
        return { tools: [] };
      }
      return offer(server, listing.key, listing.tools, listing, context);
    },
  };
}

/** A server that could not be listed: `mcp.server.failed`, or `mcp.server.backoff` while it is left alone. */
function reportUnreachable(server: McpServerConfig, listing: Extract<McpListing, { ok: false }>, context: StreamAccess): void {
  const retryAt = listing.retryAt ? new Date(listing.retryAt).toISOString() : undefined;
  context.publish(listing.skipped ? "mcp.server.backoff" : "mcp.server.failed", {
    server: server.name,
    url: server.url,
    error: listing.error,
    failures: listing.failures,
    ...(retryAt && { retryAt }),
  });
}

/**
 * The tools of a server whose tools act as someone, listed over the
 * connection of the account's owner: the person who started the run, or
 * (owner `agent`) the agent itself. Before they have connected (or when no
 * person started the run), the server's last listing, else the tools its
 * `auth` declares, are offered: a call then asks them to connect.
 */
async function loadAsPerson(server: PersonMcpServer, context: PlatformAccess & StreamAccess & RuntimeAccess & RunIdentity) {
  const pool = context.toolRuntime.kept.mcp;
  const entityId = accountOwnerOf(server.auth, context);
  const listing = entityId === undefined ? undefined : await pool.listing(server, context.env, Date.now(), mcpPerson(context.env, server, entityId, gatewayOriginOf(context)));
  if (listing !== undefined && !listing.ok && listing.accountNeeded === undefined) {
    reportUnreachable(server, listing, context);
    return { tools: [] };
  }
  if (listing?.ok) return offer(server, listing.key, listing.tools, listing, context);
  const known: McpToolDefinition[] | undefined =
    pool.knownTools(server) ??
    server.auth.tools?.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema ?? { type: "object", properties: {} } }));
  const reason = listing === undefined ? "no person started this run" : (listing.accountNeeded?.reason ?? listing.error);
  if (known === undefined || known.length === 0) {
    context.publish("mcp.server.failed", {
      server: server.name,
      url: server.url,
      error: `The server's tools act as a person and cannot be listed (${reason}); declare them in its auth.tools to offer them before anyone connects`,
      failures: 0,
    });
    return { tools: [] };
  }
  context.publish("mcp.server.account_needed", { server: server.name, url: server.url, reason, tools: known.map((tool) => mcpToolName(server.name, tool.name)) });
  return offer(server, "", known, undefined, context);
}

/** The allowed tools of a listing (a schema that can never validate is skipped and reported). */
function offer(
  server: McpServerConfig,
  key: string,
  definitions: McpToolDefinition[],
  listing: { reused: boolean; instructions?: string } | undefined,
  context: StreamAccess,
): { tools: ProvidedTool[]; instructions?: string } {
  const tools: ProvidedTool[] = [];
  for (const definition of definitions) {
    if (!mcpToolAllowed(server, definition.name)) continue;
    const [problem] = checkInputSchema(definition.inputSchema);
    if (problem !== undefined) {
      const where = problem.path.length > 0 ? `inputSchema.${problem.path.join(".")}` : "inputSchema";
      context.publish("mcp.tool.skipped", { server: server.name, tool: definition.name, error: `${where}: ${problem.message}` });
      continue;
    }
    tools.push({ kind: "engine", origin: definition.name, resolved: resolveMcpTool(server, key, definition) });
  }
  if (listing !== undefined) {
    context.publish("mcp.server.connected", {
      server: server.name,
      tools: tools.map((tool) => (tool.kind === "engine" ? tool.resolved.name : tool.name)),
      reused: listing.reused,
      ...(listing.instructions && { instructions: listing.instructions.slice(0, 8_000) }),
    });
  }
  return { tools, instructions: server.instructions === false || listing === undefined ? undefined : listing.instructions };
}

function resolveMcpTool(server: McpServerConfig, key: string, definition: McpToolDefinition): ResolvedTool {
  const name = mcpToolName(server.name, definition.name);
  return {
    name,
    provider: server.name,
    // The server's name first, so the model can tell where a tool comes from (the catalogue's `[server] description`).
    description: `[${server.name}] ${definition.description ?? definition.name}`,
    inputSchema: definition.inputSchema,
    // A server whose tools act as the person who asks shows its calls by default: their card is where the person connects.
    display: { name, visible: server.visible, defaultVisible: server.auth?.owner === "person", display: server.display },
    policy: { queue: server.queue, cache: cacheable(server, definition) ? server.cache : undefined },
    async run(context: PendingCallContext & SettingsAccess, call) {
      // Acting as a person: over their own connection with their token, or a wait for them to connect.
      if (actsAsPersonMcp(server)) return runMcpAsPerson(context, server, definition.name, call);
      const timeoutMs = server.timeout ?? context.config.limits.toolTimeout;
      try {
        const answer = await context.toolRuntime.kept.mcp.callTool(key, definition.name, (call.args ?? {}) as Record<string, unknown>, {
          timeoutMs,
          signal: call.abortSignal,
          onProgress: (progress) => call.progress(progress),
          traceparent: call.span?.traceparent,
        });
        return mcpToolOutcome(answer, { media: context.mediaToolResults });
      } catch (error) {
        const timedOut = isMcpRequestTimeout(error);
        return failed(
          timedOut
            ? `MCP tool "${definition.name}" on "${server.name}" timed out after ${timeoutMs}ms`
            : `MCP tool "${definition.name}" on "${server.name}" failed: ${(error as Error).message}`,
          timedOut ? "timeout" : "upstream",
        );
      }
    },
  };
}
