#!/usr/bin/env node
/**
 * The tools server of the examples in docs/tools.md, on loopback
 * (`PORT`, default 9314). One process speaks:
 *
 * - MCP at `/mcp` (Streamable HTTP with sessions, the official SDK): tools
 *   `add`, `whoami` (the Authorization header it got), `chart` (an image),
 *   `count_slowly` (progress notifications); server instructions.
 * - A small REST API under `/api` (books) with its OpenAPI 3.0 document at
 *   `/openapi.json`.
 * - `/big`: a 10,000-row JSON answer, for whole outputs behind a handle.
 *
 * Run it with the project's Node: `node scripts/example-tools-server.mjs`.
 * It logs one line per MCP session opened and ended.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const port = Number(process.env.PORT ?? 9314);
const books = new Map([
  ["1", { id: "1", title: "The Left Hand of Darkness", author: "Ursula K. Le Guin" }],
  ["2", { id: "2", title: "Kindred", author: "Octavia E. Butler" }],
]);
/** A 2×2 PNG: red, green, blue, white. */
const chartPng = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAAMIM/////w8AH+4F+7C4l8kAAAAASUVORK5CYII=";

const openApiDocument = {
  openapi: "3.0.3",
  info: { title: "Books", version: "1.0.0" },
  servers: [{ url: "/api" }],
  paths: {
    "/books": {
      get: { operationId: "listBooks", summary: "List books, optionally matching a query", parameters: [{ name: "q", in: "query", schema: { type: "string" } }] },
      post: {
        operationId: "addBook",
        summary: "Add a book",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/NewBook" } } } },
      },
    },
    "/books/{id}": { get: { operationId: "getBook", summary: "One book", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }] } },
  },
  components: { schemas: { NewBook: { type: "object", required: ["title", "author"], properties: { title: { type: "string" }, author: { type: "string" } } } } },
};

function mcpServer(authorization) {
  const server = new McpServer({ name: "example-tools", version: "1.0.0" }, { instructions: "Use add for arithmetic. chart returns a picture of the numbers." });
  server.registerTool("add", { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true } }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  server.registerTool("whoami", { description: "Which credentials reached the server" }, async () => ({
    content: [{ type: "text", text: authorization ?? "(no Authorization header)" }],
  }));
  server.registerTool("chart", { description: "A tiny chart, as an image" }, async () => ({
    content: [
      { type: "text", text: "Four squares" },
      { type: "image", data: chartPng, mimeType: "image/png" },
    ],
  }));
  server.registerTool("count_slowly", { description: "Counts to n, reporting progress", inputSchema: { n: z.number().int().min(1).max(10) } }, async ({ n }, extra) => {
    for (let step = 1; step <= n; step += 1) {
      const token = extra._meta?.progressToken;
      if (token !== undefined)
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, total: n, message: `counted ${step}` } });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return { content: [{ type: "text", text: `counted to ${n}` }] };
  });
  return server;
}

const sessions = new Map();

async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
}

function send(response, status, value) {
  response.statusCode = status;
  response.setHeader("content-type", "application/json");
  response.end(JSON.stringify(value));
}

createServer(async (request, response) => {
  try {
    const url = new URL(request.url, `http://127.0.0.1:${port}`);
    if (url.pathname === "/mcp") {
      if (request.method === "GET") return send(response, 405, { error: "no standalone stream" });
      const body = request.method === "POST" ? await readJson(request) : undefined;
      const sessionId = request.headers["mcp-session-id"];
      if (sessionId) {
        const transport = sessions.get(sessionId);
        if (!transport) return send(response, 404, { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
        return await transport.handleRequest(request, response, body);
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
          console.log(`MCP session ${id} opened`);
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
          console.log(`MCP session ${id} ended (DELETE)`);
        },
      });
      await mcpServer(request.headers.authorization).connect(transport);
      return await transport.handleRequest(request, response, body);
    }
    if (url.pathname === "/openapi.json") return send(response, 200, openApiDocument);
    if (url.pathname === "/api/books" && request.method === "GET") {
      const q = url.searchParams.get("q")?.toLowerCase();
      return send(response, 200, { books: [...books.values()].filter((book) => !q || `${book.title} ${book.author}`.toLowerCase().includes(q)) });
    }
    if (url.pathname === "/api/books" && request.method === "POST") {
      const book = { id: String(books.size + 1), ...(await readJson(request)) };
      books.set(book.id, book);
      return send(response, 201, book);
    }
    const match = /^\/api\/books\/([^/]+)$/.exec(url.pathname);
    if (match && request.method === "GET") return books.has(match[1]) ? send(response, 200, books.get(match[1])) : send(response, 404, { error: "no such book" });
    if (url.pathname === "/big") {
      return send(response, 200, {
        rows: Array.from({ length: 10_000 }, (_, index) => ({ id: index, city: ["Lisbon", "Oslo", "Lima", "Accra"][index % 4], value: (index * 7919) % 1000 })),
      });
    }
    send(response, 404, { error: "not found" });
  } catch (error) {
    if (!response.headersSent) send(response, 500, { error: String(error?.message ?? error) });
  }
}).listen(port, "127.0.0.1", () => console.log(`example tools server on http://127.0.0.1:${port} (MCP at /mcp, OpenAPI at /openapi.json)`));
