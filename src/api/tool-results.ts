/**
 * `POST /api/runs/:runId/tool-results {callId, result}` (§6). The route keeps
 * only who may answer and the HTTP mapping; the transition itself belongs to
 * the agent's object (the pending-call owner): it stages the outcome, wins or
 * loses the D1 transition, moves the card and delivers to the waiting cycle
 * or the inbox. If the hand-off fails, the answer says whether the result
 * was accepted anyway (D1 has it: it will reach the agent) or nothing changed.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { agentStub } from "../agents/agent-stub";
import { canonicalJson } from "../canonical-json";
import { getDatabase } from "../db/client";
import { isMember } from "../db/spaces";
import { ApiError, forbidden } from "../errors";
import { getPendingCall, type PendingCall } from "../tools/engine/pending-calls";
import type { SubmitAnswer } from "../tools/engine/pending-call-owner";
import { outcomeResult } from "../tools/engine/tool-outcome";
import { createRouter, type ApiContext } from "./context";
import { ErrorResponse, jsonBody, jsonContent, RunIdParam, writeErrorResponses } from "./schemas";

const SubmitResult = z
  .object({
    callId: z.string().min(1).max(200).openapi({ description: "The gateway's `toolCallId` of the call (not the model's own id)" }),
    result: z.unknown().optional().openapi({ description: "Any JSON value: what the tool returns to the agent (its fields are never interpreted)" }),
    error: z.string().min(1).max(10_000).optional().openapi({ description: "Instead of `result`: the call failed, with this message (the card shows an error; the model gets a tool error)" }),
  })
  .strict()
  .refine((body) => body.error === undefined || body.result === undefined, { path: ["error"], message: "Give either result or error, not both" })
  .openapi("SubmitToolResult");

const Accepted = z
  .object({ success: z.literal(true), agentEntityId: z.string(), duplicate: z.literal(true).optional() })
  .openapi("ToolResultAccepted");

/** The secret key answers anything; a token only calls shown in a space its entity belongs to. */
async function mayAnswer(c: ApiContext, call: PendingCall | undefined): Promise<boolean> {
  const principal = c.get("principal");
  if (principal.kind === "secret") return true;
  if (!call?.spaceId) return false;
  return isMember(getDatabase(c.env.DB), call.spaceId, principal.entityId);
}

function answer(c: ApiContext, call: PendingCall, outcome: SubmitAnswer) {
  switch (outcome.kind) {
    case "accepted":
      return c.json({ success: true as const, agentEntityId: call.agentEntityId }, 200);
    case "duplicate":
      return c.json({ success: true as const, duplicate: true as const, agentEntityId: call.agentEntityId }, 200);
    case "expired":
      throw new ApiError(410, "gone", `Tool call "${call.toolCallId}" expired${outcome.expiresAt ? ` at ${outcome.expiresAt}` : ""}`);
    case "conflict":
      throw new ApiError(409, "conflict", `Tool call "${call.toolCallId}" was already resolved with a different result`);
  }
}

/** What a call that already settled answers, without asking its agent. */
function settledAnswer(call: PendingCall, result: unknown): SubmitAnswer | undefined {
  if (call.status === "expired") return { kind: "expired", expiresAt: call.expiresAt };
  if (call.status === "resolved") return canonicalJson(call.result) === canonicalJson(result) ? { kind: "duplicate" } : { kind: "conflict" };
  return undefined;
}

export const toolResultRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/api/runs/{runId}/tool-results",
    tags: ["runs"],
    description:
      "Submit the result of a pending tool call. Secret key, or the JWT of a member of the space the call is shown in (a token that may not answer gets 403 whether or not the call exists).",
    request: { params: RunIdParam, ...jsonBody(SubmitResult) },
    responses: {
      200: jsonContent(Accepted, "Accepted (or the same result again: duplicate)"),
      ...writeErrorResponses,
      410: jsonContent(ErrorResponse, "The call expired"),
      503: jsonContent(ErrorResponse, "The agent could not take the result; nothing changed (retry)"),
    },
  }),
  async (c) => {
    const { runId } = c.req.valid("param");
    const body = c.req.valid("json");
    const outcome = body.error !== undefined ? ({ type: "error", message: body.error } as const) : ({ type: "ok", value: body.result === undefined ? null : body.result } as const);
    const result = outcomeResult(outcome);
    const database = getDatabase(c.env.DB);
    const call = await getPendingCall(database, body.callId);
    if (!(await mayAnswer(c, call))) throw forbidden(`This token may not answer tool call "${body.callId}"`);
    if (!call) throw new ApiError(404, "not_found", `Tool call "${body.callId}" not found`);
    if (call.runId !== runId) throw forbidden(`Tool call "${body.callId}" belongs to another run`);
    const settled = settledAnswer(call, result);
    if (settled) return answer(c, call, settled);

    let submitted: SubmitAnswer;
    try {
      submitted = await agentStub(c.env, call.agentId).submitToolResult(call, outcome);
    } catch (error) {
      console.error("the agent could not take a tool result", call.toolCallId, error);
      // Accepted after all if D1 has it (the agent staged it first and will deliver it); otherwise nothing changed.
      const current = await getPendingCall(database, call.toolCallId);
      if (current?.status === "resolved" && canonicalJson(current.result) === canonicalJson(result)) return answer(c, call, { kind: "accepted" });
      throw new ApiError(503, "agent_unavailable", "The agent could not take the result right now and nothing changed; send the same request again");
    }
    return answer(c, call, submitted);
  },
);
