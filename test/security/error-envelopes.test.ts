/**
 * Every refusal the Worker answers itself is the error envelope with a JSON
 * content type, whatever refused it: no route or method, the auth and body
 * middleware, the hop guard, the stream routes before and after the upgrade
 * reaches the object, signed links and callback URLs. (The platform answers a
 * few requests before the Worker runs, in plain text: docs/api.md lists them.)
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAgent } from "../support/agents";
import { createHuman, createSpace, memberHeaders, secretHeaders, tokenFor } from "../support/api";
import { readErrorEnvelope } from "../support/error-envelope";
import { minimalAgentConfig } from "../support/minimal-agent-config";

type Fixture = { spaceId: string; member: string; outsider: string; agentId: string };
type Probe = { name: string; status: number; request: (fixture: Fixture) => Promise<Request> | Request };

const url = (path: string) => `http://gateway.test${path}`;
const json = { "content-type": "application/json" };
const kib = 1024;

const probes: Probe[] = [
  // No route: unknown paths, unknown methods on known paths, odd spellings.
  { name: "an unknown path outside /api", status: 404, request: () => new Request(url("/nope")) },
  { name: "a static-looking path the page does not have", status: 404, request: () => new Request(url("/reference/nope.js")) },
  { name: "an unknown /api path with the secret key", status: 404, request: () => new Request(url("/api/widgets"), { headers: secretHeaders }) },
  { name: "an unknown /api path without credentials", status: 401, request: () => new Request(url("/api/widgets")) },
  { name: "POST /health", status: 404, request: () => new Request(url("/health"), { method: "POST" }) },
  { name: "DELETE /openapi.json", status: 404, request: () => new Request(url("/openapi.json"), { method: "DELETE" }) },
  { name: "PROPFIND on a collection", status: 404, request: () => new Request(url("/api/spaces"), { method: "PROPFIND", headers: secretHeaders }) },
  { name: "OPTIONS on a collection", status: 404, request: () => new Request(url("/api/spaces"), { method: "OPTIONS", headers: secretHeaders }) },
  { name: "DELETE on a collection", status: 404, request: () => new Request(url("/api/spaces"), { method: "DELETE", headers: secretHeaders }) },
  { name: "a lone percent sign as the path", status: 404, request: () => new Request(url("/%")) },
  { name: "a malformed percent escape in an id", status: 404, request: () => new Request(url("/api/spaces/%E0%A4%A/messages"), { headers: secretHeaders }) },
  {
    name: "a malformed percent escape in a query value",
    status: 400,
    request: (fixture) => new Request(url(`/api/spaces/${fixture.spaceId}/messages?afterSeq=%ZZ`), { headers: secretHeaders }),
  },

  // Middleware: credentials, body, hop.
  { name: "a wrong secret key", status: 401, request: () => new Request(url("/api/spaces"), { headers: { "x-secret-key": "nope" } }) },
  { name: "a member on a secret-only route", status: 403, request: async (fixture) => new Request(url("/api/agents"), { headers: await memberHeaders(fixture.member) }) },
  {
    name: "a body over 256 KiB",
    status: 413,
    request: () => new Request(url("/api/spaces"), { method: "POST", headers: { ...secretHeaders, ...json }, body: JSON.stringify({ name: "x".repeat(300 * kib) }) }),
  },
  {
    name: "a write without a JSON content type",
    status: 415,
    request: () => new Request(url("/api/spaces"), { method: "POST", headers: { ...secretHeaders, "content-type": "text/plain" }, body: "{}" }),
  },
  { name: "a body that is not JSON", status: 400, request: () => new Request(url("/api/spaces"), { method: "POST", headers: { ...secretHeaders, ...json }, body: "{nope" }) },
  {
    name: "a hop header that is not a number",
    status: 400,
    request: () => new Request(url("/api/spaces"), { method: "POST", headers: { ...secretHeaders, ...json, "x-switchboard-hop": "abc" }, body: "{}" }),
  },
  {
    name: "a hop past the bound",
    status: 508,
    request: () => new Request(url("/api/spaces"), { method: "POST", headers: { ...secretHeaders, ...json, "x-switchboard-hop": "9" }, body: '{"name":"x"}' }),
  },

  // Streams: refused in the Worker, and refused by the object the upgrade reaches.
  {
    name: "a space stream that is neither a WebSocket nor SSE",
    status: 426,
    request: (fixture) => new Request(url(`/api/spaces/${fixture.spaceId}/stream`), { headers: secretHeaders }),
  },
  {
    name: "a space stream with another upgrade",
    status: 426,
    request: (fixture) => new Request(url(`/api/spaces/${fixture.spaceId}/stream`), { headers: { ...secretHeaders, upgrade: "h2c" } }),
  },
  {
    name: "a WebSocket upgrade for an unknown space",
    status: 404,
    request: () => new Request(url("/api/spaces/spc_missing/stream"), { headers: { ...secretHeaders, upgrade: "websocket" } }),
  },
  {
    name: "a WebSocket upgrade by a person outside the space",
    status: 403,
    request: async (fixture) => new Request(url(`/api/spaces/${fixture.spaceId}/stream`), { headers: { ...(await memberHeaders(fixture.outsider)), upgrade: "websocket" } }),
  },
  {
    name: "a WebSocket upgrade with an expired token in the query",
    status: 401,
    request: async (fixture) =>
      new Request(url(`/api/spaces/${fixture.spaceId}/stream?publicKey=${env.GATEWAY_PUBLIC_KEY}&token=${await tokenFor(fixture.member, { expiresIn: -60 })}`), {
        headers: { upgrade: "websocket" },
      }),
  },
  {
    name: "a WebSocket upgrade resuming past the last event (refused by the space object)",
    status: 400,
    request: (fixture) => new Request(url(`/api/spaces/${fixture.spaceId}/stream?afterSeq=99`), { headers: { ...secretHeaders, upgrade: "websocket" } }),
  },
  {
    name: "an SSE stream resuming past the last event (refused by the agent object)",
    status: 400,
    request: (fixture) => new Request(url(`/api/agents/${fixture.agentId}/stream?afterSeq=99`), { headers: { ...secretHeaders, accept: "text/event-stream" } }),
  },
  {
    name: "an agent stream that is neither a WebSocket nor SSE",
    status: 426,
    request: (fixture) => new Request(url(`/api/agents/${fixture.agentId}/stream`), { headers: secretHeaders }),
  },

  // Links and callback URLs.
  {
    name: "a file link the gateway did not sign",
    status: 403,
    request: (fixture) => new Request(url(`/api/files/download?key=files/a.txt&space=${fixture.spaceId}&expires=1&signature=${"0".repeat(64)}`), { headers: secretHeaders }),
  },
  { name: "a file link without its query", status: 400, request: () => new Request(url("/api/files/download"), { headers: secretHeaders }) },
  {
    name: "a callback URL the gateway did not sign",
    status: 401,
    request: () => new Request(url("/api/callbacks/not-a-token"), { method: "POST", headers: json, body: '{"result":1}' }),
  },
];

describe("every refusal the Worker answers is the error envelope", () => {
  it("the list has a case for each kind of refusal, each with a distinct name", () => {
    expect(new Set(probes.map((probe) => probe.name)).size).toBe(probes.length);
  });

  it.each(probes)("$name → $status", async ({ request, status }) => {
    const member = await createHuman();
    const outsider = await createHuman();
    const fixture: Fixture = { spaceId: await createSpace([member]), member, outsider, agentId: (await createAgent(minimalAgentConfig)).id };
    const response = await exports.default.fetch(await request(fixture));
    expect(response.status).toBe(status);
    expect(response.webSocket ?? null).toBeNull();
    await readErrorEnvelope(response);
  });
});
