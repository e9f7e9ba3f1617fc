/**
 * The gateway's OAuth routes, driven as a browser and an authorization
 * server would: the start link (one-time token, the cookie and its
 * attributes), the callback's happy path (the code exchanged at the fake
 * token endpoint `https://auth.test/token`, the tokens stored for the flow's
 * person, a page that shows none of them), the callback's bad-input family
 * (each with its status, and the flow consumed only where it must be), and
 * the Client ID Metadata Document.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConnectionStore } from "../../src/accounts/connection-store";
import { tokenCipherFor } from "../../src/accounts/token-cipher";
import { getDatabase } from "../../src/db/client";
import { Browser } from "../support/accounts";
import { readErrorEnvelope } from "../support/error-envelope";
import { beginTestFlow, type TestFlow, testIssuer, testServer } from "./oauth-flow-fixture";

const gateway = "http://gateway.test";

/** A flow begun, its start link opened in `browser`: the state the authorization URL carries. */
async function opened(browser = new Browser(), flow?: TestFlow) {
  const began = flow ?? (await beginTestFlow());
  const started = await browser.get(began.startUrl);
  expect(started.status).toBe(302);
  const authorizationUrl = new URL(started.headers.get("location") ?? "");
  return { began, browser, started, authorizationUrl, state: authorizationUrl.searchParams.get("state") ?? "" };
}

const callbackUrl = (params: Record<string, string>) => `${gateway}/oauth/callback?${new URLSearchParams(params)}`;

async function flowExists(flowId: string): Promise<boolean> {
  return (await env.DB.prepare("SELECT id FROM oauth_flows WHERE id = ?").bind(flowId).first()) !== null;
}

const connections = async () => new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));

async function tokenRequests(): Promise<{ body: string }[]> {
  return (await (await fetch("http://recorded.test/auth-token")).json()) as { body: string }[];
}

describe("GET /oauth/start/{flowId}", () => {
  it("sends the browser to the authorization server once, with a flow cookie: HttpOnly, Secure, SameSite=Lax, Path=/oauth", async () => {
    const { began, started, authorizationUrl, state } = await opened();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${testIssuer}/authorize`);
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorizationUrl.searchParams.get("redirect_uri")).toBe(`${gateway}/oauth/callback`);
    expect(started.headers.get("cache-control")).toBe("no-store");
    expect(started.headers.get("referrer-policy")).toBe("no-referrer");
    const [cookie, ...others] = started.headers.getSetCookie();
    expect(others).toEqual([]);
    expect(cookie).toMatch(new RegExp(`^__Secure-switchboard-oauth-${began.flowId}=[A-Za-z0-9_-]{43};`));
    const attributes = cookie.split(";").map((part) => part.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(["httponly", "secure", "samesite=lax", "path=/oauth"]));
    const maxAge = Number(attributes.find((part) => part.startsWith("max-age="))?.slice("max-age=".length));
    expect(maxAge).toBeGreaterThan(14 * 60);
    expect(maxAge).toBeLessThanOrEqual(15 * 60);

    // The same link again (another browser, or this one): refused, and the first browser's binding stands.
    const again = await new Browser().get(began.startUrl, { accept: "application/json" });
    expect(again.status).toBe(403);
    await readErrorEnvelope(again, "invalid_link");
    expect(again.headers.getSetCookie()).toEqual([]);
  });

  it("on a plain-http localhost the cookie is not Secure (browsers would drop it)", async () => {
    const began = await beginTestFlow();
    const local = began.startUrl.replace(gateway, "http://localhost:8787");
    const started = await exports.default.fetch(new Request(local, { redirect: "manual" }));
    expect(started.status).toBe(302);
    const [cookie] = started.headers.getSetCookie();
    expect(cookie).toMatch(new RegExp(`^switchboard-oauth-${began.flowId}=`));
    expect(cookie.toLowerCase()).not.toContain("secure");
    expect(cookie.toLowerCase()).toContain("httponly");
  });

  it("a wrong token, an unknown flow, a missing token: 403, 404, 400", async () => {
    const began = await beginTestFlow();
    const wrong = new URL(began.startUrl);
    wrong.searchParams.set("t", "x".repeat(43));
    const browser = new Browser();
    expect((await browser.get(wrong.href)).status).toBe(403);
    expect((await browser.get(`${gateway}/oauth/start/flw_unknown?t=abc`)).status).toBe(404);
    const missing = await browser.get(`${gateway}/oauth/start/${began.flowId}`, { accept: "application/json" });
    expect(missing.status).toBe(400);
    await readErrorEnvelope(missing, "validation_error");
    // None of these spent the token.
    expect((await browser.get(began.startUrl)).status).toBe(302);
  });
});

describe("GET /oauth/callback", () => {
  it("exchanges the code once, stores the tokens for the flow's person, and shows a page without them", async () => {
    const { began, browser, state } = await opened();
    const before = (await tokenRequests()).length;
    const answer = await browser.get(callbackUrl({ code: "good-code", state, iss: testIssuer }));
    const page = await answer.text();
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toContain("text/html");
    expect(page).toContain("Connected Files &lt;Test&gt;. You can close this tab.");
    expect(page).not.toContain("<Test>");

    const stored = await (await connections()).read({ entityId: began.entityId, connectionKey: began.connectionKey });
    if (!stored.ok) throw new Error(stored.message);
    expect(stored.connection).toMatchObject({ issuer: testIssuer, clientId: `${gateway}/oauth/client-metadata.json`, scopes: ["files:read"] });
    for (const secret of [stored.connection.tokens.accessToken, stored.connection.tokens.refreshToken ?? "", "good-code", state]) {
      expect(page).not.toContain(secret);
      expect(JSON.stringify([...answer.headers])).not.toContain(secret);
    }
    // The token request carried the verifier, the resource and the redirect URI; it was made once.
    const requests = (await tokenRequests()).slice(before);
    expect(requests).toHaveLength(1);
    const form = new URLSearchParams(requests[0].body);
    expect(form.get("code_verifier")).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    expect(form.get("resource")).toBe(began.connectionKey);
    expect(form.get("redirect_uri")).toBe(`${gateway}/oauth/callback`);
    // The flow is gone and its cookie cleared.
    expect(await flowExists(began.flowId)).toBe(false);
    expect(browser.cookies.size).toBe(0);

    // The same callback again: the flow was used.
    browser.cookies.set(`__Secure-switchboard-oauth-${began.flowId}`, "replayed");
    const replayed = await browser.get(callbackUrl({ code: "good-code", state, iss: testIssuer }), { accept: "application/json" });
    expect(replayed.status).toBe(409);
    await readErrorEnvelope(replayed, "flow_used");
    expect((await tokenRequests()).length - before).toBe(1);
  });

  it("answers JSON with Accept: application/json", async () => {
    const { began, browser, state } = await opened();
    const answer = await browser.get(callbackUrl({ code: "good-code", state, iss: testIssuer }), { accept: "application/json" });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ connected: true, entityId: began.entityId, connectionKey: began.connectionKey });
  });

  it("twenty concurrent callbacks from the right browser: one connects, nineteen find the flow used, one token request", async () => {
    const { browser, state } = await opened();
    const before = (await tokenRequests()).length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => browser.get(callbackUrl({ code: "good-code", state, iss: testIssuer }), { accept: "application/json" })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array.from({ length: 19 }, () => 409)]);
    expect((await tokenRequests()).length - before).toBe(1);
  });

  it("another browser (no cookie, or a wrong one) gets a 403 page and consumes nothing", async () => {
    const { began, browser, state } = await opened();
    const stranger = new Browser();
    const noCookie = await stranger.get(callbackUrl({ code: "good-code", state, iss: testIssuer }));
    expect(noCookie.status).toBe(403);
    expect(noCookie.headers.get("content-type")).toContain("text/html");
    expect(await noCookie.text()).toContain("started in another browser");
    stranger.cookies.set(`__Secure-switchboard-oauth-${began.flowId}`, "y".repeat(43));
    const wrongCookie = await stranger.get(callbackUrl({ code: "good-code", state, iss: testIssuer }), { accept: "application/json" });
    expect(wrongCookie.status).toBe(403);
    await readErrorEnvelope(wrongCookie, "wrong_browser");
    expect(await flowExists(began.flowId)).toBe(true);
    // The person's own browser still completes it.
    expect((await browser.get(callbackUrl({ code: "good-code", state, iss: testIssuer }))).status).toBe(200);
  });

  it.each([
    { name: "a wrong iss", params: (state: string) => ({ code: "good-code", state, iss: "https://evil.example.com" }), status: 400, code: "issuer_mismatch", consumed: false },
    { name: "no iss from a server that says it sends one", params: (state: string) => ({ code: "good-code", state }), status: 400, code: "issuer_mismatch", consumed: false },
    { name: "no code and no error", params: (state: string) => ({ state, iss: testIssuer }), status: 400, code: "missing_code", consumed: false },
    { name: "an empty code", params: (state: string) => ({ state, iss: testIssuer, code: "" }), status: 400, code: "validation_error", consumed: false },
    { name: "error=access_denied", params: (state: string) => ({ state, iss: testIssuer, error: "access_denied" }), status: 403, code: "authorization_denied", consumed: true },
    { name: "another error", params: (state: string) => ({ state, iss: testIssuer, error: "server_error" }), status: 400, code: "authorization_error", consumed: true },
    { name: "an oversize code", params: (state: string) => ({ state, iss: testIssuer, code: "c".repeat(4097) }), status: 400, code: "validation_error", consumed: false },
    { name: "an oversize state", params: () => ({ state: "s".repeat(513), iss: testIssuer, code: "good-code" }), status: 400, code: "validation_error", consumed: false },
    { name: "an unknown state", params: () => ({ state: "s".repeat(43), iss: testIssuer, code: "good-code" }), status: 409, code: "flow_used", consumed: false },
    {
      name: "a code the token endpoint refuses",
      params: (state: string) => ({ state, iss: testIssuer, code: "bad-code" }),
      status: 502,
      code: "token_request_failed",
      consumed: true,
    },
  ])("$name: $status $code", async ({ params, status, code, consumed }) => {
    const { began, browser, state } = await opened();
    const answer = await browser.get(callbackUrl(params(state)), { accept: "application/json" });
    expect(answer.status).toBe(status);
    const body = await readErrorEnvelope(answer, code);
    expect(body.error.message).not.toContain(state);
    expect(await flowExists(began.flowId)).toBe(!consumed);
    // Nothing was stored for the person.
    expect((await (await connections()).read({ entityId: began.entityId, connectionKey: began.connectionKey })).ok).toBe(false);
  });

  it("a repeated state or code is refused before anything is looked up", async () => {
    const { began, browser, state } = await opened();
    const repeated = `${gateway}/oauth/callback?state=${state}&state=${state}&code=good-code&iss=${encodeURIComponent(testIssuer)}`;
    const answer = await browser.get(repeated, { accept: "application/json" });
    expect(answer.status).toBe(400);
    await readErrorEnvelope(answer, "validation_error");
    const twoCodes = `${gateway}/oauth/callback?state=${state}&code=a&code=b&iss=${encodeURIComponent(testIssuer)}`;
    expect((await browser.get(twoCodes)).status).toBe(400);
    expect(await flowExists(began.flowId)).toBe(true);
  });

  it("a query over 8 KiB is refused (400), nothing consumed", async () => {
    const { began, browser, state } = await opened();
    const answer = await browser.get(`${callbackUrl({ state, iss: testIssuer, code: "good-code" })}&extra=${"x".repeat(9_000)}`, { accept: "application/json" });
    expect(answer.status).toBe(400);
    await readErrorEnvelope(answer, "validation_error");
    expect(await flowExists(began.flowId)).toBe(true);
  });

  it("an expired flow: 410, and it is deleted", async () => {
    const began = await beginTestFlow({ lifetimeMs: 60_000, now: Date.now() - 59_000 });
    const { browser, state } = await opened(new Browser(), began);
    await env.DB.prepare("UPDATE oauth_flows SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1_000).toISOString(), began.flowId)
      .run();
    const answer = await browser.get(callbackUrl({ state, iss: testIssuer, code: "good-code" }), { accept: "application/json" });
    expect(answer.status).toBe(410);
    await readErrorEnvelope(answer, "flow_expired");
    expect(await flowExists(began.flowId)).toBe(false);
  });

  it("a token endpoint that is down: 502, the flow used", async () => {
    const { began, browser, state } = await opened(new Browser(), await beginTestFlow({ server: { ...testServer, tokenEndpoint: `${testIssuer}/token-down` } }));
    const answer = await browser.get(callbackUrl({ state, iss: testIssuer, code: "good-code" }));
    expect(answer.status).toBe(502);
    expect(answer.headers.get("content-type")).toContain("text/html");
    const page = await answer.text();
    expect(page).toContain("Your account was not connected");
    expect(page).not.toContain("good-code");
    expect(await flowExists(began.flowId)).toBe(false);
  });

  it("escapes what it shows from the authorization server", async () => {
    const { browser, state } = await opened();
    const answer = await browser.get(callbackUrl({ state, iss: testIssuer, error: "server_error", error_description: "<script>alert(1)</script>" }));
    expect(answer.status).toBe(400);
    const page = await answer.text();
    expect(page).not.toContain("<script>");
    expect(page).toContain("&lt;script&gt;");
  });
});

describe("GET /oauth/client-metadata.json", () => {
  it("serves the gateway's Client ID Metadata Document, public and cacheable", async () => {
    const answer = await exports.default.fetch(new Request(`${gateway}/oauth/client-metadata.json`));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toContain("application/json");
    expect(answer.headers.get("cache-control")).toContain("public");
    expect(await answer.json()).toEqual({
      client_id: `${gateway}/oauth/client-metadata.json`,
      client_name: "Switchboard",
      client_uri: gateway,
      redirect_uris: [`${gateway}/oauth/callback`],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
  });
});
