/**
 * MCP servers for tests, answered in Node by the fake remote (real
 * `@modelcontextprotocol/sdk` servers over Streamable HTTP):
 *
 * - `http://mcp.test/stateful/<id>`: sessions (`Mcp-Session-Id`), server
 *   instructions, and the tools `add`, `grow` (adds a tool and says
 *   `notifications/tools/list_changed` in its answer), `picture` (an image),
 *   `slow` (three progress notifications, then an answer), `lookup`
 *   (read-only, counts its calls); GET answers 405, so notifications come in
 *   the answers' streams. `GET http://mcp.test/admin/<id>` tells what the
 *   server saw (initializes, tool lists, calls, ended sessions);
 *   `POST http://mcp.test/admin/<id>/forget` makes it forget its sessions
 *   (the next request with an old session id gets 404).
 * - `http://mcp.test/paged`: 7 tools listed 3 a page (`nextCursor`).
 * - `http://mcp.test/hang/<id>`: accepts and never answers (HTTP and SSE);
 *   `GET http://mcp.test/hang/<id>/methods` lists the methods it got.
 * - `http://mcp.test/down/<id>`: answers 500 to everything, counting requests.
 * - `http://mcp.test/person/<id>`: takes bearer tokens (any but one with
 *   `stale` in it; none is a 401 with its challenge), stateless, with the
 *   tools `whoami` (answers the id and the token's last four characters)
 *   and, for a token with `writer` in it, `write`. A token with `narrow` in
 *   it gets `403 insufficient_scope` naming `notes:write`.
 *   `GET http://mcp.test/person-seen/<id>` lists the bearer of every request;
 *   `GET http://mcp.test/person-calls/<id>` lists each `whoami` call's
 *   `_meta.traceparent` (null when it had none).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

type Seen = { initializes: number; lists: number; calls: Record<string, number>; deletes: string[]; requests: number; sessions: number };
const seen = new Map<string, Seen>();
const sessions = new Map<string, { id: string; transport: WebStandardStreamableHTTPServerTransport }>();
const downRequests = new Map<string, number>();
const hangMethods = new Map<string, string[]>();
const personBearers = new Map<string, (string | null)[]>();
const personCalls = new Map<string, { traceparent: string | null }[]>();

/** A 1×1 red PNG. */
export const redDotPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

function seenBy(id: string): Seen {
  let entry = seen.get(id);
  if (!entry) {
    entry = { initializes: 0, lists: 0, calls: {}, deletes: [], requests: 0, sessions: 0 };
    seen.set(id, entry);
  }
  return entry;
}

function statefulServer(id: string): McpServer {
  const record = seenBy(id);
  const server = new McpServer({ name: "stateful-mcp", version: "1.0.0" }, { instructions: `Server ${id}: use add for arithmetic; never guess sums.` });
  const count = (name: string) => (record.calls[name] = (record.calls[name] ?? 0) + 1);
  server.registerTool("add", { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    count("add");
    return { content: [{ type: "text", text: String(a + b) }] };
  });
  server.registerTool("lookup", { description: "Look a key up (read-only)", inputSchema: { key: z.string() }, annotations: { readOnlyHint: true } }, async ({ key }) => {
    count("lookup");
    return { content: [{ type: "text", text: `value of ${key} #${record.calls.lookup}` }] };
  });
  server.registerTool("grow", { description: "Adds the tool extra" }, async (extra) => {
    count("grow");
    if (!server.isConnected()) return { content: [{ type: "text", text: "gone" }] };
    server.registerTool("extra", { description: "Appeared later" }, async () => ({ content: [{ type: "text", text: "extra!" }] }));
    await extra.sendNotification({ method: "notifications/tools/list_changed" });
    return { content: [{ type: "text", text: "grown" }] };
  });
  server.registerTool("picture", { description: "A picture" }, async () => {
    count("picture");
    return {
      content: [
        { type: "text", text: "a red dot" },
        { type: "image", data: redDotPng, mimeType: "image/png" },
      ],
    };
  });
  server.registerTool("slow", { description: "Reports progress" }, async (extra) => {
    count("slow");
    const token = extra._meta?.progressToken;
    for (let step = 1; step <= 3; step += 1) {
      if (token !== undefined)
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, total: 3, message: `step ${step}` } });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { content: [{ type: "text", text: "done slowly" }] };
  });
  return server;
}

async function stateful(request: Request, id: string): Promise<Response> {
  const record = seenBy(id);
  record.requests += 1;
  if (request.method === "GET") return new Response(null, { status: 405, headers: { allow: "POST, DELETE" } });
  const sessionId = request.headers.get("mcp-session-id");
  if (request.method === "DELETE" && sessionId) record.deletes.push(sessionId);
  if (request.method === "POST") {
    const body = (await request.clone().json()) as { method?: string } | { method?: string }[];
    for (const message of Array.isArray(body) ? body : [body]) {
      if (message.method === "initialize") record.initializes += 1;
      if (message.method === "tools/list") record.lists += 1;
    }
  }
  if (sessionId) {
    const session = sessions.get(sessionId);
    if (!session || session.id !== id) return json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, 404);
    return session.transport.handleRequest(request);
  }
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: (newId) => {
      sessions.set(newId, { id, transport });
      record.sessions += 1;
    },
    onsessionclosed: (closedId) => {
      sessions.delete(closedId);
    },
  });
  await statefulServer(id).connect(transport);
  return transport.handleRequest(request);
}

async function paged(request: Request): Promise<Response> {
  const server = new Server({ name: "paged-mcp", version: "1.0.0" }, { capabilities: { tools: {} } });
  const all = Array.from({ length: 7 }, (_, index) => ({ name: `tool${index + 1}`, description: `Tool ${index + 1}`, inputSchema: { type: "object" as const, properties: {} } }));
  server.setRequestHandler(ListToolsRequestSchema, async (list) => {
    const start = Number(list.params?.cursor ?? "0");
    const next = start + 3;
    return { tools: all.slice(start, next), ...(next < all.length && { nextCursor: String(next) }) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (call) => ({ content: [{ type: "text", text: `${call.params.name} ran` }] }));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(request);
}

export async function fakeMcp(request: Request, url: URL): Promise<Response | undefined> {
  const [, kind, id, action] = url.pathname.split("/");
  if (kind === "stateful" && id) return stateful(request, id);
  if (kind === "admin" && id) {
    if (action === "forget") {
      for (const [sessionId, session] of sessions) if (session.id === id) sessions.delete(sessionId);
      return json({ forgotten: true });
    }
    return json(seenBy(id));
  }
  if (kind === "paged") return paged(request);
  if (kind === "person" && id) return asPerson(request, id);
  if (kind === "person-seen" && id) return json(personBearers.get(id) ?? []);
  if (kind === "person-calls" && id) return json(personCalls.get(id) ?? []);
  if (kind === "hang") {
    if (id && action === "methods") return json(hangMethods.get(id) ?? []);
    if (id) hangMethods.set(id, [...(hangMethods.get(id) ?? []), request.method]);
    return new Promise<Response>(() => undefined);
  }
  if (kind === "down" && id) {
    downRequests.set(id, (downRequests.get(id) ?? 0) + 1);
    if (request.method === "GET" && action === "count") return json({ requests: downRequests.get(id) ?? 0 });
    return json({ error: "down" }, 500);
  }
  return undefined;
}

/** How many requests `http://mcp.test/down/<id>` got (read without counting). */
export function downRequestCount(id: string): number {
  return downRequests.get(id) ?? 0;
}

/** An MCP server that serves each request as the person whose bearer token it carries. */
async function asPerson(request: Request, id: string): Promise<Response> {
  const bearer = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1] ?? null;
  personBearers.set(id, [...(personBearers.get(id) ?? []), bearer]);
  if (bearer === null || bearer.includes("stale")) {
    const challenge = `Bearer error="invalid_token", resource_metadata="http://mcp.test/.well-known/oauth-protected-resource/person/${id}"`;
    return new Response(JSON.stringify({ error: "invalid_token" }), { status: 401, headers: { "content-type": "application/json", "www-authenticate": challenge } });
  }
  if (bearer.includes("narrow")) {
    const challenge = 'Bearer error="insufficient_scope", scope="notes:read notes:write"';
    return new Response(JSON.stringify({ error: "insufficient_scope" }), { status: 403, headers: { "content-type": "application/json", "www-authenticate": challenge } });
  }
  const server = new McpServer({ name: "person-mcp", version: "1.0.0" });
  server.registerTool("whoami", { description: "Says whose token came" }, async (extra) => {
    const traceparent = extra._meta?.traceparent;
    personCalls.set(id, [...(personCalls.get(id) ?? []), { traceparent: typeof traceparent === "string" ? traceparent : null }]);
    return { content: [{ type: "text", text: JSON.stringify({ id, tokenEnds: bearer.slice(-4) }) }] };
  });
  if (bearer.includes("writer")) {
    server.registerTool("write", { description: "Writes a note", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: `wrote ${text}` }] }));
  }
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(request);
}
