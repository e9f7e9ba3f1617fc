/**
 * `POST /api/runs/:runId/tool-results {callId, result | error}` (docs/tools.md,
 * "The result route"): who may answer, and the HTTP mapping
 * (`answer-pending-call.ts`); the transition itself belongs to the agent's
 * object (the pending-call owner). Approvals are answered here too, with
 * `{approved, args?, reason?}` as the result.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { getDatabase } from "../db/client";
import { ApiError, forbidden } from "../errors";
import { getPendingCall } from "../tools";
import { answerPendingCall, submissionOf } from "./answer-pending-call";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { mayAnswer } from "./who-may-answer";
import { ErrorResponse, jsonBody, jsonContent, RunIdParam, writeErrorResponses } from "./schemas";

const SubmitResult = z
  .object({
    callId: z.string().min(1).max(200).openapi({ description: "The gateway's `toolCallId` of the call (not the model's own id)" }),
    result: z.unknown().optional().openapi({ description: "Any JSON value: what the tool returns to the agent (its fields are never interpreted)" }),
    error: z
      .string()
      .min(1)
      .max(10_000)
      .optional()
      .openapi({ description: "Instead of `result`: the call failed, with this message (the card shows an error; the model gets a tool error)" }),
  })
  .strict()
  .refine((body) => body.error === undefined || body.result === undefined, { path: ["error"], message: "Give either result or error, not both" })
  .openapi("SubmitToolResult");

const Accepted = z.object({ success: z.literal(true), agentEntityId: z.string(), duplicate: z.literal(true).optional() }).openapi("ToolResultAccepted");

export const toolResultRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/api/runs/{runId}/tool-results",
    tags: ["runs"],
    ...routeAccess("secret-or-member"),
    description:
      "Submit the result of a pending tool call. Secret key, or the JWT of a member of the space the call is shown in (a token that may not answer gets 403 whether or not the call exists). A result that does not match the tool's resultSchema (unless it is advisory) is refused with 400 `invalid_result`, naming each path; nothing changes.",
    request: { params: RunIdParam, ...jsonBody(SubmitResult) },
    responses: {
      200: jsonContent(Accepted, "Accepted (or the same result again: duplicate)"),
      ...writeErrorResponses,
      410: jsonContent(ErrorResponse, "The call expired"),
      422: jsonContent(ErrorResponse, "The answer does not fit the call (an approval's shape or edited arguments); nothing changed"),
      503: jsonContent(ErrorResponse, "The agent could not take the result; nothing changed (retry)"),
    },
  }),
  async (c) => {
    const { runId } = c.req.valid("param");
    const body = c.req.valid("json");
    const call = await getPendingCall(getDatabase(c.env.DB), body.callId);
    const permission = await mayAnswer(c.env, c.get("caller"), call, body.callId);
    if (!permission.ok) throw forbidden(permission.reason);
    if (!call) throw new ApiError(404, "not_found", `Tool call "${body.callId}" not found`);
    if (call.runId !== runId) throw forbidden(`Tool call "${body.callId}" belongs to another run`);
    return c.json(await answerPendingCall(c, call, submissionOf(body)), 200);
  },
);
