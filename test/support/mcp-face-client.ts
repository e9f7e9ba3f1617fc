/**
 * The MCP SDK's own client, talking to the gateway's MCP face in-process:
 * its Streamable HTTP transport's fetch goes to the Worker's exported
 * handler. Closed when the test ends. `rpc` sends one raw JSON-RPC POST and
 * reads the answer (JSON, or the SSE stream the server may answer with).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, type ElicitRequest, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { exports } from "cloudflare:workers";
import { onTestFinished } from "vitest";
import { McpSchemaValidator } from "../../src/tools";
import { SseParser } from "../../client/src/sse-parser";

const origin = "http://gateway.test";

/** `elicit`: the client declares elicitation (in `modes`, form by default) and answers each request with this. */
export type FaceClientOptions = { elicit?: (request: ElicitRequest["params"]) => Promise<ElicitResult> | ElicitResult; modes?: ("form" | "url")[] };

export async function connectFace(path: string, headers: Record<string, string>, options: FaceClientOptions = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}${path}`), {
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    requestInit: { headers },
  });
  // ajv cannot run in workerd: the client checks output schemas with the gateway's validator, as the gateway's own MCP client does.
  const client = new Client(
    { name: "face-test", version: "1.0.0" },
    {
      jsonSchemaValidator: new McpSchemaValidator(),
      capabilities: options.elicit ? { elicitation: Object.fromEntries((options.modes ?? ["form"]).map((mode) => [mode, {}])) } : {},
    },
  );
  const { elicit } = options;
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params));
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

export type ToolAnswer = { isError: boolean; structured: Record<string, unknown>; text: string };

/** A tool call's answer, read: its structured content and its text. */
export function readAnswer(result: unknown): ToolAnswer {
  const answer = result as CallToolResult;
  const text = answer.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
  return { isError: answer.isError === true, structured: (answer.structuredContent ?? {}) as Record<string, unknown>, text };
}

export async function callFaceTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return readAnswer(await client.callTool({ name, arguments: args }));
}

/** One JSON-RPC POST as any client sends it; the JSON-RPC messages of the answer, and the response. */
export async function rpc(path: string, headers: Record<string, string>, message: Record<string, unknown>): Promise<{ response: Response; messages: Record<string, unknown>[] }> {
  const response = await exports.default.fetch(
    new Request(`${origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    }),
  );
  const text = await response.text();
  if (!response.headers.get("content-type")?.includes("text/event-stream")) return { response, messages: text ? [JSON.parse(text)] : [] };
  const messages: Record<string, unknown>[] = [];
  const parser = new SseParser((frame) => {
    if (frame.data) messages.push(JSON.parse(frame.data));
  });
  parser.push(text);
  return { response, messages };
}
