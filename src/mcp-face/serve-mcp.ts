/**
 * One MCP request, answered by a server built for it (stateless Streamable
 * HTTP, `sessionIdGenerator: undefined`): the tools and resources of its
 * endpoint, closed over the caller, on the SDK's Web-standard transport.
 * The SDK negotiates the protocol revision (the newest it knows and the
 * earlier ones) and answers with JSON or an SSE stream as the client
 * accepts; progress notifications ride that stream. Loaded lazily by
 * `mcp-routes.ts`: this module is what pulls the SDK's server in.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { maxBodyBytes } from "../api/request-body";
import { McpSchemaValidator } from "../tools";
import type { FaceContext } from "./face-context";
import { registerAgentTools } from "./register-agent-tools";
import { registerResources } from "./register-resources";
import { registerSpaceTools } from "./register-space-tools";

const instructions = {
  space:
    "Switchboard space: people and agents talk here. send_message and read_messages for the conversation; ask_agent to put a question to an agent and wait for its reply; list_waiting_calls, answer_call, approve_call and deny_call for the tool calls and approvals that wait on someone.",
  agent:
    "Switchboard agent: ask_agent gives it a task and waits for its final answer; get_run reads a run; list_waiting_calls, answer_call, approve_call and deny_call answer its calls and approvals that wait on someone.",
};

export async function serveMcp(context: FaceContext): Promise<Response> {
  const server = new McpServer(
    { name: "switchboard", version: context.c.env.SWITCHBOARD_VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: instructions[context.face.kind],
      // The SDK's default validator is ajv, which cannot run on Workers; this server never validates a schema of its own, but one must be given.
      jsonSchemaValidator: new McpSchemaValidator(),
    },
  );
  if (context.face.kind === "space") registerSpaceTools(server, context, context.face.spaceId);
  else registerAgentTools(server, context, context.face.agentId);
  registerResources(server, context);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: maxBodyBytes });
  await server.connect(transport);
  return transport.handleRequest(context.c.req.raw);
}
