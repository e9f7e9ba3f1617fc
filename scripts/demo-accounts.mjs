/**
 * The demo's connected account, on this machine: a small OAuth 2.1
 * authorization server (oidc-provider, with its development log-in and
 * consent pages, dynamic client registration and resource indicators) and
 * an MCP server, "Demo notes", that takes only its bearer tokens (the MCP
 * SDK's `requireBearerAuth`, with the protected resource metadata clients
 * discover it from). The demo agent's `notes` tools act as the person who
 * asks, so the first call puts a "connect your account" card in the demo
 * space; signing in there (any name, any password) connects it.
 *
 * Both listen on loopback ports chosen at start. Their state is in memory:
 * after a restart of `npm run dev` the tokens the gateway kept are unknown
 * to the new server, which refuses them, and the card asks again.
 *
 * Started by `npm run dev` (scripts/dev.mjs) before the demo is seeded;
 * `SWITCHBOARD_DEMO_ACCOUNTS=off` leaves it out.
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";

/** The scopes the demo notes server knows; `whoami` needs the first. */
export const demoNotesScopes = ["notes:read", "notes:write"];

function listening(server) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}`));
  });
}

/** Starts both servers; `close()` stops them. Resolves to where they are, and the list of tool calls the notes server ran. */
export async function startDemoAccounts() {
  const [
    { default: Provider, errors },
    { requireBearerAuth },
    { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter },
    { createMcpExpressApp },
    { McpServer },
    { StreamableHTTPServerTransport },
  ] = await Promise.all([
    import("oidc-provider"),
    import("@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js"),
    import("@modelcontextprotocol/sdk/server/auth/router.js"),
    import("@modelcontextprotocol/sdk/server/express.js"),
    import("@modelcontextprotocol/sdk/server/mcp.js"),
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
  ]);
  const { InvalidTokenError } = await import("@modelcontextprotocol/sdk/server/auth/errors.js");
  const authListener = createServer();
  const notesListener = createServer();
  const issuer = await listening(authListener);
  const notesOrigin = await listening(notesListener);
  const resource = `${notesOrigin}/mcp`;
  /** Every tool call the notes server ran, and for whom (scripts count them: nothing doubled). */
  const calls = [];

  // oidc-provider warns, rightly, that its in-memory store and development pages are for development: that is this demo.
  const warn = console.warn;
  console.warn = (...parts) => {
    if (!String(parts[0]).includes("oidc-provider WARNING")) warn(...parts);
  };
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const provider = new Provider(issuer, {
    cookies: { keys: [crypto.randomUUID()] },
    jwks: { keys: [{ ...signingKey, kid: "demo", use: "sig", alg: "RS256" }] },
    // Whoever signs in is an account of that name (the development log-in page takes any password).
    findAccount: (_context, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
    ttl: { Interaction: 600, Session: 3600, Grant: 86_400, AccessToken: 3600, AuthorizationCode: 60, RefreshToken: 86_400 },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_context, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget();
          return { scope: demoNotesScopes.join(" "), audience: resource, accessTokenFormat: "opaque", accessTokenTTL: 3600 };
        },
      },
    },
    issueRefreshToken: (_context, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
  });
  console.warn = warn;
  authListener.on("request", provider.callback());

  const metadata = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
  const verifier = {
    async verifyAccessToken(token) {
      const found = await provider.AccessToken.find(token);
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
  app.use(mcpAuthMetadataRouter({ oauthMetadata: metadata, resourceServerUrl: new URL(resource), scopesSupported: demoNotesScopes, resourceName: "Demo notes" }));
  const bearer = requireBearerAuth({ verifier, requiredScopes: ["notes:read"], resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(resource)) });
  app.post("/mcp", bearer, (request, response) => {
    const server = new McpServer({ name: "demo-notes", version: "1.0.0" });
    server.registerTool("whoami", { description: "Says which Demo notes account the call acts for" }, () => {
      calls.push({ tool: "whoami", accountId: String(request.auth?.extra?.accountId) });
      return { content: [{ type: "text", text: `You are signed in to Demo notes as ${request.auth?.extra?.accountId}.` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(request, response, request.body));
  });
  notesListener.on("request", app);

  const close = async () => {
    for (const server of [authListener, notesListener]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
    }
  };
  return { issuer, notesUrl: resource, calls, close };
}
