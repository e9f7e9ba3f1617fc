/**
 * The parts of the gateway's OAuth client that need no server, inside
 * workerd: the authorization URL (state, PKCE S256, resource, scopes), the
 * callback's checks in their order (state, iss, error, code), incremental
 * scopes from a 403, the Client ID Metadata Document, how the gateway is
 * registered, the token answer, and the bounds of the OAuth fetch (with the
 * fetch underneath replaced, so nothing leaves the test). The flows against
 * a real authorization server are in test/node/oauth-client.test.ts.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expect, it } from "vitest";
import { insufficientScope } from "../../src/accounts/insufficient-scope";
import { type AuthorizationServer, oauthFromEndpoints } from "../../src/accounts/oauth-discovery";
import { oauthFetch, oauthUrlProblem } from "../../src/accounts/oauth-fetch";
import { beginFlow, checkCallback, newState, type OAuthFlow } from "../../src/accounts/oauth-flow";
import { clientInformationOf, clientMetadataDocument, ConfiguredClient, gatewayOAuthUrls, registerGateway } from "../../src/accounts/oauth-registration";
import { tokenSetOf } from "../../src/accounts/oauth-tokens";
import { bytesToBase64Url } from "../../src/base64";

const dev = { allowPrivateHosts: true };
const production = { allowPrivateHosts: false };
const issuer = "https://as.example.com";

const server: AuthorizationServer = {
  issuer,
  authorizationEndpoint: `${issuer}/authorize`,
  tokenEndpoint: `${issuer}/token`,
  clientIdMetadataDocumentSupported: false,
  issParameterSupported: true,
};

const registration = { method: "metadata_document" as const, clientId: "https://gateway.example.com/oauth/client-metadata.json" };
const redirectUri = "https://gateway.example.com/oauth/callback";

async function began(overrides: Partial<Parameters<typeof beginFlow>[0]> = {}) {
  const result = await beginFlow({ server, registration, redirectUri, scopes: ["files:read", "files:write"], resource: "https://mcp.example.com/mcp", ...overrides });
  if (!result.ok) throw new Error(result.error.message);
  return { url: new URL(result.value.authorizationUrl), flow: result.value.flow };
}

async function s256(verifier: string): Promise<string> {
  return bytesToBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

describe("beginFlow", () => {
  it("makes an authorization URL with a 32-byte state, PKCE S256, the resource and the scopes", async () => {
    const { url, flow } = await began();
    expect(url.origin + url.pathname).toBe(server.authorizationEndpoint);
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("client_id")).toBe(registration.clientId);
    expect(url.searchParams.get("redirect_uri")).toBe(redirectUri);
    expect(url.searchParams.get("state")).toBe(flow.state);
    expect(flow.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(flow.codeVerifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    expect(url.searchParams.get("code_challenge")).toBe(await s256(flow.codeVerifier));
    expect(url.searchParams.get("resource")).toBe("https://mcp.example.com/mcp");
    expect(url.searchParams.get("scope")).toBe("files:read files:write");
    expect(flow).toMatchObject({ redirectUri, scopes: ["files:read", "files:write"], resource: "https://mcp.example.com/mcp", server, registration });
  });

  it("gives every flow its own state and verifier", async () => {
    const [first, second] = await Promise.all([began(), began()]);
    expect(first.flow.state).not.toBe(second.flow.state);
    expect(first.flow.codeVerifier).not.toBe(second.flow.codeVerifier);
    const states = new Set(Array.from({ length: 200 }, () => newState()));
    expect(states.size).toBe(200);
  });

  it("leaves out scope and resource when there are none", async () => {
    const { url } = await began({ scopes: [], resource: undefined });
    expect(url.searchParams.has("scope")).toBe(false);
    expect(url.searchParams.has("resource")).toBe(false);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
  });
});

describe("checkCallback: state, then iss, then error, then code", () => {
  const flowFor = (overrides: Partial<AuthorizationServer> = {}): OAuthFlow => ({
    state: "the-state",
    codeVerifier: "v".repeat(43),
    redirectUri,
    scopes: [],
    server: { ...server, ...overrides },
    registration,
  });
  const params = (entries: [string, string][]) => new URLSearchParams(entries);
  const codeOf = async (entries: [string, string][], flow = flowFor()) => {
    const result = await checkCallback(params(entries), flow);
    return result.ok ? result.value.code : result.error.code;
  };

  it("accepts the flow's state with the issuer's iss and a code", async () => {
    expect(
      await codeOf([
        ["state", "the-state"],
        ["iss", issuer],
        ["code", "abc"],
      ]),
    ).toBe("abc");
  });

  it.each([
    ["another state", [["state", "the-state-"]]],
    ["no state", []],
    [
      "two states",
      [
        ["state", "the-state"],
        ["state", "the-state"],
      ],
    ],
    ["an empty state", [["state", ""]]],
  ] as [string, [string, string][]][])("refuses %s", async (_name, state) => {
    expect(await codeOf([...state, ["iss", issuer], ["code", "abc"]])).toBe("state_mismatch");
  });

  it("checks the state before anything else, an error included", async () => {
    expect(
      await codeOf([
        ["state", "wrong"],
        ["iss", "https://evil.example.com"],
        ["error", "access_denied"],
      ]),
    ).toBe("state_mismatch");
  });

  it.each([
    ["another issuer", "https://evil.example.com"],
    ["the issuer with a trailing slash (no normalisation)", `${issuer}/`],
    ["the issuer in capitals (no case folding)", "https://AS.example.com"],
    ["the issuer with its default port (no port elision)", "https://as.example.com:443"],
  ])("refuses the iss of %s", async (_name, iss) => {
    expect(
      await codeOf([
        ["state", "the-state"],
        ["iss", iss],
        ["code", "abc"],
      ]),
    ).toBe("issuer_mismatch");
  });

  it("refuses a missing iss when the server says it sends one, accepts it when the server does not", async () => {
    const entries: [string, string][] = [
      ["state", "the-state"],
      ["code", "abc"],
    ];
    expect(await codeOf(entries)).toBe("issuer_mismatch");
    expect(await codeOf(entries, flowFor({ issParameterSupported: false }))).toBe("abc");
  });

  it("checks a present iss even when the server does not say it sends one", async () => {
    const flow = flowFor({ issParameterSupported: false });
    expect(
      await codeOf(
        [
          ["state", "the-state"],
          ["iss", "https://evil.example.com"],
          ["code", "abc"],
        ],
        flow,
      ),
    ).toBe("issuer_mismatch");
  });

  it("refuses an iss it has no issuer to check against (configured endpoints without one)", async () => {
    const flow = flowFor({ issuer: undefined, issParameterSupported: false });
    const result = await checkCallback(
      params([
        ["state", "the-state"],
        ["iss", issuer],
        ["code", "abc"],
      ]),
      flow,
    );
    expect(result).toMatchObject({ ok: false, error: { code: "issuer_mismatch", message: expect.stringContaining("add the issuer") } });
  });

  it("does not act on an error from another issuer", async () => {
    expect(
      await codeOf([
        ["state", "the-state"],
        ["iss", "https://evil.example.com"],
        ["error", "access_denied"],
      ]),
    ).toBe("issuer_mismatch");
  });

  it("turns access_denied into a refusal, and other errors into a clear, cleaned message", async () => {
    expect(
      await codeOf([
        ["state", "the-state"],
        ["iss", issuer],
        ["error", "access_denied"],
        ["code", "abc"],
      ]),
    ).toBe("authorization_denied");
    const result = await checkCallback(
      params([
        ["state", "the-state"],
        ["iss", issuer],
        ["error", "invalid_scope"],
        ["error_description", `bad\u0000scope\n${"x".repeat(1000)}`],
      ]),
      flowFor(),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("authorization_error");
    expect(result.error.message).toContain('"invalid_scope"');
    expect(result.error.message).not.toMatch(/[\u0000-\u001f]/);
    expect(result.error.message.length).toBeLessThan(400);
  });

  it.each([
    ["no code", []],
    ["an empty code", [["code", ""]]],
    [
      "two codes",
      [
        ["code", "a"],
        ["code", "b"],
      ],
    ],
  ] as [string, [string, string][]][])("refuses %s", async (_name, code) => {
    expect(await codeOf([["state", "the-state"], ["iss", issuer], ...code])).toBe("missing_code");
  });
});

describe("insufficientScope", () => {
  const answer = (status: number, header?: string) => new Response(null, { status, headers: header === undefined ? {} : { "www-authenticate": header } });

  it("reads the scopes a 403 insufficient_scope challenge names, and asks for them with those held", () => {
    const challenge = insufficientScope(
      answer(403, 'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"'),
      ["files:read", "profile"],
    );
    expect(challenge).toEqual({ challenged: ["files:read", "files:write"], missing: ["files:write"], request: ["files:read", "profile", "files:write"] });
  });

  it("adds nothing when the challenge names no scope", () => {
    expect(insufficientScope(answer(403, 'Bearer error="insufficient_scope"'), ["a"])).toEqual({ challenged: [], missing: [], request: ["a"] });
  });

  it.each([
    ["a 401", answer(401, 'Bearer error="insufficient_scope", scope="x"')],
    ["a 403 for a bad token", answer(403, 'Bearer error="invalid_token", scope="x"')],
    ["a 403 without a challenge", answer(403)],
    ["a 403 with another scheme", answer(403, 'Basic realm="x"')],
  ])("ignores %s", (_name, response) => {
    expect(insufficientScope(response, [])).toBeUndefined();
  });
});

describe("the gateway's Client ID Metadata Document", () => {
  it("is served at its own client_id, with the callback, as a public client", () => {
    const document = clientMetadataDocument("https://gateway.example.com/any/path?x=1");
    expect(document).toEqual({
      client_id: "https://gateway.example.com/oauth/client-metadata.json",
      client_name: "Switchboard",
      client_uri: "https://gateway.example.com",
      redirect_uris: ["https://gateway.example.com/oauth/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    expect(gatewayOAuthUrls("https://gateway.example.com").clientMetadataUrl).toBe(document.client_id);
  });
});

describe("registerGateway: configured, then a metadata document, then dynamic registration", () => {
  const never: FetchLike = () => Promise.reject(new Error("no request expected"));
  const http = { policy: dev, fetch: never };

  it("uses a configured client first, even where metadata documents are taken", async () => {
    const configured = ConfiguredClient.parse({ clientId: "switchboard-app", clientSecret: "${env.PROVIDER_CLIENT_SECRET}" });
    const result = await registerGateway({ server: { ...server, clientIdMetadataDocumentSupported: true }, gatewayOrigin: "https://gateway.example.com", configured, http });
    expect(result).toEqual({ ok: true, value: { method: "configured", clientId: "switchboard-app", clientSecretName: "PROVIDER_CLIENT_SECRET" } });
  });

  it("uses the metadata document's URL where the server takes them and the gateway is on https", async () => {
    const result = await registerGateway({ server: { ...server, clientIdMetadataDocumentSupported: true }, gatewayOrigin: "https://gateway.example.com", http });
    expect(result).toEqual({ ok: true, value: { method: "metadata_document", clientId: "https://gateway.example.com/oauth/client-metadata.json" } });
  });

  it("says what to configure when there is no way to register", async () => {
    const plainHttp = await registerGateway({ server: { ...server, clientIdMetadataDocumentSupported: true }, gatewayOrigin: "http://localhost:8787", http });
    expect(plainHttp).toMatchObject({ ok: false, error: { code: "registration_failed", message: expect.stringContaining("configure its client id") } });
    const neither = await registerGateway({ server, gatewayOrigin: "https://gateway.example.com", http });
    expect(neither).toMatchObject({ ok: false, error: { code: "registration_failed", message: expect.stringContaining("https://gateway.example.com/oauth/callback") } });
  });

  it("refuses a client secret written out, or one of the gateway's own keys", () => {
    expect(ConfiguredClient.safeParse({ clientId: "x", clientSecret: "s3cr3t" }).success).toBe(false);
    expect(ConfiguredClient.safeParse({ clientId: "x", clientSecret: "${env.GATEWAY_SECRET_KEY}" }).success).toBe(false);
    expect(ConfiguredClient.safeParse({ clientId: "x", clientSecret: "${env.A} ${env.B}" }).success).toBe(false);
  });

  it("reads a configured secret at use, and refuses one that is not set", () => {
    const configured = { method: "configured" as const, clientId: "app", clientSecretName: "PROVIDER_CLIENT_SECRET" };
    expect(clientInformationOf(configured, { PROVIDER_CLIENT_SECRET: "value" })).toEqual({ ok: true, value: { client_id: "app", client_secret: "value" } });
    expect(clientInformationOf(configured, {})).toMatchObject({ ok: false, error: { code: "registration_failed", message: expect.stringContaining("not set") } });
  });

  it("refuses a dynamic registration whose secret has expired", () => {
    const dynamic = { method: "dynamic" as const, clientId: "c", redirectUri, clientSecret: "s", clientSecretExpiresAt: 1_000 };
    expect(clientInformationOf(dynamic, {}, 2_000_000)).toMatchObject({ ok: false, error: { code: "registration_failed" } });
    expect(clientInformationOf({ ...dynamic, clientSecretExpiresAt: 0 }, {}, 2_000_000)).toMatchObject({ ok: true });
  });
});

describe("configured endpoints", () => {
  it("are checked by the URL policy in force", () => {
    const endpoints = { authorizationUrl: "http://127.0.0.1:9000/authorize", tokenUrl: "http://127.0.0.1:9000/token" };
    expect(oauthFromEndpoints(endpoints, { http: { policy: dev } })).toMatchObject({
      ok: true,
      value: { server: { tokenEndpoint: endpoints.tokenUrl, issParameterSupported: false } },
    });
    expect(oauthFromEndpoints(endpoints, { http: { policy: production } })).toMatchObject({ ok: false, error: { code: "discovery_failed" } });
  });
});

describe("tokenSetOf", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");

  it("keeps a bearer token with its expiry, and the scopes asked for when the answer restates none", () => {
    const result = tokenSetOf({ access_token: "at", token_type: "bearer", expires_in: 3600, refresh_token: "rt" }, { scopes: ["a"], now });
    expect(result).toEqual({ ok: true, value: { accessToken: "at", tokenType: "bearer", refreshToken: "rt", expiresAt: "2026-01-01T01:00:00.000Z", scopes: ["a"] } });
  });

  it("keeps the old refresh token when the answer has none, and takes a rotated one", () => {
    const kept = tokenSetOf({ access_token: "at2", token_type: "Bearer", scope: "a b" }, { scopes: ["a"], previousRefreshToken: "old", now });
    expect(kept).toMatchObject({ ok: true, value: { refreshToken: "old", scopes: ["a", "b"] } });
    const rotated = tokenSetOf({ access_token: "at2", token_type: "Bearer", refresh_token: "new" }, { scopes: ["a"], previousRefreshToken: "old", now });
    expect(rotated).toMatchObject({ ok: true, value: { refreshToken: "new" } });
  });

  it("refuses a token that is not a bearer token, without saying the token", () => {
    const result = tokenSetOf({ access_token: "secret-token", token_type: "DPoP" }, { scopes: [], now });
    expect(result).toMatchObject({ ok: false, error: { code: "token_request_failed" } });
    expect(JSON.stringify(result)).not.toContain("secret-token");
  });
});

describe("oauthUrlProblem", () => {
  it.each(["https://as.example.com/token", "http://localhost:9000/token", "http://127.0.0.1:9000/token", "http://[::1]:9000/token", "http://auth.localhost/token"])(
    "lets %s through where private hosts are allowed",
    (url) => {
      expect(oauthUrlProblem(url, dev)).toBeUndefined();
    },
  );

  it.each(["http://as.example.com/token", "http://10.0.0.5/token", "http://192.168.1.2/token"])("wants https for %s, even in development", (url) => {
    expect(oauthUrlProblem(url, dev)).toMatch(/https/);
  });

  it.each(["http://localhost:9000/token", "https://127.0.0.1/token", "https://10.0.0.5/token", "https://[fd00::1]/token"])(
    "refuses %s where private hosts are not allowed",
    (url) => {
      expect(oauthUrlProblem(url, production)).toBeDefined();
    },
  );

  it.each(["ftp://as.example.com/", "https://user:pass@as.example.com/", "https://as.example.com/token#x", "not a url"])("refuses %s", (url) => {
    expect(oauthUrlProblem(url, dev)).toBeDefined();
  });
});

describe("oauthFetch, with the fetch underneath replaced", () => {
  type Sent = { url: string; init: RequestInit | undefined };
  const recording = (answer: (url: string) => Response | Promise<Response>) => {
    const sent: Sent[] = [];
    const send: FetchLike = async (url, init) => {
      sent.push({ url: String(url), init });
      return answer(String(url));
    };
    return { sent, send };
  };

  it("refuses a URL the policy refuses without sending anything", async () => {
    const { sent, send } = recording(() => new Response("{}"));
    await expect(oauthFetch({ policy: dev, send })("http://as.example.com/token")).rejects.toThrow(/https/);
    await expect(oauthFetch({ policy: production, send })("https://127.0.0.1/token")).rejects.toThrow(/private/);
    expect(sent).toEqual([]);
  });

  it("sends only the headers it is given, and never follows a redirect", async () => {
    const { sent, send } = recording(() => new Response(null, { status: 302, headers: { location: "https://elsewhere.example.com/" } }));
    const response = await oauthFetch({ policy: dev, send })("https://as.example.com/token", { method: "POST", headers: { accept: "application/json" }, body: "x=1" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("https://elsewhere.example.com/");
    expect(sent).toHaveLength(1);
    expect(sent[0].init?.redirect).toBe("manual");
    expect([...new Headers(sent[0].init?.headers).keys()]).toEqual(["accept"]);
  });

  it("refuses a body past its bound and hands on one within it", async () => {
    const { send } = recording(() => new Response("x".repeat(2_000)));
    await expect(oauthFetch({ policy: dev, send, maxBytes: 1_000 })("https://as.example.com/")).rejects.toThrow(/larger than 1000 bytes/);
    expect(await (await oauthFetch({ policy: dev, send, maxBytes: 2_000 })("https://as.example.com/")).text()).toHaveLength(2_000);
  });

  it("gives up on an answer that does not come within its time bound", async () => {
    const send: FetchLike = (_url, init) => new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
    await expect(oauthFetch({ policy: dev, send, timeoutMs: 50 })("https://as.example.com/")).rejects.toThrow(/timed out after 50ms/);
  });
});
