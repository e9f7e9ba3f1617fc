/**
 * One MCP request, answered by a server built for it (`face-server.ts`): the
 * tools and resources of its endpoint, closed over the caller, on the SDK's
 * Web-standard transport without a session of its own
 * (`sessionIdGenerator: undefined`). The SDK negotiates the protocol
 * revision (the newest it knows and the earlier ones) and answers with JSON
 * or an SSE stream as the client accepts; progress notifications and
 * elicitation requests ride that stream. Loaded lazily by `mcp-routes.ts`:
 * this module is what pulls the SDK's server in.
 *
 * Around the SDK: the answer to `initialize` carries the face's session id
 * (`face-session.ts`, what the client can take), each later request's id is
 * read back, and a POST that only answers this face's elicitations is taken
 * here (`elicit-calls.ts`): the server that sent them is gone.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { maxBodyBytes } from "../api/request-body";
import { ApiError, errorEnvelope } from "../errors";
import { parseJsonSafely } from "../json";
import { readLimitedBody } from "../security/read-limited-body";
import { elicitationAnswersIn, takeElicitationAnswers } from "./elicit-calls";
import type { FaceContext } from "./face-context";
import { FaceServer } from "./face-server";
import { abilitiesOf, type ClientAbilities, newSession, noAbilities, readSession } from "./face-session";
import { cancelTask, getTask, taskResult } from "./face-tasks";
import { registerAgentTools } from "./register-agent-tools";
import { registerResources } from "./register-resources";
import { registerSpaceTools } from "./register-space-tools";

const instructions = {
  space:
    "Switchboard space: people and agents talk here. send_message and read_messages for the conversation; ask_agent to put a question to an agent and wait for its reply; list_waiting_calls, answer_call, approve_call and deny_call for the tool calls and approvals that wait on someone.",
  agent:
    "Switchboard agent: ask_agent gives it a task and waits for its final answer; get_run reads a run; list_waiting_calls, answer_call, approve_call and deny_call answer its calls and approvals that wait on someone.",
};

export type FaceRequest = Pick<FaceContext, "c" | "caller" | "face">;

/** The request's JSON body, read (bounded) from a copy; `undefined` when it is too large or not JSON (the SDK answers those). */
async function bodyOf(request: Request): Promise<unknown> {
  const read = await readLimitedBody(request.clone().body, { maxBytes: maxBodyBytes });
  if (!read.ok) return undefined;
  const parsed = parseJsonSafely(new TextDecoder().decode(read.bytes));
  return parsed.ok ? parsed.value : undefined;
}

function initializeIn(body: unknown): { params?: unknown } | undefined {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.find((message): message is { params?: unknown } => typeof message === "object" && message !== null && "method" in message && message.method === "initialize");
}

export async function serveMcp(request: FaceRequest): Promise<Response> {
  const { c, caller, face } = request;
  const raw = c.req.raw;
  const body = raw.method === "POST" ? await bodyOf(raw) : undefined;
  const initialize = initializeIn(body);
  let client: ClientAbilities = noAbilities;
  const sessionId = raw.headers.get("mcp-session-id");
  if (sessionId !== null && !initialize) {
    const read = await readSession(c.env, caller, face, sessionId);
    if (!read) return c.json(errorEnvelope("not_found", "Unknown MCP session: initialize again"), 404);
    client = read;
  }

  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: maxBodyBytes });
  const context: FaceContext = { ...request, client, ask: (message, relatedRequestId) => transport.send(message, { relatedRequestId }) };

  const answers = elicitationAnswersIn(body);
  if (answers) {
    try {
      await takeElicitationAnswers(context, answers);
    } catch (error) {
      if (error instanceof ApiError) return c.json(errorEnvelope(error.code, error.message), error.status);
      throw error;
    }
    return new Response(null, { status: 202 });
  }

  const server = new FaceServer({ name: "switchboard", version: c.env.SWITCHBOARD_VERSION }, instructions[face.kind], {
    get: (taskId) => getTask(context, taskId),
    result: (taskId, extra) => taskResult(context, taskId, extra),
    cancel: (taskId) => cancelTask(context, taskId),
  });
  if (face.kind === "space") registerSpaceTools(server, context, face.spaceId);
  else registerAgentTools(server, context, face.agentId);
  registerResources(server, context);
  await server.server.connect(transport);
  const response = await transport.handleRequest(raw, body === undefined ? undefined : { parsedBody: body });
  if (!initialize || !response.ok) return response;
  // What the client can take rides in the session id it sends back from now on.
  const answered = new Response(response.body, response);
  answered.headers.set("mcp-session-id", await newSession(c.env, caller, face, abilitiesOf(initialize.params)));
  return answered;
}
