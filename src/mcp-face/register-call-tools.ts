/**
 * The tools both endpoints share for calls that wait on someone:
 * `list_waiting_calls`, `answer_call`, `approve_call`, `deny_call`. Their
 * limits are the result route's (a call id up to 200 characters, an error up
 * to 10,000, a reason up to 2,000); what they may touch is the endpoint's
 * (its space, or its agent) and the caller's (`mayAnswer`).
 */
import { z } from "zod";
import { submissionOf } from "../api/answer-pending-call";
import { answerFaceCall } from "./answer-face-call";
import type { FaceContext } from "./face-context";
import type { FaceServer } from "./face-server";
import { listWaitingCalls } from "./list-waiting-calls";
import { answering, toolAnswer } from "./tool-answer";

const CallId = z.string().min(1).max(200).describe("The gateway's toolCallId of the call (list_waiting_calls gives it)");

export function registerCallTools(server: FaceServer, context: FaceContext): void {
  const scope = context.face.kind === "space" ? { spaceId: context.face.spaceId } : { agentId: context.face.agentId };
  const where = context.face.kind === "space" ? "in this space" : "of this agent";

  server.tool(
    "list_waiting_calls",
    {
      description: `The tool calls and approvals ${where} that wait for an answer you may give, oldest first (at most 100), each with what its answer must fit.`,
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: true },
    },
    () =>
      answering(async () => {
        const listed = await listWaitingCalls(context, scope);
        return toolAnswer(listed, `${listed.calls.length} call(s) wait for you${listed.truncated ? " (more are waiting: answer these first)" : ""}.`);
      }),
  );

  server.tool(
    "answer_call",
    {
      description: `Give the result of a tool call ${where} that waits for one (not an approval). A result that does not fit the tool's resultSchema is refused and nothing changes; the same result again is a duplicate; a different one for a settled call is a conflict.`,
      inputSchema: z
        .strictObject({
          callId: CallId,
          result: z.unknown().optional().describe("Any JSON value: what the tool returns to the agent"),
          error: z.string().min(1).max(10_000).optional().describe("Instead of result: the call failed, with this message"),
        })
        .refine((input) => input.error === undefined || input.result === undefined, { path: ["error"], message: "Give either result or error, not both" }),
    },
    (input) =>
      answering(async () => {
        const answer = await answerFaceCall(context, input.callId, "call", submissionOf(input));
        return toolAnswer(answer, answer.duplicate ? "The same result was already given." : "Answered: the agent goes on with it.");
      }),
  );

  server.tool(
    "approve_call",
    {
      description: `Approve a tool call ${where} that waits for a person's yes before it runs; optionally with edited arguments (they must fit the tool's schema).`,
      inputSchema: z.strictObject({
        callId: CallId.describe("The approval's toolCallId (list_waiting_calls gives it)"),
        args: z.record(z.string(), z.unknown()).optional().describe("Edited arguments the tool runs with instead of the agent's"),
        reason: z.string().min(1).max(2_000).optional(),
      }),
    },
    (input) =>
      answering(async () => {
        const result = { approved: true, ...(input.args && { args: input.args }), ...(input.reason && { reason: input.reason }) };
        const answer = await answerFaceCall(context, input.callId, "approval", { type: "ok", value: result });
        return toolAnswer(answer, answer.duplicate ? "Already approved." : "Approved: the tool runs.");
      }),
  );

  server.tool(
    "deny_call",
    {
      description: `Deny a tool call ${where} that waits for a person's yes before it runs: it does not run, and the agent hears why.`,
      inputSchema: z.strictObject({
        callId: CallId.describe("The approval's toolCallId (list_waiting_calls gives it)"),
        reason: z.string().min(1).max(2_000).optional().describe("Why, for the agent"),
      }),
    },
    (input) =>
      answering(async () => {
        const result = { approved: false, ...(input.reason && { reason: input.reason }) };
        const answer = await answerFaceCall(context, input.callId, "approval", { type: "ok", value: result });
        return toolAnswer(answer, answer.duplicate ? "Already denied." : "Denied: the tool does not run.");
      }),
  );
}
