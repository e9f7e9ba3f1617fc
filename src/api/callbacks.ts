/**
 * `POST /api/callbacks/:token {result | error}`: answers one pending call (or
 * approval) with no API key — the signed, expiring token in the URL is the
 * capability, and it names that one call. Same outcomes as the result route:
 * the same body again is a duplicate, a different one a conflict.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { getDatabase } from "../db/client";
import { ApiError } from "../errors";
import { getPendingCall } from "../tools";
import { answerPendingCall, submissionOf } from "./answer-pending-call";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { ErrorResponse, jsonBody, jsonContent } from "./schemas";

const CallbackBody = z
  .object({
    result: z.unknown().optional().openapi({ description: "Any JSON value: the call's result" }),
    error: z.string().min(1).max(10_000).optional().openapi({ description: "Instead of `result`: the call failed, with this message" }),
  })
  .strict()
  .refine((body) => body.error === undefined || body.result === undefined, { path: ["error"], message: "Give either result or error, not both" })
  .openapi("CallbackAnswer");

const TokenParam = z.object({
  token: z
    .string()
    .min(1)
    .max(1_000)
    .openapi({ param: { name: "token", in: "path" } }),
});

export const callbackRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/api/callbacks/{token}",
    operationId: "answerCallback",
    summary: "Answer a pending call through its callback URL",
    tags: ["runs"],
    // No gateway credentials: the token is checked before the handler runs (401 forged, 410 expired).
    ...routeAccess("callback-token"),
    description: "The token from a pending call's `callbackUrl` is the only credential. Answer once with `result` (or `error`); the same body again is a duplicate.",
    request: { params: TokenParam, ...jsonBody(CallbackBody) },
    responses: {
      200: jsonContent(z.object({ success: z.literal(true), agentEntityId: z.string(), duplicate: z.literal(true).optional() }), "Accepted (or the same answer again)"),
      400: jsonContent(ErrorResponse, "Invalid body"),
      401: jsonContent(ErrorResponse, "Not a valid callback token"),
      404: jsonContent(ErrorResponse, "The call no longer exists"),
      409: jsonContent(ErrorResponse, "Already answered differently"),
      410: jsonContent(ErrorResponse, "The callback URL or the call expired"),
      422: jsonContent(ErrorResponse, "The answer does not fit the call"),
      503: jsonContent(ErrorResponse, "The agent could not take it; nothing changed (retry)"),
    },
  }),
  async (c) => {
    const { callId } = c.get("caller");
    const call = await getPendingCall(getDatabase(c.env.DB), callId);
    if (!call) throw new ApiError(404, "not_found", "The call this callback URL answers no longer exists");
    return c.json(await answerPendingCall(c, call, submissionOf(c.req.valid("json"))), 200);
  },
);
