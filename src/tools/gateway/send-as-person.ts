/**
 * A gateway tool's request sent as a person (`execution.auth`): their token
 * for the tool's origin is read (refreshed a minute before it expires, one
 * refresh at a time), sent as `Authorization: Bearer` through the pinned
 * request (so only to the tool's own origin), refreshed once and the request
 * sent again once after a `401`. When there is no token to use (never
 * connected, revoked, a refresh the server refused, a second `401` with a
 * token just refreshed) or the service wants more scopes (`403
 * insufficient_scope`), the answer says so and which scopes to ask for: the
 * caller turns the call into a "connect your account" wait.
 *
 * The token never leaves this file but in that one header: an answer or an
 * error that echoes it has it replaced by `[redacted]`.
 */
import { type Connection, ConnectionStore } from "../../accounts/connection-store";
import { type OAuthDiscovery, authorizationServerAt, oauthFromEndpoints } from "../../accounts/oauth-discovery";
import { oauthHttp } from "../../accounts/oauth-fetch";
import { insufficientScope } from "../../accounts/insufficient-scope";
import { registerGateway, type OAuthRegistration, gatewayOAuthUrls } from "../../accounts/oauth-registration";
import { scopeList, unionScopes } from "../../accounts/oauth-scopes";
import { clientCredentialsTokens, refreshTokens } from "../../accounts/oauth-tokens";
import { AccountsKeysError, type ConnectionIdentity, tokenCipherFor } from "../../accounts/token-cipher";
import { type FreshTokenOptions, withFreshToken } from "../../accounts/with-fresh-token";
import { getDatabase } from "../../db/client";
import type { AppEnv } from "../../env";
import { parseJsonSafely } from "../../json";
import { originOf } from "../../security/pinned-request";
import { urlPolicyOf } from "../../security/url-policy";
import type { GatewayAuth } from "../config/gateway-auth-config";
import type { GatewayExecutionInput } from "../config/tool-config";
import { buildGatewayRequest, type GatewayRequest } from "./build-gateway-request";
import { type GatewayToolResult, type SendOptions, sendGatewayRequest } from "./execute-gateway-tool";

/** Whose account, at which service, under which name people see it. */
export type GatewayAccount = ConnectionIdentity & { serviceName: string };

export type AsPersonResult =
  /** The request went out with the person's token: its answer (which may be a failure of the service's). */
  | { kind: "sent"; result: GatewayToolResult }
  /** No token to use: the person must connect (again), asking for `scopes`. `reason` is for people, never holds a token. */
  | { kind: "not_connected"; reason: string; scopes: string[] }
  /** Nothing was sent: the configuration or the gateway is wrong (no accounts key, a request that cannot be built). */
  | { kind: "failed"; error: string; failureKind: "validation" | "permission" | "upstream" };

/** The account a gateway tool with `auth` uses: the tool URL's origin is the connection key. */
export function gatewayAccount(execution: GatewayExecutionInput & { auth: GatewayAuth }, entityId: string): GatewayAccount | undefined {
  const origin = originOf(execution.url.replace(/\{\{[^}]*\}\}/g, "x"));
  if (origin === undefined) return undefined;
  return { entityId, connectionKey: origin, serviceName: execution.auth.service ?? origin };
}

/** Where the tool's tokens come from: discovered from the issuer, or the configured endpoints. */
export async function gatewayAuthority(
  auth: Pick<GatewayAuth, "scope" | "issuer" | "authorizationUrl" | "tokenUrl">,
  env: Record<string, unknown>,
): Promise<{ ok: true; discovery: OAuthDiscovery } | { ok: false; error: string }> {
  const http = oauthHttp({ policy: urlPolicyOf(env) });
  const scopes = scopeList(auth.scope);
  if (auth.authorizationUrl !== undefined && auth.tokenUrl !== undefined) {
    const given = oauthFromEndpoints({ authorizationUrl: auth.authorizationUrl, tokenUrl: auth.tokenUrl, issuer: auth.issuer }, { scopes, http });
    return given.ok ? { ok: true, discovery: given.value } : { ok: false, error: given.error.message };
  }
  if (auth.issuer === undefined) return { ok: false, error: "The tool's auth names neither an issuer nor endpoints" };
  const server = await authorizationServerAt(auth.issuer, http);
  return server.ok ? { ok: true, discovery: { server: server.value, scopes } } : { ok: false, error: server.error.message };
}

/** How the gateway is known to the server for a new flow: the configured client, else a metadata document or dynamic registration. */
export function registrationFor(auth: Pick<GatewayAuth, "client">, discovery: OAuthDiscovery, gatewayOrigin: string, env: Record<string, unknown>, scopes: string[]) {
  return registerGateway({ server: discovery.server, gatewayOrigin, configured: auth.client, scopes, http: oauthHttp({ policy: urlPolicyOf(env) }) });
}

/** The registration a stored connection's refresh presents: the configured client, else the client id it was connected with. */
export function refreshRegistration(auth: Pick<GatewayAuth, "client">, clientId: string | null, gatewayOrigin: string | undefined): OAuthRegistration | undefined {
  if (auth.client !== undefined) {
    const secretName = auth.client.clientSecret === undefined ? undefined : /^\$\{env\.([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(auth.client.clientSecret)?.[1];
    return { method: "configured", clientId: auth.client.clientId, clientSecretName: secretName };
  }
  if (clientId === null) return undefined;
  // A public client (a metadata document or a dynamic registration as "none"): its id is all a refresh presents.
  if (gatewayOrigin === undefined) return { method: "metadata_document", clientId };
  return { method: "dynamic", clientId, redirectUri: gatewayOAuthUrls(gatewayOrigin).redirectUri };
}

/** `value` with every occurrence of `secret` replaced (an answer or an error that echoes the token). */
export function withoutSecret<T>(value: T, secret: string): T {
  if (secret === "") return value;
  const text = JSON.stringify(value);
  if (text === undefined) return value;
  const encoded = JSON.stringify(secret).slice(1, -1);
  if (!text.includes(encoded)) return value;
  const parsed = parseJsonSafely(text.split(encoded).join("[redacted]"));
  // Unreachable for a value JSON wrote; nothing of it is kept rather than the token.
  return (parsed.ok ? parsed.value : "[redacted]") as T;
}

export type AsPersonOptions = SendOptions & {
  env: AppEnv;
  /** Where people reach the gateway (a dynamic registration's redirect URI), when known. */
  gatewayOrigin?: string;
  /** New tokens without a person (`clientCredentialsGrant`): an agent's own account. */
  grant?: FreshTokenOptions["grant"];
};

/** Whose account a call with `auth` uses: the agent's own, or the person whose message started the run (undefined when none did). */
export function accountOwnerOf(auth: Pick<GatewayAuth, "owner">, run: { initiatorEntityId?: string; agent: { entityId: string } }): string | undefined {
  return auth.owner === "agent" ? run.agent.entityId : run.initiatorEntityId;
}

/**
 * For an agent's own account with a client secret: tokens by the client
 * credentials grant, from the authorization server `authority` finds.
 * Undefined otherwise (a person's account, or an agent's an operator connects).
 */
export function clientCredentialsGrant(
  auth: Pick<GatewayAuth, "owner" | "client">,
  authority: () => Promise<{ ok: true; discovery: OAuthDiscovery } | { ok: false; error: string }>,
  env: Record<string, unknown>,
): FreshTokenOptions["grant"] {
  const client = auth.client;
  if (auth.owner !== "agent" || client?.clientSecret === undefined) return undefined;
  return async () => {
    const found = await authority();
    if (!found.ok) throw new Error(found.error);
    const registration = refreshRegistration(auth, null, undefined);
    if (registration?.method !== "configured") throw new Error("The client credentials grant needs a configured client");
    const { server, scopes, resource } = found.discovery;
    const tokens = await clientCredentialsTokens({ server, registration, scopes, resource, http: oauthHttp({ policy: urlPolicyOf(env) }), env });
    if (!tokens.ok) throw new Error(tokens.error.message);
    return { tokens: tokens.value, details: { issuer: server.issuer ?? null, clientId: client.clientId } };
  };
}

/**
 * What the model is told when an agent's own account is not there: by the
 * client credentials grant, what failed (its client id and secret are the
 * operator's to check); else who connects it, and how.
 */
export function agentNotConnected(
  serviceName: string,
  reason: string,
  auth: Pick<GatewayAuth, "client">,
  agentId: string,
  what: { tool?: string; server?: string; provider?: string },
): string {
  if (auth.client?.clientSecret !== undefined) {
    return `${serviceName} gave this agent no token (${reason}): an operator checks the client id and secret its auth names`;
  }
  const [field, name] = Object.entries(what).find(([, value]) => value !== undefined) ?? ["tool", ""];
  return `${serviceName} is not connected for this agent (${reason}): an operator connects it once with POST /api/agents/${agentId}/connections {"${field}": "${name}"}, or \`switchboard accounts connect --agent ${agentId} --${field} ${name}\``;
}

/** Sends the tool's request as `account`'s person. Never throws but for D1. */
export function sendAsPerson(execution: GatewayExecutionInput & { auth: GatewayAuth }, args: unknown, account: GatewayAccount, options: AsPersonOptions): Promise<AsPersonResult> {
  return sendRequestAsPerson(execution.auth, () => buildGatewayRequest(execution, args, options.env), account, options);
}

/** A request built afresh for each attempt (a gateway tool's, an OpenAPI operation's), or why it cannot be. */
export type RequestBuilder = () => { ok: true; request: GatewayRequest } | { ok: false; error: string; kind: "validation" | "permission" };

/** Sends the request `build` makes as `account`'s person, with their token for `auth`'s service. Never throws but for D1. */
export async function sendRequestAsPerson(auth: GatewayAuth, build: RequestBuilder, account: GatewayAccount, options: AsPersonOptions): Promise<AsPersonResult> {
  const { env } = options;
  const execution = { auth };
  const configuredScopes = scopeList(execution.auth.scope);
  let store: ConnectionStore;
  try {
    store = new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));
  } catch (error) {
    if (error instanceof AccountsKeysError) return { kind: "failed", error: `The gateway cannot use connected accounts: ${error.message}`, failureKind: "permission" };
    throw error;
  }
  const identity = { entityId: account.entityId, connectionKey: account.connectionKey };
  let authority: Awaited<ReturnType<typeof gatewayAuthority>> | undefined;
  const refresh = async (current: Connection) => {
    authority ??= await gatewayAuthority(execution.auth, env);
    if (!authority.ok) throw new Error(authority.error);
    const registration = refreshRegistration(execution.auth, current.clientId, options.gatewayOrigin);
    if (registration === undefined) throw new Error("The connection does not say which client it was made with");
    const refreshed = await refreshTokens({ tokens: current.tokens, server: authority.discovery.server, registration, http: oauthHttp({ policy: urlPolicyOf(env) }), env });
    if (!refreshed.ok) throw new Error(refreshed.error.message);
    return refreshed.value;
  };

  let fresh = await withFreshToken(store, identity, refresh, { grant: options.grant });
  if (!fresh.ok) return { kind: "not_connected", reason: fresh.message, scopes: configuredScopes };
  for (let attempt = 0; ; attempt += 1) {
    const token = fresh.connection.tokens.accessToken;
    const built = build();
    if (!built.ok) return { kind: "failed", error: built.error, failureKind: built.kind };
    built.request.headers.authorization = `Bearer ${token}`;
    const result = withoutSecret(await sendGatewayRequest(built.request, options), token);
    if (result.ok) return { kind: "sent", result };
    if (result.status === 403 && result.challenge !== undefined) {
      const challenge = insufficientScope({ status: 403, headers: new Headers({ "www-authenticate": result.challenge }) }, fresh.connection.tokens.scopes);
      if (challenge !== undefined && challenge.missing.length > 0) {
        return {
          kind: "not_connected",
          reason: `${account.serviceName} needs more access (${challenge.missing.join(" ")})`,
          scopes: unionScopes(configuredScopes, challenge.request),
        };
      }
    }
    if (result.status !== 401) return { kind: "sent", result: withoutChallenge(result) };
    // Refused again with a token just refreshed: the grant is gone at the service, the person connects again.
    if (attempt > 0) return { kind: "not_connected", reason: `${account.serviceName} refused the token even after a refresh`, scopes: configuredScopes };
    // Refused: refreshed once (or another caller's newer token taken), and sent once more.
    fresh = await withFreshToken(store, identity, refresh, { rejectedAccessToken: token, grant: options.grant });
    if (!fresh.ok) return { kind: "not_connected", reason: fresh.message, scopes: configuredScopes };
    if (fresh.connection.tokens.accessToken === token) return { kind: "not_connected", reason: `${account.serviceName} refused the token`, scopes: configuredScopes };
  }
}

function withoutChallenge(result: GatewayToolResult): GatewayToolResult {
  if (result.ok || result.challenge === undefined) return result;
  const { challenge: _challenge, ...rest } = result;
  return rest;
}
