/**
 * An MCP server whose tools act as a person (`auth` on the server): every
 * request of that person's connection carries their token for the server
 * as `Authorization: Bearer`, read fresh (refreshed a minute before it
 * expires, one refresh at a time), refreshed once and sent again once after
 * a `401`. No token to use (never connected, revoked, a refresh refused, a
 * second `401` with a token just refreshed) or a `403 insufficient_scope`:
 * the request is not sent and `AccountNeededError` says why and which scopes
 * to ask for.
 *
 * The connection is keyed by the server's URL without its fragment (the
 * resource the token is for). The authorization server is discovered from
 * the MCP server (protected resource metadata, then its issuer's metadata)
 * unless the configuration names an issuer or endpoints; the server's URL is
 * then the resource indicator sent with every request for a token.
 */
import { ConnectionStore } from "../../accounts/connection-store";
import { discoverOAuth, type OAuthDiscovery } from "../../accounts/oauth-discovery";
import { oauthHttp } from "../../accounts/oauth-fetch";
import { insufficientScope } from "../../accounts/insufficient-scope";
import { scopeList, unionScopes } from "../../accounts/oauth-scopes";
import { refreshTokens } from "../../accounts/oauth-tokens";
import { tokenCipherFor } from "../../accounts/token-cipher";
import { withFreshToken } from "../../accounts/with-fresh-token";
import { getDatabase } from "../../db/client";
import type { AppEnv } from "../../env";
import { urlPolicyOf } from "../../security/url-policy";
import type { McpAuth } from "../config/mcp-auth-config";
import type { McpServerConfig } from "../config/mcp-server-config";
import { clientCredentialsGrant, type GatewayAccount, gatewayAuthority, refreshRegistration } from "../gateway/send-as-person";
import { AccountNeededError } from "./account-needed";

export type PersonMcpServer = McpServerConfig & { auth: McpAuth };

type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A server whose tools act as a person. */
export function actsAsPersonMcp(server: McpServerConfig): server is PersonMcpServer {
  return server.auth !== undefined;
}

/** The server's URL without its fragment: the resource its tokens are for, and the connection's key. */
export function mcpResource(server: McpServerConfig): string {
  const url = new URL(server.url);
  url.hash = "";
  return url.href;
}

/** Whose account, at which server, under which name people see it. */
export function mcpAccount(server: PersonMcpServer, entityId: string): GatewayAccount {
  return { entityId, connectionKey: mcpResource(server), serviceName: server.auth.service ?? server.name };
}

/** Where the server's tokens come from: the configured issuer or endpoints, else discovered from the server. */
export async function mcpAuthority(server: PersonMcpServer, env: Record<string, unknown>): Promise<{ ok: true; discovery: OAuthDiscovery } | { ok: false; error: string }> {
  const { auth } = server;
  if (auth.issuer !== undefined || auth.authorizationUrl !== undefined) {
    const configured = await gatewayAuthority(auth, env);
    return configured.ok ? { ok: true, discovery: { ...configured.discovery, resource: mcpResource(server) } } : configured;
  }
  const http = oauthHttp({ policy: urlPolicyOf(env) });
  const discovered = await discoverOAuth({ serverUrl: server.url, wwwAuthenticate: await challengeOf(server.url, http), http });
  if (!discovered.ok) return { ok: false, error: discovered.error.message };
  // The configured scopes come first; the server's own (its challenge, its metadata) are asked for only when none are configured.
  const configuredScopes = scopeList(auth.scope);
  return { ok: true, discovery: { ...discovered.value, scopes: configuredScopes.length > 0 ? configuredScopes : discovered.value.scopes } };
}

/**
 * The server's `WWW-Authenticate` for a request without a token (a `ping`,
 * which changes nothing): where its metadata is, and the scopes it wants for
 * a first connection (fewer than all it supports). Undefined when it does
 * not answer `401` with one; discovery then tries the well-known addresses.
 */
async function challengeOf(serverUrl: string, http: ReturnType<typeof oauthHttp>): Promise<string | undefined> {
  try {
    const response = await http.fetch(serverUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
    });
    await response.body?.cancel();
    return response.status === 401 ? (response.headers.get("www-authenticate") ?? undefined) : undefined;
  } catch {
    return undefined;
  }
}

/** A person's token for a server, read fresh; `rejected`: the token the server just refused (refreshed whatever its expiry). */
export type PersonTokenSource = (rejected?: string) => Promise<{ ok: true; token: string; scopes: string[] } | { ok: false; reason: string }>;

export function personTokenSource(env: AppEnv, server: PersonMcpServer, account: GatewayAccount, gatewayOrigin: string | undefined): PersonTokenSource {
  let store: ConnectionStore | undefined;
  let authority: Awaited<ReturnType<typeof mcpAuthority>> | undefined;
  const identity = { entityId: account.entityId, connectionKey: account.connectionKey };
  // An agent's own account with a client secret: granted anew whenever there is no token to use.
  const grant = clientCredentialsGrant(server.auth, () => mcpAuthority(server, env), env);
  return async (rejected) => {
    // A missing or broken ACCOUNTS_KEYS throws here: the call fails with the gateway's problem, not a card.
    store ??= new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));
    const fresh = await withFreshToken(
      store,
      identity,
      async (current) => {
        authority ??= await mcpAuthority(server, env);
        if (!authority.ok) throw new Error(authority.error);
        const registration = refreshRegistration(server.auth, current.clientId, gatewayOrigin);
        if (registration === undefined) throw new Error("The connection does not say which client it was made with");
        const refreshed = await refreshTokens({
          tokens: current.tokens,
          server: authority.discovery.server,
          registration,
          resource: authority.discovery.resource,
          http: oauthHttp({ policy: urlPolicyOf(env) }),
          env,
        });
        if (!refreshed.ok) throw new Error(refreshed.error.message);
        return refreshed.value;
      },
      { rejectedAccessToken: rejected, grant },
    );
    return fresh.ok ? { ok: true, token: fresh.connection.tokens.accessToken, scopes: fresh.connection.tokens.scopes } : { ok: false, reason: fresh.message };
  };
}

/** `send` with the person's token on every request, refreshed once on a `401`; `AccountNeededError` when it cannot go out as them. */
export function withPersonToken(send: FetchLike, tokens: PersonTokenSource, server: PersonMcpServer): FetchLike {
  const serviceName = server.auth.service ?? server.name;
  const configuredScopes = scopeList(server.auth.scope);
  return async (input, init) => {
    let fresh = await tokens();
    if (!fresh.ok) throw new AccountNeededError(fresh.reason, configuredScopes);
    for (let attempt = 0; ; attempt += 1) {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${fresh.token}`);
      const response = await send(input, { ...init, headers });
      if (response.status === 403) {
        const challenge = insufficientScope(response, fresh.scopes);
        if (challenge !== undefined && challenge.missing.length > 0) {
          await response.body?.cancel();
          throw new AccountNeededError(`${serviceName} needs more access (${challenge.missing.join(" ")})`, unionScopes(configuredScopes, challenge.request));
        }
      }
      if (response.status !== 401) return response;
      await response.body?.cancel();
      // Refused again with a token just refreshed: the grant is gone at the server, the person connects again.
      if (attempt > 0) throw new AccountNeededError(`${serviceName} refused the token even after a refresh`, configuredScopes);
      const rejected = fresh.token;
      fresh = await tokens(rejected);
      if (!fresh.ok) throw new AccountNeededError(fresh.reason, configuredScopes);
      if (fresh.token === rejected) throw new AccountNeededError(`${serviceName} refused the token`, configuredScopes);
    }
  };
}
