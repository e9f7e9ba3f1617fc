/**
 * External and space calls: a PendingToolCall is written to D1 before
 * the call is announced; `isAsync` returns pending at once, otherwise the
 * cycle waits up to `timeout` for the pending-call owner to hand it an
 * outcome. On timeout the call flips to `pending` (a late result reaches the
 * inbox) and the model gets the error `Tool "NAME" timed out after Nms`.
 *
 * Done again after a restart, the call keeps its id: the row is found, not
 * written twice; an announcement already made (agent stream, webhook) is not
 * made again; a sync wait continues for the time it had left.
 */
import type { JournalAccess, PlatformAccess, RunIdentity, RuntimeAccess, SpaceAccess, StreamAccess } from "./tool-context";
import type { AnsweredBy, WaitPolicy } from "../config/wait-policy-config";
import { awaitOutcome } from "./await-outcome";
import { createPendingCall } from "./pending-calls";
import type { ToolCard } from "./tool-events";
import type { ToolOutcome } from "./tool-outcome";
import { waitSpan } from "../../telemetry/gen-ai-spans";
import { noopSpan, type Span } from "../../telemetry/tracer";

/** How a pending call waits: the tool's `isAsync`, `timeout`, `execution.expiresIn` and webhook. */
export type PendingSettings = {
  executionType: string;
  isAsync: boolean;
  timeoutMs: number;
  expiresIn?: number;
  webhook?: string;
  /**
   * Hands the call to whoever answers it (a sub-agent's inbox), once: after
   * the row exists, before the wait. An outcome returned here ends the call.
   */
  handOff?(): Promise<ToolOutcome | undefined>;
  /** What happens when nobody answers a sync call in time (`onTimeout`, `escalateTo`, `reminders`). */
  policy?: Partial<Omit<WaitPolicy, "timeoutMs">>;
  /** Who may answer a `space` call. */
  answeredBy?: AnsweredBy;
};

/** What a call that waits on someone touches: its run, D1, the card's space, the journal, the agent stream and the runtime. */
export type PendingCallContext = RunIdentity & PlatformAccess & SpaceAccess & JournalAccess & StreamAccess & RuntimeAccess;

export async function runPendingCall(
  context: PendingCallContext,
  settings: PendingSettings,
  call: { toolCallId: string; modelToolCallId: string; toolName: string; args: unknown; abortSignal?: AbortSignal; span?: Span },
  card: (ToolCard & { messageId: string }) | undefined,
): Promise<ToolOutcome> {
  const previous = context.journal.previous(call.toolCallId);
  const startedAt = previous?.startedAt ?? Date.now();
  const status = settings.isAsync ? "pending" : "waiting";
  const expiresIn = settings.expiresIn;
  const expiresAt = expiresIn ? new Date(startedAt + expiresIn).toISOString() : undefined;
  const timeoutMs = settings.timeoutMs;
  const runtime = context.toolRuntime;

  await createPendingCall(context.database, {
    toolCallId: call.toolCallId,
    modelToolCallId: call.modelToolCallId,
    runId: context.runId,
    agentId: context.agent.agentId,
    agentEntityId: context.agent.entityId,
    toolName: call.toolName,
    executionType: settings.executionType,
    args: call.args,
    status,
    spaceId: card?.spaceId,
    messageId: card?.messageId,
    displayMode: card?.minimal ? "minimal" : undefined,
    expiresAt,
    ...(settings.answeredBy && { answeredBy: settings.answeredBy }),
    ...(context.initiatorEntityId && { initiatorEntityId: context.initiatorEntityId }),
    // Kept with the call: the run its answer wakes, if its cycle is gone by then, links to this span.
    ...(call.span?.traceparent !== undefined && { traceparent: call.span.traceparent }),
  });
  if (expiresAt) runtime.deadlines.set({ id: `expiry:${call.toolCallId}`, kind: "call_expiry", dueAt: Date.parse(expiresAt), payload: { toolCallId: call.toolCallId } });

  if (!previous?.announced) {
    const announcement = {
      runId: context.runId,
      toolCallId: call.toolCallId,
      modelToolCallId: call.modelToolCallId,
      toolName: call.toolName,
      executionType: settings.executionType,
      args: call.args,
      status,
      ...(expiresAt && { expiresAt }),
      ...(card && { spaceId: card.spaceId, messageId: card.messageId }),
      resultUrl: `/api/runs/${context.runId}/tool-results`,
      callbackUrl: await context.callbackUrl(call.toolCallId, expiresAt),
    };
    context.publish("tool.pending", announcement);
    // A sub-agent's task waits on an agent, not on a person or a service: no `call.awaiting_input`.
    if (!settings.handOff) {
      runtime.outbox.notify(
        {
          id: `evt_${call.toolCallId}_awaiting_input`,
          type: "call.awaiting_input",
          timestamp: new Date().toISOString(),
          data: { agentId: context.agent.agentId, kind: "call", ...announcement },
        },
        card ? [card.spaceId] : [],
      );
    }
    const webhook = settings.webhook;
    // The webhook's first attempt arms its retry deadline in this same turn: announced once, delivered at least once.
    if (webhook)
      runtime.outbox.sendWebhook(
        call.toolCallId,
        webhook,
        JSON.stringify({ type: "tool.call", agentId: context.agent.agentId, ...announcement }),
        expiresAt ? Date.parse(expiresAt) : undefined,
        call.span?.traceparent,
      );
    const handedOff = await settings.handOff?.();
    if (handedOff) return handedOff;
    context.journal.markAnnounced(call.toolCallId);
  }

  if (status === "pending") return { type: "pending", callId: call.toolCallId };

  const span = waitSpan("pending_call", call.toolCallId, { "switchboard.tool.execution_type": settings.executionType });
  const wait = (call.span ?? noopSpan).child(span.name, { attributes: span.attributes });
  const outcome = await awaitOutcome(context, {
    pendingId: call.toolCallId,
    toolName: call.toolName,
    startedAt,
    policy: { timeoutMs, onTimeout: settings.policy?.onTimeout ?? "error", escalateTo: settings.policy?.escalateTo, reminders: settings.policy?.reminders },
    card,
    abortSignal: call.abortSignal,
  }).finally(() => wait.end());
  wait.setAttributes({ "switchboard.wait.outcome": outcome.type });
  return outcome;
}
