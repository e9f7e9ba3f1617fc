/**
 * One MCP request, answered by a server built for it (stateless Streamable
 * HTTP, `sessionIdGenerator: undefined`; `face-server.ts`): the tools and resources of its
 * endpoint, closed over the caller, on the SDK's Web-standard transport.
 * The SDK negotiates the protocol revision (the newest it knows and the
 * earlier ones) and answers with JSON or an SSE stream as the client
 * accepts; progress notifications ride that stream. Loaded lazily by
 * `mcp-routes.ts`: this module is what pulls the SDK's server in.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { maxBodyBytes } from "../api/request-body";
import type { FaceContext } from "./face-context";
import { FaceServer } from "./face-server";
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
  const server = new FaceServer({ name: "switchboard", version: context.c.env.SWITCHBOARD_VERSION }, instructions[context.face.kind]);
  if (context.face.kind === "space") registerSpaceTools(server, context, context.face.spaceId);
  else registerAgentTools(server, context, context.face.agentId);
  registerResources(server, context);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: maxBodyBytes });
  await server.server.connect(transport);
  return transport.handleRequest(context.c.req.raw);
}
