/**
 * The gateway's OAuth client (`src/accounts/`) against real parts on
 * loopback: oidc-provider as the authorization server, an MCP server that
 * requires its bearer tokens (the MCP SDK's `requireBearerAuth`), and a
 * person's browser played with plain HTTP through the log-in and consent
 * pages (test/node/oauth-servers.ts). Discovery from the server's 401,
 * registration (dynamic, and by a Client ID Metadata Document), the flow to
 * tokens the server accepts, refresh with and without rotation, incremental
 * scopes, the callbacks that must be refused, and the fetch's bounds.
 *
 * Runs in the node project (no gateway needed): the modules are Web-API only,
 * so Node runs them as they are.
 */
import { createServer, type Server } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { insufficientScope } from "../../src/accounts/insufficient-scope";
import { discoverOAuth, type OAuthDiscovery } from "../../src/accounts/oauth-discovery";
import { oauthFetch, oauthHttp } from "../../src/accounts/oauth-fetch";
import { beginFlow, finishFlow, type OAuthFlow } from "../../src/accounts/oauth-flow";
import { clientMetadataDocument, gatewayOAuthUrls, type OAuthRegistration, registerGateway } from "../../src/accounts/oauth-registration";
import { refreshTokens } from "../../src/accounts/oauth-tokens";
import { type AuthorizationServerWorld, authorizeAs, closed, listening, startAuthorizationServer, startAwkwardServers, startMcpServer } from "./oauth-servers";

const dev = { allowPrivateHosts: true };
const http = oauthHttp({ policy: dev });
const env: Record<string, unknown> = {};
/** A gateway on loopback, as under `npm run dev`: no metadata document (it must be https), so dynamic registration. */
const localGateway = "http://127.0.0.1:8787";
/** A gateway on https, whose metadata document the authorization server fetches. */
const publicGateway = "https://gateway.test";

const servers: Server[] = [];
let authorizationServer: AuthorizationServerWorld;
let mcpOrigin: string;
let resource: string;
let awkward: Awaited<ReturnType<typeof startAwkwardServers>>;

beforeAll(async () => {
  const [asListener, mcpListener, odd, elsewhere] = [createServer(), createServer(), createServer(), createServer()];
  servers.push(asListener, mcpListener, odd, elsewhere);
  mcpOrigin = await listening(mcpListener);
  const documents = new Map<string, unknown>([[gatewayOAuthUrls(publicGateway).clientMetadataUrl, clientMetadataDocument(publicGateway)]]);
  authorizationServer = await startAuthorizationServer(asListener, `${mcpOrigin}/mcp`, documents);
  ({ resource } = await startMcpServer(mcpListener, mcpOrigin, authorizationServer));
  awkward = await startAwkwardServers(odd, elsewhere);
});

afterAll(async () => {
  await Promise.all(servers.map(closed));
});

/** The MCP server's 401 to a request without a token, as the gateway first meets it. */
async function challenge(path = "/mcp"): Promise<Response> {
  return fetch(`${mcpOrigin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

async function discovered(): Promise<OAuthDiscovery> {
  const response = await challenge();
  const result = await discoverOAuth({ serverUrl: resource, wwwAuthenticate: response.headers.get("www-authenticate") ?? undefined, http });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

async function registered(discovery: OAuthDiscovery, gatewayOrigin = localGateway): Promise<OAuthRegistration> {
  const result = await registerGateway({ server: discovery.server, gatewayOrigin, scopes: discovery.scopes, http });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

async function begun(discovery: OAuthDiscovery, registration: OAuthRegistration, options: { scopes?: string[]; gatewayOrigin?: string } = {}) {
  const result = await beginFlow({
    server: discovery.server,
    registration,
    redirectUri: gatewayOAuthUrls(options.gatewayOrigin ?? localGateway).redirectUri,
    scopes: options.scopes ?? discovery.scopes,
    resource: discovery.resource,
  });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** A whole connection: discovered, registered, authorized by `login`, finished. */
async function connected(login: string) {
  const discovery = await discovered();
  const registration = await registered(discovery);
  const { authorizationUrl, flow } = await begun(discovery, registration);
  const jar = new Map<string, string>();
  const callback = await authorizeAs(login, authorizationUrl, flow.redirectUri, { jar });
  const finished = await finishFlow(callback, flow, { http, env });
  if (!finished.ok) throw new Error(finished.error.message);
  return { discovery, registration, flow, callback, jar, tokens: finished.value };
}

const CallText = z.object({ content: z.array(z.object({ type: z.literal("text"), text: z.string() })).min(1) });

/** Calls the MCP server's `whoami` tool with the SDK's client and the bearer token. */
async function whoami(accessToken: string, path = "/mcp"): Promise<string> {
  const client = new Client({ name: "oauth-client-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${mcpOrigin}${path}`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } });
  await client.connect(transport);
  try {
    return CallText.parse(await client.callTool({ name: "whoami", arguments: {} })).content[0].text;
  } finally {
    await client.close();
  }
}

describe("discovery", () => {
  it("finds the authorization server from the MCP server's 401", async () => {
    const response = await challenge();
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("resource_metadata=");
    const discovery = await discovered();
    expect(discovery).toEqual({
      server: expect.objectContaining({
        issuer: authorizationServer.issuer,
        authorizationEndpoint: `${authorizationServer.issuer}/auth`,
        tokenEndpoint: `${authorizationServer.issuer}/token`,
        registrationEndpoint: `${authorizationServer.issuer}/reg`,
        clientIdMetadataDocumentSupported: true,
        issParameterSupported: true,
      }),
      resource,
      scopes: ["tools:read"],
      resourceName: "Test tools",
    });
  });

  it("finds it from the well-known address when there is no challenge, with the resource's scopes", async () => {
    const result = await discoverOAuth({ serverUrl: resource, http });
    expect(result).toMatchObject({ ok: true, value: { resource, scopes: ["tools:read", "tools:write"] } });
  });

  it("refuses an authorization server that does not support PKCE with S256", async () => {
    const plain = await discoverOAuth({ serverUrl: `${awkward.origin}/plain-mcp`, http });
    expect(plain).toMatchObject({ ok: false, error: { code: "pkce_unsupported", message: expect.stringContaining("only with plain") } });
    const silent = await discoverOAuth({ serverUrl: `${awkward.origin}/silent-mcp`, http });
    expect(silent).toMatchObject({ ok: false, error: { code: "pkce_unsupported", message: expect.stringContaining("does not say it supports PKCE") } });
  });

  it("refuses protected resource metadata about another resource", async () => {
    const result = await discoverOAuth({ serverUrl: `${awkward.origin}/other-mcp`, http });
    expect(result).toMatchObject({ ok: false, error: { code: "discovery_failed", message: expect.stringContaining("somewhere-else") } });
  });

  it("refuses an authorization server whose endpoints are on plain http", async () => {
    const result = await discoverOAuth({ serverUrl: `${awkward.origin}/insecure-mcp`, http });
    expect(result).toMatchObject({ ok: false, error: { code: "discovery_failed", message: expect.stringContaining("http://as.example.com/authorize") } });
  });

  it("refuses metadata that names another issuer than the one it was fetched for", async () => {
    const result = await discoverOAuth({ serverUrl: `${awkward.origin}/impostor-mcp`, http });
    expect(result).toMatchObject({ ok: false, error: { code: "discovery_failed", message: expect.stringContaining("names another issuer") } });
  });
});

describe("a person connects", () => {
  it("registers dynamically, follows the consent, and gets tokens the MCP server accepts", async () => {
    const { registration, tokens, callback } = await connected("alice");
    expect(registration).toMatchObject({ method: "dynamic", issuer: authorizationServer.issuer, redirectUri: `${localGateway}/oauth/callback` });
    expect(callback.get("iss")).toBe(authorizationServer.issuer);
    expect(tokens).toMatchObject({ scopes: ["tools:read"], tokenType: "Bearer", refreshToken: expect.any(String), expiresAt: expect.any(String) });
    expect(await whoami(tokens.accessToken)).toBe("alice");
  });

  it("is known by its Client ID Metadata Document where the gateway is on https", async () => {
    const discovery = await discovered();
    const registration = await registered(discovery, publicGateway);
    expect(registration).toEqual({ method: "metadata_document", clientId: `${publicGateway}/oauth/client-metadata.json` });
    const { authorizationUrl, flow } = await begun(discovery, registration, { gatewayOrigin: publicGateway });
    const callback = await authorizeAs("bob", authorizationUrl, flow.redirectUri);
    expect(authorizationServer.fetchedDocuments).toContain(registration.clientId);
    const finished = await finishFlow(callback, flow, { http, env });
    if (!finished.ok) throw new Error(finished.error.message);
    expect(await whoami(finished.value.accessToken)).toBe("bob");
  });

  it("asks again for the scopes a 403 names, with those it holds, and the wider token is accepted", async () => {
    const { discovery, registration, tokens, jar } = await connected("carol");
    const refused = await challengeWith(tokens.accessToken, "/mcp/admin");
    expect(refused.status).toBe(403);
    const more = insufficientScope(refused, tokens.scopes);
    expect(more).toEqual({ challenged: ["tools:read", "tools:write"], missing: ["tools:write"], request: ["tools:read", "tools:write"] });
    const { authorizationUrl, flow } = await begun(discovery, registration, { scopes: more?.request });
    const callback = await authorizeAs("carol", authorizationUrl, flow.redirectUri, { jar });
    const finished = await finishFlow(callback, flow, { http, env });
    if (!finished.ok) throw new Error(finished.error.message);
    expect(finished.value.scopes).toEqual(["tools:read", "tools:write"]);
    expect(await whoami(finished.value.accessToken, "/mcp/admin")).toBe("carol");
  });
});

async function challengeWith(accessToken: string, path: string): Promise<Response> {
  return fetch(`${mcpOrigin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

describe("refresh", () => {
  it("keeps the refresh token the server does not rotate, takes the one it rotates to, and says when the grant is gone", async () => {
    const { discovery, registration, tokens } = await connected("dave");
    const refresh = (current: typeof tokens) => refreshTokens({ tokens: current, server: discovery.server, registration, resource: discovery.resource, http, env });

    authorizationServer.settings.rotateRefreshTokens = false;
    const kept = await refresh(tokens);
    if (!kept.ok) throw new Error(kept.error.message);
    expect(kept.value.refreshToken).toBe(tokens.refreshToken);
    expect(kept.value.accessToken).not.toBe(tokens.accessToken);
    expect(kept.value.scopes).toEqual(["tools:read"]);
    expect(await whoami(kept.value.accessToken)).toBe("dave");

    authorizationServer.settings.rotateRefreshTokens = true;
    const rotated = await refresh(kept.value);
    if (!rotated.ok) throw new Error(rotated.error.message);
    expect(rotated.value.refreshToken).not.toBe(kept.value.refreshToken);
    expect(await whoami(rotated.value.accessToken)).toBe("dave");

    // The retired refresh token used again: the server takes it for a stolen one and revokes the grant.
    expect(await refresh(kept.value)).toMatchObject({ ok: false, error: { code: "grant_revoked" } });
    expect(await refresh(rotated.value)).toMatchObject({ ok: false, error: { code: "grant_revoked" } });
  });
});

describe("callbacks that are refused", () => {
  /** A flow taken to the callback, not finished. */
  async function atCallback(login: string, options: { refuse?: boolean } = {}): Promise<{ flow: OAuthFlow; callback: URLSearchParams }> {
    const discovery = await discovered();
    const registration = await registered(discovery);
    const { authorizationUrl, flow } = await begun(discovery, registration);
    return { flow, callback: await authorizeAs(login, authorizationUrl, flow.redirectUri, options) };
  }
  const changed = (params: URLSearchParams, name: string, value: string | undefined) => {
    const copy = new URLSearchParams(params);
    if (value === undefined) copy.delete(name);
    else copy.set(name, value);
    return copy;
  };

  it("a wrong iss, before the code is sent anywhere: the same code then still works", async () => {
    const { flow, callback } = await atCallback("erin");
    const wrong = await finishFlow(changed(callback, "iss", `${authorizationServer.issuer}/`), flow, { http, env });
    expect(wrong).toMatchObject({ ok: false, error: { code: "issuer_mismatch" } });
    const missing = await finishFlow(changed(callback, "iss", undefined), flow, { http, env });
    expect(missing).toMatchObject({ ok: false, error: { code: "issuer_mismatch" } });
    const right = await finishFlow(callback, flow, { http, env });
    expect(right.ok).toBe(true);
  });

  it("a replayed callback, and another flow's state", async () => {
    const first = await atCallback("frank");
    const second = await atCallback("frank");
    expect(await finishFlow(second.callback, first.flow, { http, env })).toMatchObject({ ok: false, error: { code: "state_mismatch" } });
    expect((await finishFlow(first.callback, first.flow, { http, env })).ok).toBe(true);
    // The code is spent: a replay reaches the token endpoint, which refuses it.
    expect(await finishFlow(first.callback, first.flow, { http, env })).toMatchObject({ ok: false, error: { code: "token_request_failed" } });
  });

  it("a callback without a code", async () => {
    const { flow, callback } = await atCallback("grace");
    expect(await finishFlow(changed(callback, "code", undefined), flow, { http, env })).toMatchObject({ ok: false, error: { code: "missing_code" } });
  });

  it("a person who refuses: access_denied, from the right issuer", async () => {
    const { flow, callback } = await atCallback("heidi", { refuse: true });
    expect(callback.get("error")).toBe("access_denied");
    expect(callback.get("iss")).toBe(authorizationServer.issuer);
    expect(await finishFlow(callback, flow, { http, env })).toMatchObject({ ok: false, error: { code: "authorization_denied" } });
  });
});

describe("the OAuth fetch's bounds, against a real server", () => {
  const bounded = oauthFetch({ policy: dev, timeoutMs: 500, maxBytes: 64 * 1024 });

  it("gives up on a server that does not answer, or does not finish its answer", async () => {
    await expect(bounded(`${awkward.origin}/slow-headers`)).rejects.toThrow(/timed out after 500ms/);
    await expect(bounded(`${awkward.origin}/slow-body`)).rejects.toThrow(/timed out after 500ms/);
  });

  it("refuses a body past its bound", async () => {
    await expect(bounded(`${awkward.origin}/huge`)).rejects.toThrow(/larger than 65536 bytes/);
  });

  it("does not follow a redirect to another origin, alone or inside discovery", async () => {
    const response = await bounded(`${awkward.origin}/redirect`);
    expect(response.status).toBe(302);
    const result = await discoverOAuth({ serverUrl: resource, wwwAuthenticate: `Bearer resource_metadata="${awkward.origin}/redirect"`, http });
    expect(result).toMatchObject({ ok: false, error: { code: "discovery_failed" } });
    expect(awkward.elsewhereHits.count).toBe(0);
  });
});
