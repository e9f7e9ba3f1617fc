/**
 * The outside world for tests, answered in Node through Miniflare's
 * `outboundService` (so tests never touch the network):
 *
 * - `http://hooks.test/ok/<id>` records a webhook and answers 200;
 *   `http://hooks.test/down/<n>/<id>` answers 500 to the first n deliveries.
 *   `GET http://hooks.test/recorded/<id>` returns what was received.
 * - `http://api.test/echo…` answers JSON describing the request;
 *   `/stream/ndjson` and `/stream/sse` (three records, NDJSON or SSE),
 *   `/status/<code>`, `/hang` (never answers), `/big` (10 MB, streamed
 *   lazily), `/text` (not JSON); `/hang-always/<id>` records each request
 *   under `<id>` and never answers; `/hang-once/<id>` never answers its first
 *   request and answers `{"ok": true, "attempt": n}` after that (requests are
 *   recorded under `<id>`, like webhooks).
 * - `http://mcp.test/mcp` is an MCP server (Streamable HTTP, stateless) with
 *   the tools `add`, `fail` and `hidden`; it records the auth header it saw.
 *   `http://mcp.test/odd` lists `echo` (a good schema), `broken` (a `pattern`
 *   that is not a regex) and `deep` (answers 3,000 levels deep).
 * - `http://pages.test/…` serves HTML for `fetch_page`: `/article` (headings,
 *   lists, links, a table, code, entities, scripts and styles to drop),
 *   `/redirect` (302 to `/article`), `/loop` (redirects forever),
 *   `/to-private` (302 to a loopback host), `/plain` (text/plain),
 *   `/binary` (image/png), `/missing` (404).
 * - `http://openai.test/v1/images/generations` answers like OpenAI's images
 *   API (one PNG as `b64_json`) and records the request under `openai-images`.
 * - Origin tricks: `http://api.test/openapi/tricks.json` is a document whose
 *   operation paths try to leave `http://api.test` (`:4444/x`, `@host/x`,
 *   `.host/x`, an absolute URL, userinfo…); `http://api.test/openapi/elsewhere.json`
 *   names a server on another host; `http://mcp.test/redirect` redirects an MCP
 *   client to another host; `http://pages.test/away` redirects to another host.
 *   `http://evil.test/…` serves the worst inputs (fake-worst-case.ts says which).
 * - `https://auth.test/token` is an OAuth token endpoint: the code `good-code`
 *   gets fresh random tokens, any other code `invalid_grant`; each request is
 *   recorded under `auth-token`. `https://auth.test/token-down` answers 503.
 *   A refresh (`grant_type=refresh_token`) of a refresh token `rt-…` gets
 *   fresh random tokens (the refresh token rotated; `stale` in it stays in
 *   both new tokens); any other, `invalid_grant`. The client credentials
 *   grant (`grant_type=client_credentials`) with the secret `agent-secret`
 *   (Basic or in the form) gets `at-cc-<client id>-…`, no refresh token.
 * - `http://api.test/as-person/<id>` is a service that takes bearer tokens:
 *   each request is recorded under `as-person-<id>`; a token with `stale` in
 *   it gets 401 (`WWW-Authenticate: Bearer error="invalid_token"`), any other
 *   bearer `{"ok": true, "id": <id>}`, and no token a 401;
 *   `/as-person/<id>/more` answers 403 `insufficient_scope` naming `files:write`.
 * - `http://tavily.test/search` answers like Tavily's search API: a POST with
 *   `Authorization: Bearer test-tool-token` (the tests' `TOOL_API_TOKEN`) and
 *   `{query, max_results}` gets `{query, answer: null, results: [{title, url,
 *   content, score, raw_content: null}], …}` (`max_results` of them, at most 8;
 *   none for the query `nothing`); any other key a 401 `{detail: {error}}`;
 *   each request is recorded under `tavily`.
 * - `http://a2a.test/…` serves remote A2A agents on the A2A SDK's own server
 *   (fake-a2a.ts says which).
 * - `http://otel.test/v1/traces` is an OTLP/HTTP receiver (the `workers-traced`
 *   project's endpoint): each export is recorded under `otel` and answered 200.
 *   Every request to a host or port not listed here is recorded under `stray`
 *   (`GET http://recorded.test/stray`) and answered 200, so a leak is seen.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { fakeMcp } from "./fake-mcp.ts";
import { worstCase } from "./fake-worst-case.ts";
import { fakeA2a } from "./fake-a2a.ts";

type Recorded = { method: string; url: string; headers: Record<string, string>; body: string; at: number };

const recorded = new Map<string, Recorded[]>();
const spans = new Map<string, { start: number; end: number }[]>();
const counts = new Map<string, number>();

/** An OpenAPI 3.0 document whose operations land on the echo route. */
export const petstoreDocument = {
  openapi: "3.0.3",
  info: { title: "Pets", version: "1" },
  servers: [{ url: "http://api.test/echo/v1" }],
  paths: {
    "/pets/{petId}": {
      parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }],
      get: {
        operationId: "getPet",
        summary: "One pet",
        parameters: [
          { name: "verbose", in: "query", schema: { type: "boolean" } },
          { name: "X-Trace", in: "header", schema: { type: "string" } },
        ],
      },
      delete: { operationId: "deletePet", summary: "Delete a pet" },
    },
    "/pets": {
      get: {
        operationId: "listPets",
        parameters: [
          { name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } },
          { name: "limit", in: "query", schema: { type: "integer", maximum: 100, exclusiveMaximum: true } },
        ],
      },
      post: {
        operationId: "createPet",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/NewPet" } } } },
      },
    },
    "/upload": { post: { operationId: "upload", requestBody: { required: true, content: { "application/octet-stream": { schema: { type: "string" } } } } } },
  },
  components: {
    schemas: {
      NewPet: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" }, tag: { type: "string", nullable: true }, owner: { $ref: "#/components/schemas/Owner" } },
      },
      Owner: { type: "object", properties: { name: { type: "string" } } },
    },
  },
};
/** Operation paths that would each leave `http://api.test` if joined onto it as text (only `/echo/ok` is a plain path). */
export const trickPaths: Record<string, string> = {
  port: ":4444/steal",
  userinfoHost: "@elsewhere.test/steal",
  suffix: ".elsewhere.test/steal",
  protocolRelative: "//elsewhere.test/steal",
  backslash: "\\elsewhere.test/steal",
  encodedSlash: "%2F%2Felsewhere.test/steal",
  encodedAt: "%40elsewhere.test/steal",
  absolute: "http://elsewhere.test/steal",
  userinfo: "user:pw@elsewhere.test/steal",
  climb: "/echo/../../steal",
  plain: "/echo/ok",
};

const tricksDocument = {
  openapi: "3.0.3",
  info: { title: "Tricks", version: "1" },
  servers: [{ url: "http://api.test" }],
  paths: Object.fromEntries(Object.entries(trickPaths).map(([operationId, path]) => [path, { get: { operationId } }])),
};
const failures = new Map<string, number>();

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

async function hooks(request: Request, url: URL): Promise<Response> {
  const [, kind, ...rest] = url.pathname.split("/");
  if (kind === "recorded") return json(recorded.get(rest.join("/")) ?? []);
  const id = kind === "down" ? rest.slice(1).join("/") : rest.join("/");
  const entry: Recorded = {
    method: request.method,
    url: request.url,
    headers: Object.fromEntries(request.headers),
    body: await request.text(),
    at: Date.now(),
  };
  recorded.set(id, [...(recorded.get(id) ?? []), entry]);
  if (kind === "down") {
    const failing = Number(rest[0]);
    const seen = (failures.get(id) ?? 0) + 1;
    failures.set(id, seen);
    if (seen <= failing) return json({ error: "down" }, 500);
  }
  return json({ received: true });
}

async function api(request: Request, url: URL): Promise<Response> {
  if (url.pathname.startsWith("/echo")) {
    return json({
      method: request.method,
      path: url.pathname,
      rawPath: request.url.slice(url.origin.length).split("?")[0],
      query: Object.fromEntries(url.searchParams),
      search: url.search,
      headers: Object.fromEntries(request.headers),
      body: request.method === "GET" ? null : await request.text(),
    });
  }
  if (url.pathname.startsWith("/status/")) return json({ error: "upstream says no" }, Number(url.pathname.split("/")[2]));
  if (url.pathname.startsWith("/as-person/")) {
    const id = url.pathname.split("/")[2];
    const entry = { method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text(), at: Date.now() };
    recorded.set(`as-person-${id}`, [...(recorded.get(`as-person-${id}`) ?? []), entry]);
    const bearer = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    if (bearer === undefined || bearer.includes("stale")) {
      return new Response(JSON.stringify({ error: "invalid_token" }), {
        status: 401,
        headers: { "content-type": "application/json", "www-authenticate": 'Bearer error="invalid_token"' },
      });
    }
    if (url.pathname.endsWith("/more")) {
      const challenge = 'Bearer error="insufficient_scope", scope="files:write"';
      return new Response(JSON.stringify({ error: "insufficient_scope" }), { status: 403, headers: { "content-type": "application/json", "www-authenticate": challenge } });
    }
    return json({ ok: true, id });
  }
  if (url.pathname === "/hang") return new Promise<Response>(() => undefined);
  if (url.pathname.startsWith("/hang-always/")) {
    const id = url.pathname.slice("/hang-always/".length);
    recorded.set(id, [
      ...(recorded.get(id) ?? []),
      { method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text(), at: Date.now() },
    ]);
    return new Promise<Response>(() => undefined);
  }
  if (url.pathname.startsWith("/hang-once/")) {
    const id = url.pathname.slice("/hang-once/".length);
    const seen = [
      ...(recorded.get(id) ?? []),
      { method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text(), at: Date.now() },
    ];
    recorded.set(id, seen);
    if (seen.length === 1) return new Promise<Response>(() => undefined);
    return json({ ok: true, attempt: seen.length });
  }
  if (url.pathname === "/text") return new Response("<html>not json</html>", { headers: { "content-type": "text/html" } });
  if (url.pathname === "/stream/ndjson" || url.pathname === "/stream/sse") {
    // Three records, one chunk each (split mid-line, as networks do): NDJSON lines or SSE events.
    const sse = url.pathname.endsWith("/sse");
    const chunks = sse
      ? [': hello\n\ndata: {"step":1}\n\ndata: {"st', 'ep":2}\n\nevent: note\ndata: plain text\n\n', 'data: {"step":3}\n\ndata: [DONE]\n\n']
      : ['{"step":1}\n{"st', 'ep":2}\n\n', '{"step":3}\n'];
    const body = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    return new Response(body, {
      headers: { "content-type": sse ? "text/event-stream" : "application/x-ndjson" },
    });
  }
  if (url.pathname === "/openapi.json") return json(petstoreDocument);
  if (url.pathname === "/openapi/tricks.json") return json(tricksDocument);
  if (url.pathname === "/openapi/elsewhere.json")
    return json({ ...tricksDocument, servers: [{ url: "http://elsewhere.test/api" }], paths: { "/steal": { get: { operationId: "steal" } } } });
  if (url.pathname.startsWith("/bigjson/")) {
    const count = Number(url.pathname.split("/")[2]);
    return json({ items: Array.from({ length: count }, (_, index) => ({ index, word: index % 97 === 0 ? "needle" : `hay-${index}` })) });
  }
  if (url.pathname.startsWith("/slow/")) {
    // /slow/<id>/<ms>: answers after ms; each request's start and end are kept under <id>.
    const [, , id, ms] = url.pathname.split("/");
    const start = Date.now();
    await new Promise((resolve) => setTimeout(resolve, Number(ms)));
    spans.set(id, [...(spans.get(id) ?? []), { start, end: Date.now() }]);
    return json({ waited: Number(ms) });
  }
  if (url.pathname.startsWith("/spans/")) return json(spans.get(url.pathname.split("/")[2]) ?? []);
  if (url.pathname.startsWith("/count/")) {
    const id = url.pathname.split("/")[2];
    counts.set(id, (counts.get(id) ?? 0) + 1);
    return json({ n: counts.get(id), query: Object.fromEntries(url.searchParams) });
  }
  if (url.pathname === "/big") {
    let sent = 0;
    const chunk = new Uint8Array(64 * 1024).fill(97);
    return new Response(
      new ReadableStream({
        pull(controller) {
          if (sent >= 10 * 1024 * 1024) return controller.close();
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
      { headers: { "content-type": "application/json" } },
    );
  }
  return json({ error: "no such fake route" }, 404);
}

async function mcp(request: Request): Promise<Response> {
  const server = new McpServer({ name: "fake-mcp", version: "1.0.0" });
  server.registerTool("add", { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  server.registerTool("fail", { description: "Always fails" }, async () => ({ isError: true, content: [{ type: "text", text: "it broke" }] }));
  server.registerTool("hidden", { description: "Not allowed for agents" }, async () => ({ content: [{ type: "text", text: "secret" }] }));
  const authorization = request.headers.get("authorization");
  if (authorization) recorded.set("mcp-auth", [{ method: request.method, url: request.url, headers: { authorization }, body: "", at: Date.now() }]);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(request);
}

/** An MCP server whose tool list a well-behaved SDK server would not produce. */
async function oddMcp(request: Request): Promise<Response> {
  const server = new Server({ name: "odd-mcp", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: "echo", description: "Echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
      { name: "broken", description: "Unusable schema", inputSchema: { type: "object", properties: { text: { type: "string", pattern: "([" } } } },
      { name: "deep", description: "Answers too deep", inputSchema: { type: "object", properties: {} } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (call) => {
    if (call.params.name !== "deep") return { content: [{ type: "text", text: JSON.stringify(call.params.arguments ?? {}) }] };
    let value: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 3_000; level += 1) value = { next: value };
    return { content: [], structuredContent: value };
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(request);
}

const article = `<!doctype html>
<html><head><title>The  Switchboard &amp; friends</title><style>body { color: red }</style><script>alert("no")</script></head>
<body>
<nav><a href="/">Home</a></nav>
<h1>Switchboard &mdash; a gateway</h1>
<p>Agents <strong>meet</strong> people in <em>spaces</em>. Read <a href="/docs/intro">the intro</a> &amp; more.</p>
<ul><li>First item</li><li>Second item</li></ul>
<pre><code>const x = 1;
  indented();</code></pre>
<table><tr><th>Name</th><th>Role</th></tr><tr><td>Ada</td><td>engineer</td></tr></table>
<img src="/logo.png" alt="The logo"><br>
<p>Caf&eacute; &#233; &#x263A; &lt;tag&gt;</p>
<noscript>Enable JavaScript</noscript>
<template><p>hidden template</p></template>
<script type="module">console.log("dropped")</script>
</body></html>`;

async function pages(request: Request, url: URL): Promise<Response> {
  switch (url.pathname) {
    case "/article":
      return new Response(article, { headers: { "content-type": "text/html; charset=utf-8" } });
    case "/redirect":
      return new Response(null, { status: 302, headers: { location: "/article" } });
    case "/loop":
      return new Response(null, { status: 302, headers: { location: "/loop" } });
    case "/away":
      return new Response(null, { status: 302, headers: { location: "http://elsewhere.test/landing" } });
    case "/to-private":
      return new Response(null, { status: 302, headers: { location: "http://127.0.0.1:9/secret" } });
    case "/plain":
      return new Response("just text\nline two", { headers: { "content-type": "text/plain" } });
    case "/binary":
      return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), { headers: { "content-type": "image/png" } });
    default:
      return new Response("<h1>Not here</h1>", { status: 404, headers: { "content-type": "text/html" } });
  }
}

/** One 1×1 PNG. */
const tinyPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

async function openai(request: Request, url: URL): Promise<Response> {
  if (url.pathname !== "/v1/images/generations") return json({ error: { message: "no such fake route" } }, 404);
  recorded.set("openai-images", [
    ...(recorded.get("openai-images") ?? []),
    { method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text(), at: Date.now() },
  ]);
  return json({ created: Math.floor(Date.now() / 1000), data: [{ b64_json: tinyPng, revised_prompt: "a revised prompt" }] });
}

async function authServer(request: Request, url: URL): Promise<Response> {
  const body = await request.text();
  recorded.set("auth-token", [
    ...(recorded.get("auth-token") ?? []),
    { method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body, at: Date.now() },
  ]);
  if (url.pathname === "/token-down") return json({ error: "temporarily_unavailable" }, 503);
  if (url.pathname !== "/token" || request.method !== "POST") return json({ error: "no such fake route" }, 404);
  const form = new URLSearchParams(body);
  if (form.get("grant_type") === "refresh_token") {
    if (!form.get("refresh_token")?.startsWith("rt-")) return json({ error: "invalid_grant", error_description: "unknown refresh token" }, 400);
    // A refresh token with `stale` in it gets an access token the fake service refuses too.
    const stale = form.get("refresh_token")?.includes("stale") ? "stale-" : "";
    return json({ access_token: `at-${stale}${crypto.randomUUID()}`, refresh_token: `rt-${stale}${crypto.randomUUID()}`, token_type: "Bearer", expires_in: 3600 });
  }
  if (form.get("grant_type") === "client_credentials") {
    // The client authenticates with Basic (the secret "agent-secret") or in the form; the token names the client.
    const basic = /^Basic (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    const [clientId, secret] = basic ? atob(basic).split(":").map(decodeURIComponent) : [form.get("client_id"), form.get("client_secret")];
    if (secret !== "agent-secret") return json({ error: "invalid_client", error_description: "unknown client" }, 401);
    return json({ access_token: `at-cc-${clientId}-${crypto.randomUUID()}`, token_type: "Bearer", expires_in: 3600, scope: form.get("scope") ?? "files:read" });
  }
  if (form.get("grant_type") !== "authorization_code" || form.get("code") !== "good-code") return json({ error: "invalid_grant", error_description: "unknown code" }, 400);
  return json({ access_token: `at-${crypto.randomUUID()}`, refresh_token: `rt-${crypto.randomUUID()}`, token_type: "Bearer", expires_in: 3600, scope: "files:read" });
}

async function tavily(request: Request, url: URL): Promise<Response> {
  const body = await request.text();
  recorded.set("tavily", [...(recorded.get("tavily") ?? []), { method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body, at: Date.now() }]);
  if (url.pathname !== "/search" || request.method !== "POST") return json({ detail: { error: "Not Found" } }, 404);
  if (request.headers.get("authorization") !== "Bearer test-tool-token") return json({ detail: { error: "Unauthorized: missing or invalid API key." } }, 401);
  const { query, max_results: maxResults = 5 } = JSON.parse(body) as { query: string; max_results?: number };
  const count = query === "nothing" ? 0 : Math.min(maxResults, 8);
  const results = Array.from({ length: count }, (_, index) => ({
    title: `${query} — result ${index + 1}`,
    url: `https://example.com/${encodeURIComponent(query)}/${index + 1}`,
    content: `What page ${index + 1} says about ${query}.`,
    score: Math.round((0.95 - index * 0.1) * 100) / 100,
    raw_content: null,
  }));
  return json({ query, follow_up_questions: null, answer: null, images: [], results, response_time: 0.42 });
}

const knownHosts = new Set(["pages.test", "openai.test", "recorded.test", "mcp.test", "hooks.test", "api.test", "evil.test", "auth.test", "tavily.test", "a2a.test", "otel.test"]);

export async function fakeRemote(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.port !== "" || !knownHosts.has(url.hostname)) {
    const entry = { method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text(), at: Date.now() };
    recorded.set("stray", [...(recorded.get("stray") ?? []), entry]);
    return json({ stray: true });
  }
  if (url.hostname === "pages.test") return pages(request, url);
  if (url.hostname === "openai.test") return openai(request, url);
  if (url.hostname === "recorded.test") return json(recorded.get(url.pathname.slice(1)) ?? []);
  if (url.hostname === "mcp.test") {
    if (url.pathname === "/odd") return oddMcp(request);
    if (url.pathname === "/redirect") return new Response(null, { status: 307, headers: { location: "http://elsewhere.test/mcp" } });
    if (url.pathname === "/mcp" || url.pathname === "/sse") return mcp(request);
    return (await fakeMcp(request, url)) ?? json({ error: "no such fake MCP route" }, 404);
  }
  if (url.hostname === "hooks.test") return hooks(request, url);
  if (url.hostname === "api.test") return api(request, url);
  if (url.hostname === "evil.test") return worstCase(request, url);
  if (url.hostname === "a2a.test") return fakeA2a(request, url);
  if (url.hostname === "auth.test") return authServer(request, url);
  if (url.hostname === "tavily.test") return tavily(request, url);
  if (url.hostname === "otel.test") {
    const entry = { method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text(), at: Date.now() };
    recorded.set("otel", [...(recorded.get("otel") ?? []), entry]);
    return json({});
  }
  return json({ error: `no such fake host ${url.hostname}` }, 502);
}
