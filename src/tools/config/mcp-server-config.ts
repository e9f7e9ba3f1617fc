/**
 * An MCP server an agent may use (the config's `mcp.servers`): where it is,
 * which of its tools are allowed and which denied, how they show, queue and
 * cache, and how long the gateway waits for the server and keeps its tool
 * list.
 */
import { z } from "@hono/zod-openapi";
import { OutboundUrl } from "../../security/url-policy";
import { checkHeaderSecrets } from "./check-gateway-config";
import { ConfiguredHeaders } from "./configured-headers";
import { McpAuth } from "./mcp-auth-config";
import { maxToolTimeoutMs, QueueName, ToolCache, ToolDisplay } from "./tool-config";

export const defaultConnectTimeoutMs = 10_000;
export const defaultToolListTtlMs = 5 * 60 * 1000;

const toolNames = z.array(z.string().min(1).max(128)).max(256);

export const McpServerConfig = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,32}$/),
    url: OutboundUrl,
    transport: z.enum(["http", "sse"]).default("http"),
    allowedTools: toolNames.optional(),
    /** The same as `allowedTools` (the name every provider uses); when both are given, a tool must be in both. */
    toolsAllowed: toolNames.optional(),
    toolsDenied: toolNames.optional(),
    headers: ConfiguredHeaders.optional(),
    /** Calls show in the active space like a visible gateway tool (default false). */
    visible: z.boolean().optional(),
    display: ToolDisplay.optional(),
    queue: QueueName.optional(),
    /** Kept answers: tools the server marks `readOnlyHint`, or every tool with `allowSideEffects`. */
    cache: ToolCache.optional(),
    /** How long one tool call may take (default `limits.toolTimeout`); progress notifications do not extend it past this. */
    timeout: z.number().int().positive().max(maxToolTimeoutMs).optional(),
    /** One deadline for connecting (HTTP, then the SSE fallback) and listing the tools. */
    connectTimeout: z.number().int().min(100).max(60_000).optional(),
    /** How long the tool list is kept before it is asked for again (a `tools/list_changed` notification refreshes it sooner). */
    toolListTtl: z
      .number()
      .int()
      .min(0)
      .max(24 * 3600 * 1000)
      .optional(),
    /** Whether the server's `instructions` go into the system prompt (default true). */
    instructions: z.boolean().optional(),
    /** `false`: the server is kept in the config but skipped (no connection, no tools, no instructions); default true. */
    enabled: z.boolean().optional(),
    /** Its tools act as a person, with their OAuth token for the server (`mcp-auth-config.ts`). */
    auth: McpAuth.optional(),
  })
  .strict()
  .superRefine((server, context) => {
    for (const problem of checkHeaderSecrets(server.headers)) context.addIssue({ code: "custom", path: problem.path, message: problem.message });
    const configured = Object.keys(server.headers ?? {}).find((name) => name.toLowerCase() === "authorization");
    if (server.auth !== undefined && configured !== undefined) {
      context.addIssue({
        code: "custom",
        path: ["headers", configured],
        message: "A server with auth is sent the person's token as its Authorization header: remove this one",
      });
    }
  });

export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** Whether a tool of the server is offered, by `allowedTools`, `toolsAllowed` and `toolsDenied`. */
export function mcpToolAllowed(server: McpServerConfig, tool: string): boolean {
  if (server.allowedTools && !server.allowedTools.includes(tool)) return false;
  if (server.toolsAllowed && !server.toolsAllowed.includes(tool)) return false;
  return !server.toolsDenied?.includes(tool);
}
