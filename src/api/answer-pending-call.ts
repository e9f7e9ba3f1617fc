/**
 * The HTTP side of answering a pending call, shared by the result route and
 * callback URLs: a call that already settled answers at once; otherwise its
 * agent's object (the one owner of its transitions) decides. If that
 * hand-off fails, the answer says whether the result was accepted anyway (D1
 * has it: it will reach the agent) or nothing changed.
 */
import { agentStub } from "../agents/agent-stub";
import { canonicalJson } from "../canonical-json";
import { getDatabase } from "../db/client";
import { ApiError } from "../errors";
import { type ExecutedBy, getPendingCall, outcomeResult, type PendingCall, type SubmitAnswer } from "../tools";
import type { ApiContext, ApiEnv } from "./context";

export type Submission = { type: "ok"; value: unknown; meta?: { executedBy: ExecutedBy } } | { type: "error"; message: string; meta?: { executedBy: ExecutedBy } };

/** A body's `result` or `error`, as the outcome it submits; who executed the call rides beside it (the card records it). */
export function submissionOf(body: { result?: unknown; error?: string }, executedBy?: ExecutedBy): Submission {
  const meta = executedBy && { meta: { executedBy } };
  return body.error !== undefined ? { type: "error", message: body.error, ...meta } : { type: "ok", value: body.result === undefined ? null : body.result, ...meta };
}

export async function answerPendingCall<Env extends ApiEnv>(c: ApiContext<Env>, call: PendingCall, submission: Submission) {
  const result = outcomeResult(submission);
  let answer: SubmitAnswer | undefined = settledAnswer(call, result);
  if (!answer) {
    try {
      const principal = c.get("principal");
      // A person or service answering with a token is named on the card; the secret key and callback URLs act as no one.
      const answerer = principal.kind === "entity" ? principal.entityId : undefined;
      answer = await agentStub(c.env, call.agentId).submitToolResult(call, submission, new URL(c.req.url).origin, answerer);
    } catch (error) {
      console.error("the agent could not take a tool result", call.toolCallId, error);
      // Accepted after all if D1 has it (the agent staged it first and will deliver it); otherwise nothing changed.
      const current = await getPendingCall(getDatabase(c.env.DB), call.toolCallId);
      if (current?.status !== "resolved" || canonicalJson(current.result) !== canonicalJson(result)) {
        throw new ApiError(503, "agent_unavailable", "The agent could not take the result right now and nothing changed; send the same request again");
      }
      answer = { kind: "accepted" };
    }
  }
  switch (answer.kind) {
    case "accepted":
      return { success: true as const, agentEntityId: call.agentEntityId };
    case "duplicate":
      return { success: true as const, duplicate: true as const, agentEntityId: call.agentEntityId };
    case "expired":
      throw new ApiError(410, "gone", `Tool call "${call.toolCallId}" expired${answer.expiresAt ? ` at ${answer.expiresAt}` : ""}`);
    case "conflict":
      throw new ApiError(409, "conflict", `Tool call "${call.toolCallId}" was already resolved with a different result`);
    case "invalid":
      throw new ApiError(422, "invalid_answer", answer.message);
    case "invalid_result":
      throw new ApiError(400, "invalid_result", `${answer.message}. Nothing changed: the call still waits for a result that fits`);
  }
}

/** What a call that already settled answers, without asking its agent. */
function settledAnswer(call: PendingCall, result: unknown): SubmitAnswer | undefined {
  if (call.status === "expired") return { kind: "expired", expiresAt: call.expiresAt };
  if (call.status === "resolved") return canonicalJson(call.result) === canonicalJson(result) ? { kind: "duplicate" } : { kind: "conflict" };
  return undefined;
}
