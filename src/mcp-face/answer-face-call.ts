/**
 * answer_call, approve_call and deny_call: the result routes' path
 * (`POST /api/spaces/:spaceId/tool-results`, `POST /api/runs/:runId/tool-results`),
 * taken as it is: the call read, a call outside the endpoint's space (or
 * agent) not found, `mayAnswer` (403 with the route's reason), then
 * `answerPendingCall` (the agent's object decides; a result that does not
 * fit the tool's `resultSchema` is refused and nothing changes). What this
 * adds is the kind: an approval is answered only with approve/deny, a call
 * only with a result, so neither can be mistaken for the other.
 */
import { answerPendingCall, type Submission } from "../api/answer-pending-call";
import { mayAnswer } from "../api/who-may-answer";
import { getDatabase } from "../db/client";
import { ApiError, forbidden } from "../errors";
import { getPendingCall, type PendingCall } from "../tools";
import type { FaceContext } from "./face-context";

export type CallKind = PendingCall["kind"];

function inScope(context: FaceContext, call: PendingCall): boolean {
  return context.face.kind === "space" ? call.spaceId === context.face.spaceId : call.agentId === context.face.agentId;
}

export async function answerFaceCall(context: FaceContext, callId: string, kind: CallKind, submission: Submission) {
  const call = await getPendingCall(getDatabase(context.c.env.DB), callId);
  // Out of scope first, as the space's result route does: no id of another space (or agent) is confirmed here.
  const where = context.face.kind === "space" ? `space "${context.face.spaceId}"` : `agent "${context.face.agentId}"`;
  if (!call || !inScope(context, call)) throw new ApiError(404, "not_found", `Tool call "${callId}" not found in ${where}`);
  const permission = await mayAnswer(context.c.env, context.caller, call, callId);
  if (!permission.ok) throw forbidden(permission.reason);
  if (call.kind !== kind) {
    throw new ApiError(
      422,
      "invalid_answer",
      kind === "approval" ? `"${callId}" is a tool call, not an approval: answer it with answer_call` : `"${callId}" is an approval: answer it with approve_call or deny_call`,
    );
  }
  return answerPendingCall(context.c, call, submission);
}
