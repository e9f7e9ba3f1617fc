/**
 * The worst inputs an outside party can hand the gateway, answered in Node by
 * the fake remote under `http://evil.test/…`:
 *
 * - `/mcp`: an MCP server (Streamable HTTP, stateless) listing `match` (its
 *   `text` must match `^(a+)+$`, which backtracks exponentially), `behind`
 *   (a lookbehind the linear engine refuses), `fanout` (`$ref`s that fan
 *   out to 2^40 subschemas) and `shaped` (an `outputSchema` whose `word`
 *   must match `^(a|aa)+$`; it answers with `a`s and a `!`);
 * - `/openapi.json`: operations `find` (query `q` must match `^(a+)+$`),
 *   `peek` (a lookahead), both answered by `/echo…`, and `long`, whose path
 *   is 200,000 unclosed `{`;
 * - `/lines/<n>`: JSON whose lines are `n` `a`s and a `!` (to store behind a
 *   handle and grep);
 * - `/page/spaces/<n>`, `/page/links/<n>`, `/page/brackets/<n>`: HTML with
 *   `n` spaces where they reach the page-text tidying (after a second
 *   `<pre>`), `n` empty-link openers `[](`, or `n` `[`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export const evilPattern = "^(a+)+$";
export const evilSubject = (length: number) => `${"a".repeat(length)}!`;

const fanOutDefinitions: Record<string, unknown> = { d40: { type: "string" } };
for (let level = 0; level < 40; level += 1) fanOutDefinitions[`d${level}`] = { anyOf: [{ $ref: `#/$defs/d${level + 1}` }, { $ref: `#/$defs/d${level + 1}` }] };

function json(value: unknown): Response {
  return new Response(JSON.stringify(value), { headers: { "content-type": "application/json" } });
}

function html(body: string): Response {
  return new Response(`<!doctype html><html><head><title>Worst case</title></head><body>${body}</body></html>`, { headers: { "content-type": "text/html; charset=utf-8" } });
}

async function evilMcp(request: Request): Promise<Response> {
  const server = new Server({ name: "evil-mcp", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: "match", description: "Text of a's", inputSchema: { type: "object", properties: { text: { type: "string", pattern: evilPattern } }, required: ["text"] } },
      { name: "behind", description: "A lookbehind", inputSchema: { type: "object", properties: { text: { type: "string", pattern: "(?<=a)b" } } } },
      { name: "fanout", description: "References that fan out", inputSchema: { type: "object", properties: { value: { $ref: "#/$defs/d0" } }, $defs: fanOutDefinitions } },
      {
        name: "shaped",
        description: "Structured answers",
        inputSchema: { type: "object", properties: {} },
        outputSchema: { type: "object", properties: { word: { type: "string", pattern: "^(a|aa)+$" } }, required: ["word"] },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (call) => {
    if (call.params.name === "shaped") {
      const word = evilSubject(5_000);
      return { content: [{ type: "text", text: JSON.stringify({ word }) }], structuredContent: { word } };
    }
    return { content: [{ type: "text", text: JSON.stringify(call.params.arguments ?? {}) }] };
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(request);
}

const evilDocument = {
  openapi: "3.0.3",
  info: { title: "Worst case", version: "1" },
  servers: [{ url: "http://evil.test/echo" }],
  paths: {
    "/find": { get: { operationId: "find", parameters: [{ name: "q", in: "query", required: true, schema: { type: "string", pattern: evilPattern } }] } },
    "/peek": { get: { operationId: "peek", parameters: [{ name: "q", in: "query", schema: { type: "string", pattern: "(?=a)a" } }] } },
    [`/${"{".repeat(200_000)}`]: { get: { operationId: "long" } },
  },
};

export async function worstCase(request: Request, url: URL): Promise<Response> {
  const [, kind, detail, size] = url.pathname.split("/");
  if (kind === "mcp") return evilMcp(request);
  if (kind === "openapi.json") return json(evilDocument);
  if (kind === "echo") return json({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
  if (kind === "lines") return json({ lines: Array.from({ length: 4 }, () => evilSubject(Number(detail))) });
  if (kind === "page") {
    const count = Number(size);
    // The second <pre>'s fence closes the first's code block, so the spaces are tidied as page text.
    if (detail === "spaces") return html(`<pre>a<pre>${" ".repeat(count)}x`);
    if (detail === "links") return html(`<p>${"[](".repeat(count)}</p>`);
    if (detail === "brackets") return html(`<p>${"[".repeat(count)}</p>`);
  }
  return new Response("no such worst case", { status: 404 });
}
