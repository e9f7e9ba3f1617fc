/**
 * A waiting call put to the MCP client's person as an elicitation: while
 * `ask_agent` (or a task's `tasks/result`) waits on a run that asks this
 * person for something (a `space` or `external` call they may answer, an
 * approval), the face sends `elicitation/create` on that request's stream,
 * with a form built from the call: the fields of its `resultSchema` when
 * they are all simple (text, number, yes/no, a choice), one text field
 * `answer` when the tool has no `resultSchema`, `{approved, reason}` for an
 * approval. A call whose schema a form cannot ask for is not sent (answer it
 * with `answer_call`). Only to a person, and only when their client said at
 * `initialize` that it takes form elicitations.
 *
 * The request's id names the call (`switchboard-elicit:<callId>`), so the
 * client's answer, which comes in a later POST to a server that never saw
 * the request, is read by the id alone: accepted, it answers the call
 * through the result route's own path (`answerFaceCall`: scope, who may
 * answer, the `resultSchema`, duplicates); declined or dismissed, the call
 * waits on, for this person or anyone else.
 */
import {
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  ElicitResultSchema,
  type JSONRPCRequest,
  PrimitiveSchemaDefinitionSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { startLink } from "../accounts/begin-account-flow";
import { getAgent } from "../agents/agent-record";
import { flowStore, gatewayOrigin } from "../api/accounts";
import { mayAnswer } from "../api/who-may-answer";
import { getDatabase } from "../db/client";
import { ApiError } from "../errors";
import { getPendingCall, type PendingCall, waitsOnSomeone } from "../tools";
import { answerFaceCall } from "./answer-face-call";
import type { FaceContext } from "./face-context";

export const elicitationIdPrefix = "switchboard-elicit:";
/** A URL elicitation's id: the person's answer only says whether they opened the link. */
export const connectIdPrefix = "switchboard-connect:";

/** How many elicitation answers one POST may carry. */
export const maxAnswersPerPost = 100;
/** How much of a call's arguments the form's message shows. */
const argsCharacters = 500;

type RequestedSchema = ElicitRequestFormParams["requestedSchema"];

/** A `resultSchema` as a form's schema, when every field is one a form can ask for; else `undefined`. */
export function formSchemaOf(resultSchema: Record<string, unknown>): RequestedSchema | undefined {
  const Shape = z.object({ type: z.literal("object"), properties: z.record(z.string(), z.unknown()), required: z.array(z.string()).optional() });
  const parsed = Shape.safeParse(resultSchema);
  if (!parsed.success || Object.keys(parsed.data.properties).length === 0) return undefined;
  const properties: RequestedSchema["properties"] = {};
  for (const [name, schema] of Object.entries(parsed.data.properties)) {
    const field = PrimitiveSchemaDefinitionSchema.safeParse(schema);
    if (!field.success) return undefined;
    properties[name] = field.data;
  }
  return { type: "object", properties, ...(parsed.data.required && { required: parsed.data.required }) };
}

const freeAnswer: RequestedSchema = { type: "object", properties: { answer: { type: "string", title: "Your answer" } }, required: ["answer"] };
const approvalForm: RequestedSchema = {
  type: "object",
  properties: {
    approved: { type: "boolean", title: "Approve", description: "Yes: the tool runs. No: it does not, and the agent hears why." },
    reason: { type: "string", title: "Reason (optional)", maxLength: 2_000 },
  },
  required: ["approved"],
};

/** The form for one call, or `undefined` when a form cannot ask for its answer. */
export function elicitationFor(call: PendingCall, resultSchema: Record<string, unknown> | undefined): ElicitRequestFormParams | undefined {
  const args = call.displayMode === "minimal" ? "" : ` with ${JSON.stringify(call.args ?? {}).slice(0, argsCharacters)}`;
  if (call.kind === "approval") return { mode: "form", message: `The agent wants to run ${call.toolName}${args}. Approve it?`, requestedSchema: approvalForm };
  const requestedSchema = resultSchema ? formSchemaOf(resultSchema) : freeAnswer;
  if (!requestedSchema) return undefined;
  return { mode: "form", message: `The agent's call ${call.toolName}${args} waits for your answer.`, requestedSchema };
}

const isOpen = (call: PendingCall) => call.status === "waiting" || call.status === "pending";

/** The `resultSchema` of a call's tool, from its agent's config. */
async function resultSchemaOf(context: FaceContext, call: PendingCall): Promise<Record<string, unknown> | undefined> {
  const agent = await getAgent(getDatabase(context.c.env.DB), call.agentId);
  return agent?.config.tools.find((tool) => tool.name === call.toolName)?.resultSchema;
}

/**
 * Puts one waiting call to the client's person, on the stream of request
 * `relatedRequestId`: a form, or for an account they must connect a link.
 * False when it is not theirs, waits on nobody (a sub-agent, a remote
 * agent), their client does not take that mode, or a form cannot ask for it.
 */
export async function offerWaitingCall(context: FaceContext, callId: string, relatedRequestId: RequestId): Promise<boolean> {
  if (context.caller.kind !== "entity") return false;
  const call = await getPendingCall(getDatabase(context.c.env.DB), callId);
  if (!call || !isOpen(call) || !waitsOnSomeone(call)) return false;
  if (call.accountKey !== null) return offerConnection(context, call, relatedRequestId);
  if (!context.client.elicitation.form) return false;
  if (context.face.kind === "space" && call.spaceId !== context.face.spaceId) return false;
  if (!(await mayAnswer(context.c.env, context.caller, call, callId)).ok) return false;
  const params = elicitationFor(call, call.kind === "call" ? await resultSchemaOf(context, call) : undefined);
  if (!params) return false;
  return send(context, { jsonrpc: "2.0", id: `${elicitationIdPrefix}${callId}`, method: "elicitation/create", params }, relatedRequestId);
}

async function send(context: FaceContext, request: JSONRPCRequest, relatedRequestId: RequestId): Promise<boolean> {
  try {
    await context.ask(request, relatedRequestId);
    return true;
  } catch (error) {
    console.warn("an elicitation could not be sent", error);
    return false;
  }
}

/**
 * A call that waits for its person to connect an account, put to that
 * person (and nobody else) as a URL elicitation where their client takes
 * one: the link that starts the sign-in, made for them now (the link given
 * before it stops working, as when the page asks for one). What they do at
 * the service finishes the flow; the client's answer to the form only says
 * whether they opened it, so it changes nothing.
 */
async function offerConnection(context: FaceContext, call: PendingCall, relatedRequestId: RequestId): Promise<boolean> {
  const { caller, c } = context;
  if (caller.kind !== "entity" || !context.client.elicitation.url || call.accountKey === null || call.initiatorEntityId !== caller.entityId) return false;
  let flows: Awaited<ReturnType<typeof flowStore>>;
  try {
    flows = await flowStore(c.env);
  } catch (error) {
    // No accounts key (GET /health names it): the page's card says the same; the wait is not broken by it.
    console.warn("no account link could be made for an elicitation", error);
    return false;
  }
  const open = await flows.openFlow(caller.entityId, call.accountKey);
  if (!open) return false;
  const reissued = await flows.reissueStart(open.flowId, caller.entityId);
  if (!reissued.ok) return false;
  const service = open.serviceName ?? call.accountKey;
  const scopes = open.scopes.length > 0 ? ` (${open.scopes.join(" ")})` : "";
  const params: ElicitRequestURLParams = {
    mode: "url",
    elicitationId: open.flowId,
    url: startLink(gatewayOrigin(c.env, c.req.url), open.flowId, reissued.startToken),
    message: `The agent's call ${call.toolName} needs your ${service} account${scopes}. Open the link to sign in there; the link is yours alone and works once.`,
  };
  return send(context, { jsonrpc: "2.0", id: `${connectIdPrefix}${call.toolCallId}`, method: "elicitation/create", params }, relatedRequestId);
}

const Answer = z
  .object({ jsonrpc: z.literal("2.0"), id: z.string().startsWith(elicitationIdPrefix) })
  .and(z.union([z.object({ result: z.unknown() }), z.object({ error: z.unknown() })]));
export type ElicitationAnswer = z.infer<typeof Answer>;

/** The body's messages when every one is a client's answer to an elicitation this face sent; else `undefined` (the body goes to the server). */
export function elicitationAnswersIn(body: unknown): ElicitationAnswer[] | undefined {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return undefined;
  const answers: ElicitationAnswer[] = [];
  for (const message of messages) {
    const parsed = Answer.safeParse(message);
    if (!parsed.success) return undefined;
    answers.push(parsed.data);
  }
  return answers;
}

/**
 * Takes the client's answers: each accepted form answers its call. A
 * declined or dismissed form, or an error the client answered with, leaves
 * the call waiting. The first refusal (not the caller's call, a result that
 * does not fit, a conflict) is thrown as the route would answer it.
 */
export async function takeElicitationAnswers(context: FaceContext, answers: ElicitationAnswer[]): Promise<void> {
  // Each answer reads its call: a batch is bounded as a page of waiting calls is.
  if (answers.length > maxAnswersPerPost) throw new ApiError(400, "validation_error", `At most ${maxAnswersPerPost} elicitation answers in one POST`);
  let refused: ApiError | undefined;
  for (const answer of answers) {
    if (!("result" in answer) || !answer.id.startsWith(elicitationIdPrefix)) continue;
    const result = ElicitResultSchema.safeParse(answer.result);
    if (!result.success) {
      refused ??= new ApiError(400, "validation_error", `The answer to ${answer.id} is not an elicitation result`);
      continue;
    }
    if (result.data.action !== "accept") continue;
    const callId = answer.id.slice(elicitationIdPrefix.length);
    const content = result.data.content ?? {};
    try {
      const call = await getPendingCall(getDatabase(context.c.env.DB), callId);
      const kind = call?.kind ?? "call";
      const value =
        kind === "approval"
          ? { approved: content.approved === true, ...(typeof content.reason === "string" && content.reason !== "" && { reason: content.reason }) }
          : call && (await resultSchemaOf(context, call))
            ? content
            : content.answer;
      await answerFaceCall(context, callId, kind, { type: "ok", value });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      refused ??= error;
    }
  }
  if (refused) throw refused;
}
