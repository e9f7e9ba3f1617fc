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
import { isMcpRequestTimeout } from "../mcp/mcp-pool";
import { mcpToolAllowed, type McpServerConfig } from "../config/mcp-server-config";
import { mcpToolOutcome } from "../mcp/mcp-tool-result";
import type { PlatformAccess, RuntimeAccess, SettingsAccess, StreamAccess } from "../engine/tool-context";

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
    async load(context: PlatformAccess & StreamAccess & RuntimeAccess) {
      const listing = await context.toolRuntime.kept.mcp.listing(server, context.env);
      if (!listing.ok) {
        const retryAt = listing.retryAt ? new Date(listing.retryAt).toISOString() : undefined;
        context.publish(listing.skipped ? "mcp.server.backoff" : "mcp.server.failed", {
          server: server.name,
          url: server.url,
          error: listing.error,
          failures: listing.failures,
          ...(retryAt && { retryAt }),
        });
        return { tools: [] };
      }
      const tools: ProvidedTool[] = [];
      for (const definition of listing.tools) {
        if (!mcpToolAllowed(server, definition.name)) continue;
        // A schema that can never validate is not offered: the model could never call the tool successfully.
        const [problem] = checkInputSchema(definition.inputSchema);
        if (problem !== undefined) {
          const where = problem.path.length > 0 ? `inputSchema.${problem.path.join(".")}` : "inputSchema";
          context.publish("mcp.tool.skipped", { server: server.name, tool: definition.name, error: `${where}: ${problem.message}` });
          continue;
        }
        tools.push({ kind: "engine", origin: definition.name, resolved: resolveMcpTool(server, listing.key, definition) });
      }
      context.publish("mcp.server.connected", {
        server: server.name,
        tools: tools.map((tool) => (tool.kind === "engine" ? tool.resolved.name : tool.name)),
        reused: listing.reused,
        ...(listing.instructions && { instructions: listing.instructions.slice(0, 8_000) }),
      });
      return { tools, instructions: server.instructions === false ? undefined : listing.instructions };
    },
  };
}

function resolveMcpTool(server: McpServerConfig, key: string, definition: McpToolDefinition): ResolvedTool {
  const name = mcpToolName(server.name, definition.name);
  return {
    name,
    provider: server.name,
    description: definition.description ?? `${definition.name} (MCP server ${server.name})`,
    inputSchema: definition.inputSchema,
    display: { name, visible: server.visible, defaultVisible: false, display: server.display },
    policy: { queue: server.queue, cache: cacheable(server, definition) ? server.cache : undefined },
    async run(context: SettingsAccess & RuntimeAccess, call) {
      const timeoutMs = server.timeout ?? context.config.limits.toolTimeout;
      try {
        const answer = await context.toolRuntime.kept.mcp.callTool(key, definition.name, (call.args ?? {}) as Record<string, unknown>, {
          timeoutMs,
          signal: call.abortSignal,
          onProgress: (progress) => call.progress(progress),
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
