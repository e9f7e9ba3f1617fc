/**
 * The auth matrix (docs/api.md, "Auth details") over the routes of
 * docs/api-reference.md: every route × every kind of caller → the expected
 * status. Missing or invalid credentials are a 401, valid but not allowed a
 * 403, allowed a 2xx (101 for a WebSocket). Every refusal carries the error
 * envelope and changes nothing.
 */
import { env, exports } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { createAgent } from "./support/agents";
import { createHuman, createSpace, memberHeaders, tokenFor } from "./support/api";
import { countRows, spaceSeq } from "./support/database-state";
import { readErrorEnvelope } from "./support/error-envelope";
import { minimalAgentConfig } from "./support/minimal-agent-config";

type Fixture = { member: string; otherMember: string; outsider: string; newcomer: string; spaceId: string; agentId: string };

/** Fresh ids for every test: two members of a space, an outsider, an entity to add, and an agent. */
async function createFixture(): Promise<Fixture> {
  const [member, otherMember, outsider, newcomer] = await Promise.all(["Member", "Other member", "Outsider", "Newcomer"].map((name) => createHuman(name)));
  const spaceId = await createSpace([member, otherMember]);
  const { id: agentId } = await createAgent(minimalAgentConfig);
  return { member, otherMember, outsider, newcomer, spaceId, agentId };
}

/** Credentials as a client holds them; header or query placement is the route's business. */
type Credentials = { secretKey?: string; publicKey?: string; token?: string };

/** Who the gateway should take the caller for. */
type Caller = "invalid" | "outsider" | "member" | "secret";

type CredentialRow = { credential: string; caller: Caller; make: (fixture: Fixture) => Promise<Credentials> };

const publicKey = env.GATEWAY_PUBLIC_KEY;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const base64Url = (value: object) => btoa(JSON.stringify(value)).replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_");

const credentialRows: CredentialRow[] = [
  { credential: "no auth", caller: "invalid", make: async () => ({}) },
  { credential: "a wrong secret key", caller: "invalid", make: async () => ({ secretKey: "not-the-secret-key" }) },
  { credential: "the public key without a JWT", caller: "invalid", make: async () => ({ publicKey }) },
  {
    credential: "a wrong public key with a member JWT",
    caller: "invalid",
    make: async (fixture) => ({ publicKey: "not-the-public-key", token: await tokenFor(fixture.member) }),
  },
  {
    credential: "an expired JWT",
    caller: "invalid",
    make: async (fixture) => ({ publicKey, token: await tokenFor(fixture.member, { expiresIn: -60 }) }),
  },
  {
    credential: "a JWT signed with the wrong secret",
    caller: "invalid",
    make: async (fixture) => ({ publicKey, token: await tokenFor(fixture.member, { secret: "some-other-secret-of-decent-length" }) }),
  },
  {
    credential: "a JWT without sub",
    caller: "invalid",
    make: async () => ({ publicKey, token: await sign({ exp: nowSeconds() + 3600 }, env.JWT_SECRET, "HS256") }),
  },
  {
    credential: "an unsigned JWT (alg none)",
    caller: "invalid",
    make: async (fixture) => ({
      publicKey,
      token: `${base64Url({ alg: "none", typ: "JWT" })}.${base64Url({ sub: fixture.member, exp: nowSeconds() + 3600 })}.`,
    }),
  },
  { credential: "a non-member JWT", caller: "outsider", make: async (fixture) => ({ publicKey, token: await tokenFor(fixture.outsider) }) },
  { credential: "a member JWT", caller: "member", make: async (fixture) => ({ publicKey, token: await tokenFor(fixture.member) }) },
  { credential: "the secret key", caller: "secret", make: async () => ({ secretKey: env.GATEWAY_SECRET_KEY }) },
];

/** `anyone`: no auth needed; `secret`: the secret key only; `member`: the secret key or a member JWT. */
type Access = "anyone" | "secret" | "member";

type RouteRow = {
  route: string;
  access: Access;
  /** The status when the caller is allowed. */
  success: number;
  /** Where public-key credentials go: headers, or `?publicKey=&token=` (browsers on stream routes). */
  transport: "headers" | "query";
  stream?: "websocket" | "sse";
  request: (fixture: Fixture) => { method: string; path: string; body?: unknown };
};

const streamRows = (["websocket", "sse"] as const).flatMap((stream) =>
  (["headers", "query"] as const).map(
    (transport): RouteRow => ({
      route: `GET /api/spaces/:id/stream (${stream === "websocket" ? "WebSocket" : "SSE"}, credentials in ${transport})`,
      access: "member",
      success: stream === "websocket" ? 101 : 200,
      transport,
      stream,
      request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/stream` }),
    }),
  ),
);

const routeRows: RouteRow[] = [
  { route: "GET /health", access: "anyone", success: 200, transport: "headers", request: () => ({ method: "GET", path: "/health" }) },
  {
    route: "POST /api/entities",
    access: "secret",
    success: 201,
    transport: "headers",
    request: () => ({ method: "POST", path: "/api/entities", body: { type: "human", name: "New" } }),
  },
  {
    route: "GET /api/entities/:id",
    access: "secret",
    success: 200,
    transport: "headers",
    request: (fixture) => ({ method: "GET", path: `/api/entities/${fixture.member}` }),
  },
  {
    route: "POST /api/agents",
    access: "secret",
    success: 201,
    transport: "headers",
    request: () => ({ method: "POST", path: "/api/agents", body: { config: minimalAgentConfig } }),
  },
  {
    route: "GET /api/agents/:id",
    access: "secret",
    success: 200,
    transport: "headers",
    request: (fixture) => ({ method: "GET", path: `/api/agents/${fixture.agentId}` }),
  },
  {
    route: "PUT /api/agents/:id",
    access: "secret",
    success: 200,
    transport: "headers",
    request: (fixture) => ({ method: "PUT", path: `/api/agents/${fixture.agentId}`, body: { config: { ...minimalAgentConfig, agent: { name: "b" } } } }),
  },
  {
    route: "DELETE /api/agents/:id",
    access: "secret",
    success: 200,
    transport: "headers",
    request: (fixture) => ({ method: "DELETE", path: `/api/agents/${fixture.agentId}` }),
  },
  {
    route: "POST /api/spaces",
    access: "secret",
    success: 201,
    transport: "headers",
    request: () => ({ method: "POST", path: "/api/spaces", body: { name: "Another room" } }),
  },
  {
    route: "GET /api/spaces/:id",
    access: "member",
    success: 200,
    transport: "headers",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}` }),
  },
  {
    route: "POST /api/spaces/:id/members",
    access: "secret",
    success: 201,
    transport: "headers",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/members`, body: { entityId: fixture.newcomer } }),
  },
  {
    route: "DELETE /api/spaces/:id/members/:entityId",
    access: "secret",
    success: 200,
    transport: "headers",
    request: (fixture) => ({ method: "DELETE", path: `/api/spaces/${fixture.spaceId}/members/${fixture.otherMember}` }),
  },
  {
    // Names the member as the speaker: right for the secret key, and the member's own id for its JWT.
    route: "POST /api/spaces/:id/messages",
    access: "member",
    success: 201,
    transport: "headers",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, body: { text: "hello", entityId: fixture.member } }),
  },
  {
    route: "GET /api/spaces/:id/messages",
    access: "member",
    success: 200,
    transport: "headers",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/messages?afterSeq=0&limit=10` }),
  },
  ...streamRows,
];

function expectedStatus(route: RouteRow, caller: Caller): number {
  if (route.access === "anyone") return route.success;
  if (caller === "invalid") return 401;
  if (caller === "secret" || (caller === "member" && route.access === "member")) return route.success;
  return 403;
}

function buildRequest(route: RouteRow, fixture: Fixture, credentials: Credentials): Request {
  const { method, path, body } = route.request(fixture);
  const url = new URL(path, "http://gateway.test");
  const headers = new Headers();
  // The secret key is a server credential: headers only, on every route.
  if (credentials.secretKey !== undefined) headers.set("x-secret-key", credentials.secretKey);
  if (route.transport === "query") {
    if (credentials.publicKey !== undefined) url.searchParams.set("publicKey", credentials.publicKey);
    if (credentials.token !== undefined) url.searchParams.set("token", credentials.token);
  } else {
    if (credentials.publicKey !== undefined) headers.set("x-public-key", credentials.publicKey);
    if (credentials.token !== undefined) headers.set("authorization", `Bearer ${credentials.token}`);
  }
  if (route.stream === "websocket") headers.set("upgrade", "websocket");
  if (route.stream === "sse") headers.set("accept", "text/event-stream");
  if (body !== undefined) headers.set("content-type", "application/json");
  return new Request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Checks an allowed answer and lets go of it (closes the socket, cancels the SSE body). */
async function expectAllowed(route: RouteRow, response: Response): Promise<void> {
  if (route.stream === "websocket") {
    const socket = response.webSocket;
    expect(socket).toBeTruthy();
    socket?.accept();
    socket?.close(1000, "done");
    return;
  }
  if (route.stream === "sse") {
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    await response.body?.cancel();
    return;
  }
  expect(response.headers.get("content-type")).toContain("application/json");
  await response.json();
}

const matrix = routeRows.flatMap((route) =>
  credentialRows.map((credential) => ({
    route: route.route,
    credential: credential.credential,
    expected: expectedStatus(route, credential.caller),
    routeRow: route,
    credentialRow: credential,
  })),
);

describe("auth matrix: route × caller → status", () => {
  it.each(matrix)("$route with $credential → $expected", async ({ routeRow, credentialRow, expected }) => {
    const fixture = await createFixture();
    const credentials = await credentialRow.make(fixture);
    const before = await countRows();
    const seqBefore = await spaceSeq(fixture.spaceId);
    const response = await exports.default.fetch(buildRequest(routeRow, fixture, credentials));
    expect(response.status).toBe(expected);
    if (expected < 400) {
      await expectAllowed(routeRow, response);
      return;
    }
    await readErrorEnvelope(response, expected === 401 ? "unauthorized" : "forbidden");
    expect(await countRows()).toEqual(before);
    expect(await spaceSeq(fixture.spaceId)).toBe(seqBefore);
  });

  it("covers every route with every kind of caller", () => {
    expect(matrix).toHaveLength(routeRows.length * credentialRows.length);
    expect(new Set(matrix.map((row) => row.expected))).toEqual(new Set([101, 200, 201, 401, 403]));
  });
});

describe("acting as someone else, and where query credentials count", () => {
  it("a member JWT cannot post as another member (403) and nothing is written", async () => {
    const fixture = await createFixture();
    const before = await countRows();
    const seqBefore = await spaceSeq(fixture.spaceId);
    const response = await exports.default.fetch(
      new Request(`http://gateway.test/api/spaces/${fixture.spaceId}/messages`, {
        method: "POST",
        headers: { ...(await memberHeaders(fixture.member)), "content-type": "application/json" },
        body: JSON.stringify({ text: "it was me", entityId: fixture.otherMember }),
      }),
    );
    expect(response.status).toBe(403);
    await readErrorEnvelope(response, "forbidden");
    expect(await countRows()).toEqual(before);
    expect(await spaceSeq(fixture.spaceId)).toBe(seqBefore);
  });

  it.each([
    { method: "GET", route: "/messages", body: undefined },
    { method: "POST", route: "/messages", body: { text: "via query" } },
    { method: "GET", route: "", body: undefined },
  ])("?publicKey=&token= is not accepted on $method /api/spaces/:id$route (401)", async ({ method, route, body }) => {
    const fixture = await createFixture();
    const before = await countRows();
    const query = new URLSearchParams({ publicKey, token: await tokenFor(fixture.member) });
    const response = await exports.default.fetch(
      new Request(`http://gateway.test/api/spaces/${fixture.spaceId}${route}?${query}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    expect(response.status).toBe(401);
    await readErrorEnvelope(response, "unauthorized");
    expect(await countRows()).toEqual(before);
  });
});
