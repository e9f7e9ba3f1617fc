/**
 * MCP servers (contract §5 `mcp.servers`): at the start of a cycle the agent
 * connects to each server (Streamable HTTP, falling back to SSE; stdio cannot
 * exist on Workers), lists its tools, keeps the `allowedTools`, and offers them
 * to the model as `{server}__{tool}` (a tool whose input schema cannot compile
 * is skipped and reported). They behave like invisible gateway tools:
 * arguments are validated against the server's schema, a failure is data for
 * the model, results are capped. A server that cannot be reached is reported
 * on the agent stream and its tools are simply absent; the cycle goes on.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { dynamicTool, jsonSchema, type Tool } from "ai";
import type { McpServerConfig } from "./mcp-server-config";
import { outboundUrlProblem, urlPolicyOf, type UrlPolicy } from "../../security/url-policy";
import { capResult } from "../engine/cap-result";
import { fillHeaders } from "../gateway/fill-headers";
import { checkInputSchema } from "../json-schema/check-input-schema";
import { formatArgumentError, validateToolArguments } from "../validate-tool-arguments";
import { failed, succeeded } from "../engine/tool-outcome";
import { mcpToolOutcome } from "./mcp-tool-result";

const connectTimeoutMs = 10_000;

export type McpTools = { tools: Record<string, Tool>; close(): Promise<void> };

type Options = {
  env: Record<string, unknown>;
  toolTimeoutMs: number;
  maxResultBytes: number;
  report(type: string, data: Record<string, unknown>): void;
};

/** `{server}__{tool}`, made safe for model tool names (`^[a-zA-Z0-9_-]{1,64}$`). */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}

async function connect(server: McpServerConfig, headers: Record<string, string>, policy: UrlPolicy): Promise<Client> {
  const requestInit: RequestInit = { headers };
  // Every request the transports make (an SSE server names its own endpoint) goes by the URL policy.
  const policyFetch = (input: string | URL, init?: RequestInit) => {
    const problem = outboundUrlProblem(String(input), policy);
    return problem === undefined ? fetch(input, init) : Promise.reject(new Error(problem));
  };
  const attempt = async (transportKind: "http" | "sse") => {
    const client = new Client({ name: "switchboard", version: "0.1.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    const url = new URL(server.url);
    const options = { requestInit, fetch: policyFetch };
    const transport = transportKind === "http" ? new StreamableHTTPClientTransport(url, options) : new SSEClientTransport(url, options);
    await client.connect(transport, { timeout: connectTimeoutMs });
    return client;
  };
  if (server.transport === "sse") return attempt("sse");
  try {
    return await attempt("http");
  } catch (httpError) {
    // Older servers speak only the SSE transport.
    try {
      return await attempt("sse");
    } catch {
      throw httpError;
    }
  }
}

export async function loadMcpTools(servers: McpServerConfig[], options: Options): Promise<McpTools> {
  const clients: Client[] = [];
  const tools: Record<string, Tool> = {};
  await Promise.all(
    servers.map(async (server) => {
      try {
        const policy = urlPolicyOf(options.env);
        const urlProblem = outboundUrlProblem(server.url, policy);
        if (urlProblem !== undefined) throw new Error(urlProblem);
        const headers = fillHeaders(server.headers, {}, options.env);
        if (!headers.ok) throw new Error(headers.error);
        const client = await connect(server, headers.value, policy);
        clients.push(client);
        const listed = await client.listTools(undefined, { timeout: connectTimeoutMs });
        const allowed = server.allowedTools ? new Set(server.allowedTools) : undefined;
        for (const definition of listed.tools) {
          if (allowed && !allowed.has(definition.name)) continue;
          const schema = definition.inputSchema as Record<string, unknown>;
          const name = mcpToolName(server.name, definition.name);
          // A schema that can never validate is not offered: the model could never call the tool successfully.
          const [problem] = checkInputSchema(schema);
          if (problem !== undefined) {
            const where = problem.path.length > 0 ? `inputSchema.${problem.path.join(".")}` : "inputSchema";
            options.report("mcp.tool.skipped", { server: server.name, tool: definition.name, error: `${where}: ${problem.message}` });
            continue;
          }
          tools[name] = dynamicTool({
            description: definition.description ?? `${definition.name} (MCP server ${server.name})`,
            inputSchema: jsonSchema(schema),
            execute: async (input, { abortSignal }) => {
              const validation = validateToolArguments(schema, input);
              if (!validation.ok) return failed(formatArgumentError(name, validation.problems));
              try {
                const answer = await client.callTool(
                  { name: definition.name, arguments: (input ?? {}) as Record<string, unknown> },
                  undefined,
                  { timeout: options.toolTimeoutMs, signal: abortSignal },
                );
                const outcome = mcpToolOutcome(answer);
                return outcome.type === "ok" ? succeeded(capResult(outcome.value, options.maxResultBytes)) : outcome;
              } catch (error) {
                return failed(`MCP tool "${definition.name}" on "${server.name}" failed: ${(error as Error).message}`);
              }
            },
          });
        }
        options.report("mcp.server.connected", { server: server.name, tools: Object.keys(tools).filter((key) => key.startsWith(`${server.name}__`)) });
      } catch (error) {
        options.report("mcp.server.failed", { server: server.name, url: server.url, error: (error as Error).message });
      }
    }),
  );
  return {
    tools,
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    },
  };
}
