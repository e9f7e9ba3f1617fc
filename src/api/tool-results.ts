/**
 * `POST /api/runs/:runId/tool-results {callId, result}` (§6). The D1 status
 * transition decides the one winner among racing submissions; the agent
 * object then hands the result to a waiting cycle or to the inbox, and a
 * visible call's card moves to `complete`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { agentStub } from "../agents/agent-stub";
import { getDatabase } from "../db/client";
import { isMember } from "../db/spaces";
import { ApiError, forbidden } from "../errors";
import { getPendingCall, type PendingCall, transitionPendingCall } from "../tools/engine/pending-calls";
import { resultError } from "../tools/engine/cap-result";
import { spaceStub } from "../spaces/space-stub";
import { settleCard } from "../tools/engine/tool-events";
import { createRouter, type ApiContext } from "./context";
import { ErrorResponse, jsonBody, jsonContent, RunIdParam, writeErrorResponses } from "./schemas";

const SubmitResult = z
  .object({
    callId: z.string().min(1).max(200),
    result: z.unknown().openapi({ description: "Any JSON value: what the tool returns to the agent" }),
  })
  .strict()
  .openapi("SubmitToolResult");

const Accepted = z
  .object({ success: z.literal(true), agentEntityId: z.string(), duplicate: z.literal(true).optional() })
  .openapi("ToolResultAccepted");

/** Stable JSON for comparing a resubmitted result with the stored one. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

async function authorize(c: ApiContext, call: PendingCall): Promise<void> {
  const principal = c.get("principal");
  if (principal.kind === "secret") return;
  if (!call.spaceId) throw forbidden("This call is not shown in a space; only the secret key can answer it");
  if (!(await isMember(getDatabase(c.env.DB), call.spaceId, principal.entityId))) {
    throw forbidden(`Entity "${principal.entityId}" is not a member of the space this call is shown in`);
  }
}

function answerForResolved(call: PendingCall, result: unknown, agentEntityId: string) {
  if (call.status === "expired") throw new ApiError(410, "gone", `Tool call "${call.toolCallId}" expired${call.expiresAt ? ` at ${call.expiresAt}` : ""}`);
  if (canonical(call.result) === canonical(result)) return { success: true as const, duplicate: true as const, agentEntityId };
  throw new ApiError(409, "conflict", `Tool call "${call.toolCallId}" was already resolved with a different result`);
}

export const toolResultRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/api/runs/{runId}/tool-results",
    tags: ["runs"],
    description: "Submit the result of a pending tool call. Secret key, or the JWT of a member of the space the call is shown in.",
    request: { params: RunIdParam, ...jsonBody(SubmitResult) },
    responses: {
      200: jsonContent(Accepted, "Accepted (or the same result again: duplicate)"),
      ...writeErrorResponses,
      410: jsonContent(ErrorResponse, "The call expired"),
    },
  }),
  async (c) => {
    const { runId } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = body.result === undefined ? null : body.result;
    const database = getDatabase(c.env.DB);
    const call = await getPendingCall(database, body.callId);
    if (!call) throw new ApiError(404, "not_found", `Tool call "${body.callId}" not found`);
    if (call.runId !== runId) throw forbidden(`Tool call "${body.callId}" belongs to another run`);
    await authorize(c, call);
    if (call.status === "resolved" || call.status === "expired") return c.json(answerForResolved(call, result, call.agentEntityId), 200);
    if (call.expiresAt && Date.parse(call.expiresAt) <= Date.now()) {
      // Past its expiry even if no timer has fired yet (the alarm waits while a cycle runs): expire it now.
      await agentStub(c.env, call.agentId).expireToolCall(call.agentId, call.toolCallId);
      const current = await getPendingCall(database, call.toolCallId);
      if (current?.status === "expired") throw new ApiError(410, "gone", `Tool call "${call.toolCallId}" expired at ${call.expiresAt}`);
      if (current) return c.json(answerForResolved(current, result, call.agentEntityId), 200);
    }

    // Exactly one submission wins each transition; the losers see the winner's result.
    // Try the status just read first (a waiting call may turn pending meanwhile, on timeout).
    const order: ("waiting" | "pending")[] = call.status === "pending" ? ["pending", "waiting"] : ["waiting", "pending"];
    let previousStatus = order[0];
    let won = await transitionPendingCall(database, call.toolCallId, [order[0]], "resolved", { result });
    if (!won) {
      previousStatus = order[1];
      won = await transitionPendingCall(database, call.toolCallId, [order[1]], "resolved", { result });
    }
    if (!won) {
      const current = await getPendingCall(database, call.toolCallId);
      if (!current) throw new ApiError(404, "not_found", `Tool call "${body.callId}" not found`);
      return c.json(answerForResolved(current, result, call.agentEntityId), 200);
    }
    // The card completes before the agent hears: on the space stream, `tool.done`
    // comes before anything the agent does with the result.
    if (call.spaceId && call.messageId) {
      const error = resultError(result);
      try {
        await settleCard(
          spaceStub(c.env, call.spaceId),
          { spaceId: call.spaceId, messageId: call.messageId, minimal: call.displayMode === "minimal" },
          { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args },
          error !== undefined ? { error } : { result },
        );
      } catch (cardError) {
        // The card is display; the agent must get its result regardless.
        console.error("could not settle the tool card", call.toolCallId, cardError);
      }
    }
    await agentStub(c.env, call.agentId).settleToolCall(call.agentId, {
      toolCallId: call.toolCallId,
      runId: call.runId,
      toolName: call.toolName,
      previousStatus,
      result,
    });
    return c.json({ success: true as const, agentEntityId: call.agentEntityId }, 200);
  },
);
