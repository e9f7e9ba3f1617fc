/**
 * `POST /api/runs/:runId/tool-results {callId, result | error}` (docs/tools.md,
 * "The result route"), and its space-scoped twin for browsers,
 * `POST /api/spaces/:spaceId/tool-results`: who may answer, and the HTTP mapping
 * (`answer-pending-call.ts`); the transition itself belongs to the agent's
 * object (the pending-call owner). Approvals are answered here too, with
 * `{approved, args?, reason?}` as the result.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { getDatabase } from "../db/client";
import { ApiError, forbidden } from "../errors";
import { type ExecutedBy, getPendingCall, type PendingCall } from "../tools";
import { answerPendingCall, submissionOf } from "./answer-pending-call";
import { requireSpaceAccess } from "./authorize";
import { type ApiContext, type ApiEnv, createRouter } from "./context";
import { type EntityCaller, routeAccess, type SecretCaller } from "./route-access";
import { mayAnswer } from "./who-may-answer";
import { ErrorResponse, jsonBody, jsonContent, RunIdParam, SpaceIdParam, writeErrorResponses } from "./schemas";

const resultFields = {
  result: z.unknown().optional().openapi({ description: "Any JSON value: what the tool returns to the agent (its fields are never interpreted)" }),
  error: z
    .string()
    .min(1)
    .max(10_000)
    .optional()
    .openapi({ description: "Instead of `result`: the call failed, with this message (the card shows an error; the model gets a tool error)" }),
};
const CallId = z.string().min(1).max(200);
const resultOrError = (body: { result?: unknown; error?: string }) => body.error === undefined || body.result === undefined;
const resultOrErrorIssue = { path: ["error"], message: "Give either result or error, not both" };

const SubmitResult = z
  .object({ callId: CallId.openapi({ description: "The gateway's `toolCallId` of the call (not the model's own id)" }), ...resultFields })
  .strict()
  .refine(resultOrError, resultOrErrorIssue)
  .openapi("SubmitToolResult");

/** Who ran a call a browser or a service answers for, as the card records it. */
const ExecutorLabel = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\x20-\x7e]+$/, "Printable ASCII");

/**
 * The space-scoped body: the same fields, with the earlier SDKs' spelling
 * (`toolCallId`, `runId`) accepted too, and who executed the call.
 */
const SubmitSpaceResult = z
  .object({
    callId: CallId.optional().openapi({ description: "The gateway's `toolCallId` of the call (or give it as `toolCallId`)" }),
    toolCallId: CallId.optional().openapi({ description: "The same as `callId`, as the earlier SDKs send it" }),
    runId: z.string().min(1).max(200).optional().openapi({ description: "Optional: the run the call belongs to; another run's call is refused with 403" }),
    ...resultFields,
    source: ExecutorLabel.optional().openapi({ description: 'Who executed the call (e.g. "client", "server"): recorded on its card as `executedBy.source`' }),
    clientId: ExecutorLabel.optional().openapi({ description: "Which client executed the call: recorded on its card as `executedBy.clientId`" }),
  })
  .strict()
  .refine((body) => (body.callId ?? body.toolCallId) !== undefined, { path: ["callId"], message: "Required: the call's id (callId or toolCallId)" })
  .refine((body) => body.callId === undefined || body.toolCallId === undefined || body.callId === body.toolCallId, {
    path: ["toolCallId"],
    message: "callId and toolCallId name different calls: give one",
  })
  .refine(resultOrError, resultOrErrorIssue)
  .openapi("SubmitSpaceToolResult");

const Accepted = z.object({ success: z.literal(true), agentEntityId: z.string(), duplicate: z.literal(true).optional() }).openapi("ToolResultAccepted");

const answerResponses = {
  200: jsonContent(Accepted, "Accepted (or the same result again: duplicate)"),
  ...writeErrorResponses,
  410: jsonContent(ErrorResponse, "The call expired"),
  422: jsonContent(ErrorResponse, "The answer does not fit the call (an approval's shape or edited arguments); nothing changed"),
  503: jsonContent(ErrorResponse, "The agent could not take the result; nothing changed (retry)"),
};

/**
 * Answers a call once its place is known: who may answer it (`answeredBy`),
 * that it belongs to the run named (when one is), then its agent's object.
 * Both routes end here, so the checks and their order are the same.
 */
async function answerCall<Env extends ApiEnv>(
  c: ApiContext<Env>,
  caller: SecretCaller | EntityCaller,
  call: PendingCall | undefined,
  callId: string,
  body: { runId?: string; result?: unknown; error?: string },
  executedBy?: ExecutedBy,
) {
  const permission = await mayAnswer(c.env, caller, call, callId);
  if (!permission.ok) throw forbidden(permission.reason);
  if (!call) throw new ApiError(404, "not_found", `Tool call "${callId}" not found`);
  if (body.runId !== undefined && call.runId !== body.runId) throw forbidden(`Tool call "${callId}" belongs to another run`);
  return answerPendingCall(c, call, submissionOf(body, executedBy));
}

export const toolResultRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/api/runs/{runId}/tool-results",
      tags: ["runs"],
      ...routeAccess("secret-or-member"),
      description:
        "Submit the result of a pending tool call. Secret key, or the JWT of a member of the space the call is shown in (a token that may not answer gets 403 whether or not the call exists). A result that does not match the tool's resultSchema (unless it is advisory) is refused with 400 `invalid_result`, naming each path; nothing changes.",
      request: { params: RunIdParam, ...jsonBody(SubmitResult) },
      responses: answerResponses,
    }),
    async (c) => {
      const { runId } = c.req.valid("param");
      const body = c.req.valid("json");
      const call = await getPendingCall(getDatabase(c.env.DB), body.callId);
      return c.json(await answerCall(c, c.get("caller"), call, body.callId, { ...body, runId }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/spaces/{spaceId}/tool-results",
      tags: ["spaces"],
      ...routeAccess("secret-or-member"),
      description:
        "Submit the result of a pending tool call shown in this space: the result route for browsers, which know the space they show rather than the run. The same rules as `POST /api/runs/{runId}/tool-results` (who may answer, resultSchema, duplicates, conflicts, expiry), scoped to the space: a token must be a member of it (403), and a call that is not shown in it is 404, as if it did not exist, so that no id of another space is confirmed here. `source` and `clientId` say who executed the call; its card records them as `executedBy`.",
      request: { params: SpaceIdParam, ...jsonBody(SubmitSpaceResult) },
      responses: answerResponses,
    }),
    async (c) => {
      const { spaceId } = c.req.valid("param");
      const body = c.req.valid("json");
      const caller = c.get("caller");
      await requireSpaceAccess(c.env, caller, spaceId);
      const callId = body.callId ?? body.toolCallId ?? "";
      const call = await getPendingCall(getDatabase(c.env.DB), callId);
      if (!call || call.spaceId !== spaceId) throw new ApiError(404, "not_found", `Tool call "${callId}" is not shown in space "${spaceId}"`);
      const executedBy =
        body.source !== undefined || body.clientId !== undefined ? { ...(body.source && { source: body.source }), ...(body.clientId && { clientId: body.clientId }) } : undefined;
      return c.json(await answerCall(c, caller, call, callId, body, executedBy), 200);
    },
  );
