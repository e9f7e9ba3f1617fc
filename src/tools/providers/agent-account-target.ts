/**
 * The account an agent's own tool uses (`auth.owner: "agent"`), named the
 * way an operator names it: a configured tool (`tool`), an MCP server
 * (`server`) or an OpenAPI source (`provider`). What an operator connects
 * once for the agent: whose account (the agent's entity), the connection's
 * key (a tool's or source's origin, a server's URL), the name people see,
 * and where its tokens come from.
 */
import type { OAuthDiscovery } from "../../accounts/oauth-discovery";
import type { AppEnv } from "../../env";
import type { GatewayAuth } from "../config/gateway-auth-config";
import type { ToolConfig } from "../config/tool-config";
import type { McpServerConfig } from "../config/mcp-server-config";
import { openApiProvidersOf } from "../config/provider-config";
import { type GatewayAccount, gatewayAccount, gatewayAuthority } from "../gateway/send-as-person";
import { mcpAccount, mcpAuthority } from "../mcp/mcp-as-person";
import { loadOpenApiDocument } from "../openapi/openapi-document";
import { baseUrlOf } from "../openapi/openapi-operations";
import { originOf } from "../../security/pinned-request";

export type AgentAccountNaming = { tool?: string; server?: string; provider?: string };

export type AgentAccountTarget = {
  account: GatewayAccount;
  auth: GatewayAuth;
  authority(): Promise<{ ok: true; discovery: OAuthDiscovery } | { ok: false; error: string }>;
};

export type AgentAccountRefusal = { ok: false; status: 400 | 404 | 502; message: string };

type AgentConfigPart = { tools?: readonly ToolConfig[]; mcp?: { servers: readonly McpServerConfig[] }; providers?: readonly { type: string }[] };

/** What an operator connects for the agent, or why there is nothing to connect there. */
export async function agentAccountTarget(
  config: AgentConfigPart,
  agentEntityId: string,
  naming: AgentAccountNaming,
  env: AppEnv,
): Promise<({ ok: true } & AgentAccountTarget) | AgentAccountRefusal> {
  const checked = (what: string, auth: GatewayAuth | undefined): { ok: true; auth: GatewayAuth } | AgentAccountRefusal => {
    if (auth === undefined) return { ok: false, status: 400, message: `${what} has no auth: it takes no connected account` };
    if (auth.owner !== "agent") return { ok: false, status: 400, message: `${what} acts as the person who asks (owner "person"): people connect their own accounts from its card` };
    if (auth.client?.clientSecret !== undefined) {
      return { ok: false, status: 400, message: `${what} gets the agent's token by the client credentials grant (it has client.clientSecret): there is nothing to connect` };
    }
    return { ok: true, auth };
  };
  if (naming.tool !== undefined) {
    const tool = config.tools?.find((candidate) => candidate.name === naming.tool);
    if (tool === undefined) return { ok: false, status: 404, message: `The agent has no tool "${naming.tool}"` };
    if (tool.executionType !== "gateway") return { ok: false, status: 400, message: `Tool "${tool.name}" is not a gateway tool: it takes no connected account` };
    const owned = checked(`Tool "${tool.name}"`, tool.execution.auth);
    if (!owned.ok) return owned;
    const { auth } = owned;
    const account = gatewayAccount({ ...tool.execution, auth }, agentEntityId);
    if (account === undefined) return { ok: false, status: 400, message: `Tool "${tool.name}"'s URL is not an absolute http(s) URL` };
    return { ok: true, account, auth, authority: () => gatewayAuthority(auth, env) };
  }
  if (naming.server !== undefined) {
    const server = config.mcp?.servers.find((candidate) => candidate.name === naming.server);
    if (server === undefined) return { ok: false, status: 404, message: `The agent has no MCP server "${naming.server}"` };
    const owned = checked(`MCP server "${server.name}"`, server.auth);
    if (!owned.ok) return owned;
    const withAuth = { ...server, auth: owned.auth };
    return { ok: true, account: mcpAccount(withAuth, agentEntityId), auth: owned.auth, authority: () => mcpAuthority(withAuth, env) };
  }
  const provider = openApiProvidersOf(config).find((candidate) => candidate.name === naming.provider);
  if (provider === undefined) return { ok: false, status: 404, message: `The agent has no OpenAPI source "${naming.provider}"` };
  const owned = checked(`OpenAPI source "${provider.name}"`, provider.auth);
  if (!owned.ok) return owned;
  const { auth } = owned;
  const loaded = await loadOpenApiDocument(provider, env);
  if (!loaded.ok) return { ok: false, status: 502, message: `OpenAPI source "${provider.name}"'s document cannot be loaded: ${loaded.error}` };
  const base = baseUrlOf(loaded.document, provider, loaded.specUrl);
  const origin = base.ok ? originOf(base.baseUrl) : undefined;
  if (origin === undefined) return { ok: false, status: 502, message: `OpenAPI source "${provider.name}" has no usable base URL` };
  return { ok: true, account: { entityId: agentEntityId, connectionKey: origin, serviceName: auth.service ?? origin }, auth, authority: () => gatewayAuthority(auth, env) };
}
