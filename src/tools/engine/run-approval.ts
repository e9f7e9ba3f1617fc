/**
 * Approvals: any tool's call can be put behind a person's yes. The card (in
 * the active space) shows the arguments; a member answers its `toolCallId`
 * (the approval's id) on the result route with `{approved: true, args?}` or
 * `{approved: false, reason?}`; only then does the tool run, with the
 * approved (possibly edited) arguments. A denial — or no answer in time,
 * unless the policy says otherwise — is a tool error the model sees.
 * The approval's id and card come from the call's id, so after a restart the
 * same approval is found, not asked twice.
 */
import { z } from "zod";
import type { JournalAccess, PlatformAccess, RunIdentity, RuntimeAccess, SettingsAccess, SpaceAccess, StreamAccess } from "./tool-context";
import { validateToolArguments } from "./validate-tool-arguments";
import type { ApprovalConfig } from "../config/wait-policy-config";
import { answeredByOnCard } from "./answered-by-on-card";
import { awaitOutcome } from "./await-outcome";
import { messageIdForCall } from "./call-ids";
import { createPendingCall } from "./pending-calls";
import { cardPart } from "./tool-events";

/** What a person answers to an approval. */
export const ApprovalAnswer = z
  .object({
    approved: z.boolean(),
    /** Edited arguments (checked against the tool's schema); the model's own when absent. */
    args: z.record(z.string(), z.unknown()).optional(),
    reason: z.string().max(2_000).optional(),
  })
  .strict();

/** An answer as stored: a person's, or one the timeout policy gave (`automatic`). */
const StoredAnswer = ApprovalAnswer.extend({ automatic: z.boolean().optional() });

export type ApprovalDecision = { approved: true; args: unknown; edited: boolean } | { approved: false; message: string };

export function approvalIdForCall(toolCallId: string): string {
  return `apr_${toolCallId.replace(/^call_/, "")}`;
}

/** Whether this call needs one: always, or when its arguments match `required.when`. */
export function needsApproval(approval: ApprovalConfig | undefined, args: unknown): approval is ApprovalConfig {
  if (!approval) return false;
  return approval.required === true || validateToolArguments(approval.required.when, args).ok;
}

export async function requestApproval(
  context: RunIdentity & PlatformAccess & SettingsAccess & SpaceAccess & JournalAccess & StreamAccess & RuntimeAccess,
  call: {
    toolCallId: string;
    modelToolCallId: string;
    toolName: string;
    args: unknown;
    approval: ApprovalConfig;
    abortSignal?: AbortSignal;
    minimal?: boolean;
    /** The role of the approval card's message: the gated tool's `display.messageRole` (`tool` when absent). */
    role?: "tool" | "assistant";
    /** The gated tool's input schema: edited arguments in the answer are checked against it before it is accepted. */
    argsSchema?: Record<string, unknown>;
  },
): Promise<ApprovalDecision> {
  // Calls the model made before this one in its step (an enter_space) take effect first.
  await context.inputSettled(call.modelToolCallId);
  const spaceId = context.getActiveSpaceId();
  if (!spaceId) return { approved: false, message: `Tool "${call.toolName}" needs a person's approval, but you are not in a space. Call enter_space first.` };
  const approvalId = approvalIdForCall(call.toolCallId);
  const startedAt = context.journal.previous(call.toolCallId)?.startedAt ?? Date.now();
  // A tool whose card is minimal (or hidden) keeps its arguments from public-key clients on its approval card too.
  const card = { spaceId, minimal: call.minimal ?? false };
  const messageId = `${messageIdForCall(call.toolCallId)}_approval`;
  const timeoutMs = call.approval.timeout ?? context.config.limits.toolTimeout;
  const expiresAt = new Date(startedAt + timeoutMs * 2).toISOString();

  await createPendingCall(context.database, {
    toolCallId: approvalId,
    modelToolCallId: call.modelToolCallId,
    runId: context.runId,
    agentId: context.agent.agentId,
    agentEntityId: context.agent.entityId,
    toolName: call.toolName,
    kind: "approval",
    executionType: "approval",
    args: call.args,
    status: "waiting",
    spaceId,
    messageId,
    ...(card.minimal && { displayMode: "minimal" }),
    // Twice the wait, so an escalation fits: an approval nobody settles ends then at the latest.
    expiresAt,
    ...(call.approval.answeredBy && { answeredBy: call.approval.answeredBy }),
    ...(context.initiatorEntityId && { initiatorEntityId: context.initiatorEntityId }),
  });
  context.toolRuntime.deadlines.set({ id: `expiry:${approvalId}`, kind: "call_expiry", dueAt: Date.parse(expiresAt), payload: { toolCallId: approvalId } });
  context.journal.openWait(approvalId, call.argsSchema);
  await context.spaceEvents.track(
    context.spaceEvents.ordered(spaceId).postMessage({
      id: messageId,
      entityId: context.agent.entityId,
      role: call.role ?? "tool",
      parts: [
        {
          ...cardPart(card, { toolCallId: approvalId, toolName: call.toolName, args: call.args, runId: context.runId }, "requires_action"),
          kind: "approval",
          approves: call.toolCallId,
          ...answeredByOnCard(call.approval.answeredBy, context.initiatorEntityId),
        },
      ],
      status: "requires_action",
    }),
  );
  const requested = {
    runId: context.runId,
    approvalId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    spaceId,
    messageId,
    resultUrl: `/api/runs/${context.runId}/tool-results`,
    callbackUrl: await context.callbackUrl(approvalId, expiresAt),
  };
  context.publish("tool.approval.requested", requested);
  context.toolRuntime.outbox.notify(
    {
      id: `evt_${approvalId}_awaiting_input`,
      type: "call.awaiting_input",
      timestamp: new Date().toISOString(),
      // `toolCallId` is the id to answer with (the approval's), as for any pending call; `approves` is the gated call.
      data: {
        agentId: context.agent.agentId,
        kind: "approval",
        ...requested,
        toolCallId: approvalId,
        approves: call.toolCallId,
        executionType: "approval",
        status: "waiting",
        expiresAt,
      },
    },
    [spaceId],
  );

  const outcome = await awaitOutcome(context, {
    pendingId: approvalId,
    toolName: call.toolName,
    startedAt,
    policy: { timeoutMs, onTimeout: call.approval.onTimeout ?? "deny", escalateTo: call.approval.escalateTo, reminders: call.approval.reminders },
    card: { ...card, messageId },
    abortSignal: call.abortSignal,
  });
  if (outcome.type !== "ok") return { approved: false, message: outcome.type === "pending" ? `Tool "${call.toolName}" was not approved` : outcome.message };
  const answer = StoredAnswer.safeParse(outcome.value);
  if (!answer.success) return { approved: false, message: `Tool "${call.toolName}" got an approval it could not read` };
  if (!answer.data.approved) {
    return { approved: false, message: `The call to "${call.toolName}" was denied${answer.data.reason ? `: ${answer.data.reason}` : ""}. It did not run.` };
  }
  return { approved: true, args: answer.data.args ?? call.args, edited: answer.data.args !== undefined };
}
