/**
 * Where the gateway gets a token for a server, found the way the MCP
 * authorization spec says: the server's `401` and its `WWW-Authenticate`
 * header (`resource_metadata`, `scope`) → the protected resource metadata
 * (RFC 9728; from the header's URL, else the well-known addresses, path-aware
 * first) → the first authorization server it names → that server's metadata
 * (RFC 8414, then OpenID discovery, in the spec's order). Or, for a server
 * that publishes none of this, from endpoints the configuration gives.
 *
 * What it refuses: protected resource metadata about another resource,
 * authorization server metadata whose `issuer` is not the one asked for (a
 * document may not speak for another server), a server that does not say it
 * supports PKCE with S256, and endpoints the gateway's URL policy would not
 * call or send a person to (`oauthUrlProblem`).
 *
 * The MCP SDK finds the protected resource metadata and builds the
 * authorization server's discovery addresses; its own discovery of the
 * authorization server's metadata is not used because it drops, for OpenID
 * providers, the field that says the server sends `iss` (RFC 9207), which the
 * callback's check depends on.
 */
import { buildDiscoveryUrls, discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { checkResourceAllowed, resourceUrlFromServerUrl } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import { z } from "zod";
import { parseJsonSafely } from "../json";
import { type OAuthHttp, OAuthUrl, oauthUrlProblem } from "./oauth-fetch";
import { errorText, failure, fromServer, type OAuthResult } from "./oauth-failure";
import { scopeList } from "./oauth-scopes";

/** What the gateway keeps of an authorization server: what its flows use. Stored with a flow and read back through this schema. */
export const AuthorizationServer = z.object({
  /** The issuer identifier its metadata gave (RFC 8414), which `iss` must equal; unknown only for configured endpoints without one. */
  issuer: z.string().optional(),
  authorizationEndpoint: z.string(),
  tokenEndpoint: z.string(),
  registrationEndpoint: z.string().optional(),
  tokenEndpointAuthMethods: z.array(z.string()).optional(),
  /** It accepts a Client ID Metadata Document's URL as a client id. */
  clientIdMetadataDocumentSupported: z.boolean(),
  /** It says it sends `iss` with every authorization response (RFC 9207): then a response without one is refused. */
  issParameterSupported: z.boolean(),
});
export type AuthorizationServer = z.infer<typeof AuthorizationServer>;

/** Where and how to get a token for one server. */
export const OAuthDiscovery = z.object({
  server: AuthorizationServer,
  /** The resource indicator (RFC 8707) sent with every authorization and token request, when known. */
  resource: z.string().optional(),
  /** Scopes to ask for first: the challenge's `scope`, else the protected resource's `scopes_supported`, else none. */
  scopes: z.array(z.string()),
  /** The protected resource's name for people, when its metadata gives one. */
  resourceName: z.string().optional(),
});
export type OAuthDiscovery = z.infer<typeof OAuthDiscovery>;

/** An authorization server given by its endpoints, for servers that publish no metadata. */
export const OAuthEndpoints = z
  .object({
    authorizationUrl: OAuthUrl,
    tokenUrl: OAuthUrl,
    registrationUrl: OAuthUrl.optional(),
    /** Its issuer identifier: without it, an authorization response that carries `iss` cannot be checked and is refused. */
    issuer: z.string().max(2048).url().optional(),
  })
  .strict();
export type OAuthEndpoints = z.infer<typeof OAuthEndpoints>;

/** The fields of authorization server metadata the gateway reads; the rest is ignored. */
const ServerMetadata = z.object({
  issuer: z.string().min(1).max(2048),
  authorization_endpoint: z.string().max(4096),
  token_endpoint: z.string().max(4096),
  registration_endpoint: z.string().max(4096).optional(),
  response_types_supported: z.array(z.string()).max(100).optional(),
  code_challenge_methods_supported: z.array(z.string()).max(100).optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).max(100).optional(),
  client_id_metadata_document_supported: z.boolean().optional(),
  authorization_response_iss_parameter_supported: z.boolean().optional(),
});
type ServerMetadata = z.infer<typeof ServerMetadata>;

export type DiscoverOAuthInput = {
  /** The MCP server's URL, as configured. */
  serverUrl: string;
  /** The `WWW-Authenticate` header of the server's `401`, when there was one. */
  wwwAuthenticate?: string;
  http: OAuthHttp;
};

/** From an MCP server (and its `401`, when there was one) to its authorization server. Never throws. */
export async function discoverOAuth(input: DiscoverOAuthInput): Promise<OAuthResult<OAuthDiscovery>> {
  const { serverUrl, http } = input;
  const serverProblem = oauthUrlProblem(serverUrl, http.policy);
  if (serverProblem !== undefined) return failure("discovery_failed", `The server URL cannot be used with OAuth: ${serverProblem}`);
  const challenge =
    input.wwwAuthenticate === undefined ? {} : extractWWWAuthenticateParams(new Response(null, { status: 401, headers: { "www-authenticate": input.wwwAuthenticate } }));
  let resourceMetadata: Awaited<ReturnType<typeof discoverOAuthProtectedResourceMetadata>>;
  try {
    resourceMetadata = await discoverOAuthProtectedResourceMetadata(serverUrl, { resourceMetadataUrl: challenge.resourceMetadataUrl }, http.fetch);
  } catch (error) {
    return failure(
      "discovery_failed",
      `${new URL(serverUrl).origin} publishes no protected resource metadata the gateway can use (${errorText(error)}); give the authorization server's endpoints in the configuration instead`,
    );
  }
  // RFC 9728: metadata found through a header must be about the server that sent the header.
  let sameResource = false;
  try {
    sameResource = checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(serverUrl), configuredResource: resourceMetadata.resource });
  } catch {
    sameResource = false;
  }
  if (!sameResource) return failure("discovery_failed", `The protected resource metadata is about ${fromServer(resourceMetadata.resource)}, not about ${serverUrl}`);
  const issuer = resourceMetadata.authorization_servers?.[0];
  if (issuer === undefined) return failure("discovery_failed", "The protected resource metadata names no authorization server");
  const server = await authorizationServerAt(issuer, http);
  if (!server.ok) return server;
  return {
    ok: true,
    value: {
      server: server.value,
      // Sent as the metadata writes it: a parsed URL would add a "/" to a bare origin, which exact-match servers refuse.
      resource: resourceMetadata.resource,
      scopes: challenge.scope !== undefined ? scopeList(challenge.scope) : (resourceMetadata.scopes_supported ?? []),
      resourceName: resourceMetadata.resource_name,
    },
  };
}

/** An authorization server's metadata, from its issuer identifier: checked, and reduced to what the gateway keeps. Never throws. */
export async function authorizationServerAt(issuer: string, http: OAuthHttp): Promise<OAuthResult<AuthorizationServer>> {
  let addresses: ReturnType<typeof buildDiscoveryUrls>;
  try {
    addresses = buildDiscoveryUrls(issuer);
  } catch {
    return failure("discovery_failed", `The authorization server "${fromServer(issuer)}" is not a URL`);
  }
  for (const { url } of addresses) {
    let response: Response;
    try {
      response = await http.fetch(url, { headers: { accept: "application/json" } });
    } catch (error) {
      return failure("discovery_failed", `The authorization server's metadata could not be read: ${errorText(error)}`);
    }
    // Not here (a 4xx, or a redirect, which is not followed): the next address. A 5xx is the server failing, not an absence.
    if (response.status >= 500) return failure("discovery_failed", `The authorization server answered HTTP ${response.status} at ${url.pathname}`);
    if (!response.ok) continue;
    const parsed = parseJsonSafely(await response.text());
    const metadata = parsed.ok ? ServerMetadata.safeParse(parsed.value) : undefined;
    if (!metadata?.success) return failure("discovery_failed", `The authorization server's metadata at ${url.pathname} is not valid authorization server metadata`);
    if (!sameIssuer(metadata.data.issuer, issuer)) {
      return failure("discovery_failed", `The metadata found for ${fromServer(issuer)} names another issuer (${fromServer(metadata.data.issuer)}), so it is not used`);
    }
    return serverFromMetadata(metadata.data, http);
  }
  return failure("discovery_failed", `${fromServer(issuer)} publishes no authorization server metadata (neither OAuth nor OpenID discovery)`);
}

/** An authorization server from the endpoints a configuration gives, checked by the URL policy in force. */
export function oauthFromEndpoints(endpoints: OAuthEndpoints, options: { resource?: string; scopes?: string[]; http: Pick<OAuthHttp, "policy"> }): OAuthResult<OAuthDiscovery> {
  for (const url of [endpoints.authorizationUrl, endpoints.tokenUrl, endpoints.registrationUrl]) {
    const problem = url === undefined ? undefined : oauthUrlProblem(url, options.http.policy);
    if (problem !== undefined) return failure("discovery_failed", `The configured endpoint ${fromServer(url ?? "")} cannot be used: ${problem}`);
  }
  return {
    ok: true,
    value: {
      server: {
        issuer: endpoints.issuer,
        authorizationEndpoint: endpoints.authorizationUrl,
        tokenEndpoint: endpoints.tokenUrl,
        registrationEndpoint: endpoints.registrationUrl,
        clientIdMetadataDocumentSupported: false,
        issParameterSupported: false,
      },
      resource: options.resource,
      scopes: options.scopes ?? [],
    },
  };
}

/**
 * The metadata the MCP SDK's functions take, from what the gateway keeps:
 * PKCE with S256 and the code flow, which is all the gateway uses.
 */
export function sdkMetadataOf(server: AuthorizationServer): OAuthMetadata {
  return {
    issuer: server.issuer ?? new URL(server.authorizationEndpoint).origin,
    authorization_endpoint: server.authorizationEndpoint,
    token_endpoint: server.tokenEndpoint,
    registration_endpoint: server.registrationEndpoint,
    response_types_supported: ["code"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: server.tokenEndpointAuthMethods,
    client_id_metadata_document_supported: server.clientIdMetadataDocumentSupported,
  };
}

function serverFromMetadata(metadata: ServerMetadata, http: OAuthHttp): OAuthResult<AuthorizationServer> {
  const methods = metadata.code_challenge_methods_supported;
  // The MCP authorization spec: a server whose metadata does not list its PKCE methods is taken not to support PKCE.
  if (methods === undefined)
    return failure("pkce_unsupported", `${fromServer(metadata.issuer)} does not say it supports PKCE (its metadata lists no code_challenge_methods_supported)`);
  if (!methods.includes("S256"))
    return failure("pkce_unsupported", `${fromServer(metadata.issuer)} supports PKCE only with ${fromServer(methods.join(", ") || "no method")}, not S256`);
  if (metadata.response_types_supported !== undefined && !metadata.response_types_supported.includes("code")) {
    return failure("discovery_failed", `${fromServer(metadata.issuer)} does not support the authorization code flow`);
  }
  const endpoints = [metadata.authorization_endpoint, metadata.token_endpoint, metadata.registration_endpoint];
  for (const url of endpoints) {
    const problem = url === undefined ? undefined : oauthUrlProblem(url, http.policy);
    if (problem !== undefined) return failure("discovery_failed", `The authorization server's endpoint ${fromServer(url ?? "")} cannot be used: ${problem}`);
  }
  return {
    ok: true,
    value: {
      issuer: metadata.issuer,
      authorizationEndpoint: metadata.authorization_endpoint,
      tokenEndpoint: metadata.token_endpoint,
      registrationEndpoint: metadata.registration_endpoint,
      tokenEndpointAuthMethods: metadata.token_endpoint_auth_methods_supported,
      clientIdMetadataDocumentSupported: metadata.client_id_metadata_document_supported === true,
      issParameterSupported: metadata.authorization_response_iss_parameter_supported === true,
    },
  };
}

/**
 * RFC 8414: the metadata's `issuer` must be the identifier its address was
 * built from. One trailing "/" apart, they name the same document (the
 * well-known address drops it), so that much is let through; nothing else.
 */
function sameIssuer(advertised: string, expected: string): boolean {
  return advertised === expected || advertised === `${expected}/` || `${advertised}/` === expected;
}
