/**
 * Real parts for the OAuth client's tests, on loopback ports:
 * - an authorization server: `oidc-provider` (a certified OpenID provider),
 *   with PKCE required, resource indicators, dynamic registration, Client ID
 *   Metadata Documents and its development log-in and consent pages, which
 *   `authorizeAs` drives with plain HTTP requests as a person's browser would;
 * - an MCP server that requires its bearer tokens: the MCP SDK's Express app,
 *   `requireBearerAuth` and `mcpAuthMetadataRouter` (protected resource
 *   metadata), checking each token with the authorization server that issued
 *   it. `/mcp` needs `tools:read`; `/mcp/admin` needs `tools:write` too;
 * - a server of the awkward answers (metadata without S256, an impostor, an
 *   endpoint on plain http, metadata about another resource, a slow or
 *   endless answer, a redirect to another origin) and a second origin that
 *   counts what reaches it.
 */
import { generateKeyPairSync } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { OAuthMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import Provider, { errors } from "oidc-provider";

export async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export type AuthorizationServerWorld = {
  issuer: string;
  provider: Provider;
  /** Whether a refresh hands out a new refresh token (and retires the old one). */
  settings: { rotateRefreshTokens: boolean };
  /** Client ID Metadata Documents the server fetched, by URL. */
  fetchedDocuments: string[];
};

/**
 * oidc-provider for one resource (the MCP server's URL). `documents` stands
 * for the gateway's origin: what it would serve at its Client ID Metadata
 * Document URLs (the route that serves them is not there yet), handed to the
 * server through its own `fetch` option.
 */
export async function startAuthorizationServer(listener: Server, resource: string, documents: Map<string, unknown>): Promise<AuthorizationServerWorld> {
  const issuer = await listening(listener);
  const settings = { rotateRefreshTokens: true };
  const fetchedDocuments: string[] = [];
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const provider = new Provider(issuer, {
    cookies: { keys: ["a cookie key for the oauth client tests"] },
    jwks: { keys: [{ ...signingKey, kid: "test", use: "sig", alg: "RS256" }] },
    // Every login is an account of that name (the development log-in page takes any).
    findAccount: (_context, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 3600, AuthorizationCode: 60, RefreshToken: 86_400 },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      clientIdMetadataDocument: { enabled: true, ack: "draft-02" },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_context, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget();
          return { scope: "tools:read tools:write", audience: resource, accessTokenFormat: "opaque", accessTokenTTL: 3600 };
        },
      },
    },
    // A refresh token for every client that asks for the grant type (no offline_access needed), rotated as the test says.
    issueRefreshToken: (_context, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: () => settings.rotateRefreshTokens,
    fetch: async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      const document = documents.get(url);
      if (document === undefined) return fetch(input, init);
      fetchedDocuments.push(url);
      return Response.json(document);
    },
  });
  listener.on("request", provider.callback());
  return { issuer, provider, settings, fetchedDocuments };
}

/** What the SDK's transport reads of a request: the bearer middleware's `auth`, the JSON body the app parsed. */
type McpRequest = IncomingMessage & { auth?: AuthInfo; body?: unknown };

/** The MCP server at `${origin}/mcp`, protected by `authorizationServer`. */
export async function startMcpServer(listener: Server, origin: string, authorizationServer: AuthorizationServerWorld): Promise<{ resource: string }> {
  const resource = `${origin}/mcp`;
  const metadata = OAuthMetadataSchema.parse(await (await fetch(`${authorizationServer.issuer}/.well-known/openid-configuration`)).json());
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const found = await authorizationServer.provider.AccessToken.find(token);
      if (found === undefined || found.isExpired) throw new InvalidTokenError("Unknown or expired token");
      return {
        token,
        clientId: found.clientId ?? "",
        scopes: (found.scope ?? "").split(" ").filter(Boolean),
        expiresAt: found.exp,
        resource: typeof found.aud === "string" ? new URL(found.aud) : undefined,
        extra: { accountId: found.accountId },
      };
    },
  };
  const app = createMcpExpressApp();
  app.use(mcpAuthMetadataRouter({ oauthMetadata: metadata, resourceServerUrl: new URL(resource), scopesSupported: ["tools:read", "tools:write"], resourceName: "Test tools" }));
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(resource));
  const bearer = (requiredScopes: string[]) => requireBearerAuth({ verifier, requiredScopes, resourceMetadataUrl, expectedResource: new URL(resource) });
  const serve = (request: McpRequest, response: ServerResponse) => {
    const server = new McpServer({ name: "oauth-test-tools", version: "1.0.0" });
    server.registerTool("whoami", { description: "Who the token acts for" }, () => ({
      content: [{ type: "text", text: String(request.auth?.extra?.accountId) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(request, response, request.body));
  };
  app.post("/mcp", bearer(["tools:read"]), serve);
  app.post("/mcp/admin", bearer(["tools:read", "tools:write"]), serve);
  listener.on("request", app);
  return { resource };
}

/** A jar of cookies, as a browser keeps them for one person (paths aside: every name here is distinct). */
type CookieJar = Map<string, string>;

function keepCookies(jar: CookieJar, response: Response): void {
  for (const cookie of response.headers.getSetCookie()) {
    const [pair, ...attributes] = cookie.split(";");
    const [name, ...value] = pair.split("=");
    const expired = attributes.some((attribute) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(attribute));
    if (expired) jar.delete(name.trim());
    else jar.set(name.trim(), value.join("="));
  }
}

const cookieHeader = (jar: CookieJar) => ({ cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") });

/**
 * Follows an authorization URL as `login`'s browser would, through the
 * authorization server's log-in and consent pages (or refusing at the first
 * page), up to the redirect to `redirectUri`, which is not followed: its
 * query is the callback's parameters.
 */
export async function authorizeAs(login: string, authorizationUrl: string, redirectUri: string, options: { jar?: CookieJar; refuse?: boolean } = {}): Promise<URLSearchParams> {
  const jar = options.jar ?? new Map<string, string>();
  let url = authorizationUrl;
  for (let step = 0; step < 16; step += 1) {
    if (url.startsWith(redirectUri)) return new URL(url).searchParams;
    const response = await fetch(url, { redirect: "manual", headers: cookieHeader(jar) });
    keepCookies(jar, response);
    const location = response.headers.get("location");
    if (location !== null) {
      url = new URL(location, url).href;
      continue;
    }
    const page = await response.text();
    if (response.status !== 200) throw new Error(`The authorization server answered ${response.status}: ${page.slice(0, 500)}`);
    const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1];
    const action = /<form[^>]* action="([^"]+)"/.exec(page)?.[1];
    if (prompt === undefined || action === undefined) throw new Error(`Not a log-in or consent page: ${page.slice(0, 500)}`);
    if (options.refuse) {
      url = new URL(`${new URL(action, url).pathname}/abort`, url).href;
      continue;
    }
    const form: Record<string, string> = prompt === "login" ? { prompt, login, password: "any password" } : { prompt };
    const submitted = await fetch(new URL(action, url), {
      method: "POST",
      redirect: "manual",
      headers: { ...cookieHeader(jar), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form),
    });
    keepCookies(jar, submitted);
    const next = submitted.headers.get("location");
    if (next === null) throw new Error(`The ${prompt} form answered ${submitted.status} without a redirect`);
    url = new URL(next, url).href;
  }
  throw new Error("The authorization did not come back to the callback");
}

/** The server of awkward answers, and a second origin that counts the requests that reach it. */
export async function startAwkwardServers(odd: Server, elsewhere: Server): Promise<{ origin: string; elsewhereOrigin: string; elsewhereHits: { count: number } }> {
  const elsewhereHits = { count: 0 };
  const elsewhereOrigin = await listening(elsewhere);
  elsewhere.on("request", (_request, response) => {
    elsewhereHits.count += 1;
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  const origin = await listening(odd);
  const json = (response: ServerResponse, value: unknown) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
  const serverMetadata = (issuer: string, extra: Record<string, unknown>) => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    response_types_supported: ["code"],
    ...extra,
  });
  odd.on("request", (request, response) => {
    const path = request.url ?? "/";
    const resourceOf = /^\/\.well-known\/oauth-protected-resource\/(plain|silent|impostor|insecure)-mcp$/.exec(path);
    if (resourceOf !== null) return json(response, { resource: `${origin}/${resourceOf[1]}-mcp`, authorization_servers: [`${origin}/${resourceOf[1]}`] });
    // Metadata about another server than the one it is served for.
    if (path === "/.well-known/oauth-protected-resource/other-mcp") return json(response, { resource: `${origin}/somewhere-else`, authorization_servers: [`${origin}/plain`] });
    if (path === "/.well-known/oauth-authorization-server/plain") return json(response, serverMetadata(`${origin}/plain`, { code_challenge_methods_supported: ["plain"] }));
    if (path === "/.well-known/oauth-authorization-server/silent") return json(response, serverMetadata(`${origin}/silent`, {}));
    // A document that speaks for another server than the one it was fetched for.
    if (path === "/.well-known/oauth-authorization-server/impostor")
      return json(response, serverMetadata("https://honest.example.com", { code_challenge_methods_supported: ["S256"] }));
    // An authorization endpoint on plain http: a person would be sent there unprotected.
    if (path === "/.well-known/oauth-authorization-server/insecure") {
      return json(response, { ...serverMetadata(`${origin}/insecure`, { code_challenge_methods_supported: ["S256"] }), authorization_endpoint: "http://as.example.com/authorize" });
    }
    if (path === "/slow-headers") return; // never answers
    if (path === "/slow-body") {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"issuer":');
      return; // never finishes
    }
    if (path === "/huge") {
      response.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent < 64 && !response.destroyed) {
          sent += 1;
          if (!response.write(chunk)) return void response.once("drain", more);
        }
        response.end();
      };
      return more();
    }
    if (path === "/redirect") return response.writeHead(302, { location: `${elsewhereOrigin}/target` }).end();
    response.writeHead(404).end();
  });
  return { origin, elsewhereOrigin, elsewhereHits };
}
