/**
 * The one owner of every PendingToolCall transition (§6): a submitted result,
 * an expiry, a sync wait that timed out, and the recovery of a transition a
 * crash interrupted. It runs inside the agent object, one call at a time per
 * call id, and keeps one rule: an outcome is staged in the object's storage
 * before its D1 transition, and delivered (to the waiting cycle, or to the
 * inbox) in the same storage transaction that unstages it. So D1 never says
 * `resolved` or `expired` for an outcome the agent will not get, and after a
 * crash the alarm finishes what was staged.
 */
import type { WebhookEvent } from "../../protocol/webhook-event";
import { canonicalJson } from "../../canonical-json";
import type { Database } from "../../db/client";
import type { SpacePort } from "../../protocol/space-port";
import { and, eq, isNull } from "drizzle-orm";
import { pendingToolCalls } from "../../db/schema";
import { isMember } from "../../db/spaces";
import type { WaitPolicy } from "../wait-policy-config";
import { messageIdForCall } from "./call-ids";
import { KeyedLock } from "./keyed-lock";
import { getPendingCall, type PendingCall, type PendingCallStatus, transitionPendingCall } from "./pending-calls";
import type { ToolCallPart } from "../../protocol/message";
import { answeredByOnCard } from "./answered-by-on-card";
import { cardPart, settleCard } from "./tool-events";
import { failed, outcomeError, outcomeResult, type ToolOutcome } from "./tool-outcome";

/** A staged outcome whose transition did not show up in D1 this long after is dropped (it never happened). */
export const stagedGraceMs = 30_000;

export type SubmitAnswer =
  | { kind: "accepted" }
  | { kind: "duplicate" }
  | { kind: "conflict" }
  | { kind: "expired"; expiresAt: string | null }
  /** The answer does not fit the call (e.g. an approval with arguments the tool refuses): nothing changed. */
  | { kind: "invalid"; message: string }
  /** The result does not match the tool's `resultSchema`: nothing changed. */
  | { kind: "invalid_result"; message: string };

/** The wait ended with an outcome, or goes on (escalated) until `deadline`, with the card now in `card`. */
export type TimeoutResult = { outcome: ToolOutcome } | { escalated: true; deadline: number; card?: { spaceId: string; messageId: string } };

/** What the owner needs of the agent object (implemented there). */
export type PendingCallHost = {
  database(): Database;
  /** The space a call's card is in. */
  space(spaceId: string): SpacePort;
  transaction<T>(work: () => T): T;
  stage(toolCallId: string, outcome: ToolOutcome): void;
  unstage(toolCallId: string): void;
  staged(): { toolCallId: string; outcome: ToolOutcome; stagedAt: number }[];
  /** Makes sure the alarm comes back to settle `toolCallId` by `at` if nothing else does. */
  armReconcile(toolCallId: string, at: number): Promise<void>;
  disarmReconcile(toolCallId: string): void;
  /** The outcome a cycle already recorded for the call (its journal), if any. */
  recordedOutcome(toolCallId: string): ToolOutcome | undefined;
  /** Hands an outcome to the cycle that has the call open (journal, then its live waiter); false when none has. */
  deliverToCycle(toolCallId: string, outcome: ToolOutcome): boolean;
  /** Queues a `tool_result` event (idempotent by call id). */
  deliverToInbox(call: PendingCall, outcome: ToolOutcome): void;
  /** Why an answer does not fit its call (checked before anything changes), or undefined. */
  checkAnswer(call: PendingCall, outcome: ToolOutcome): Promise<Extract<SubmitAnswer, { kind: "invalid" | "invalid_result" }> | undefined>;
  /** The agent stream. */
  publish(type: string, data: Record<string, unknown>): void;
  /** Pushes an event to webhook subscriptions (the agent's, and those of `spaceIds`). */
  notify(event: WebhookEvent, spaceIds: readonly string[]): void;
  /** A signed URL that answers the call with one POST. */
  callbackUrl(pendingId: string, expiresAt: string | null): Promise<string>;
};

type Settled = { status: "resolved" | "expired"; result: unknown; expiresAt: string | null };

export class PendingCallOwner {
  readonly #locks = new KeyedLock();
  /** Calls this instance saw settle: later submissions are answered without D1. */
  readonly #settled = new Map<string, Settled>();

  constructor(private readonly host: PendingCallHost) {}

  /**
   * A result (or a reported failure) for a call; the route already checked
   * who may answer. D1 keeps what the model sees: the value, or `{error}`.
   * `answerer`: the entity that answered with a token (its card says so).
   */
  submit(call: PendingCall, outcome: Extract<ToolOutcome, { type: "ok" | "error" }>, answerer?: string): Promise<SubmitAnswer> {
    const result = outcomeResult(outcome);
    return this.#locks.run(call.toolCallId, async () => {
      const known = this.#settled.get(call.toolCallId) ?? settledOf(call);
      if (known) return answerFor(known, result);
      if (call.expiresAt && Date.parse(call.expiresAt) <= Date.now()) {
        await this.#expire(call);
        return answerFor(this.#settled.get(call.toolCallId) ?? (await this.#current(call.toolCallId)), result);
      }
      const refused = await this.host.checkAnswer(call, outcome);
      if (refused !== undefined) return refused;
      await this.#stage(call.toolCallId, outcome);
      const won = await transitionPendingCall(this.host.database(), call.toolCallId, ["waiting", "pending"], "resolved", { result });
      if (!won) {
        this.host.unstage(call.toolCallId);
        this.host.disarmReconcile(call.toolCallId);
        return answerFor(await this.#current(call.toolCallId), result);
      }
      await this.#finish(won, outcome, undefined, answerer ? { answerer } : {});
      return { kind: "accepted" };
    });
  }

  /** The outcome already delivered to the cycle for a call, if any (a wait continued after a restart takes it at once). */
  recorded(pendingId: string): ToolOutcome | undefined {
    return this.host.recordedOutcome(pendingId);
  }

  /**
   * An operator cancels a call: it settles as cancelled (a later answer
   * conflicts), its card shows it, and the agent gets the cancellation as a
   * tool error. Returns false when the call had already settled.
   */
  cancel(toolCallId: string, reason: string): Promise<boolean> {
    return this.#locks.run(toolCallId, async () => {
      const call = await getPendingCall(this.host.database(), toolCallId);
      if (!call || settledOf(call) || this.#settled.has(toolCallId)) return false;
      const result = { cancelled: true, reason };
      const outcome = failed(`"${call.toolName}" was cancelled by an operator: ${reason}`);
      await this.#stage(toolCallId, outcome);
      const won = await transitionPendingCall(this.host.database(), toolCallId, ["waiting", "pending"], "resolved", { result });
      if (!won) {
        this.host.unstage(toolCallId);
        this.host.disarmReconcile(toolCallId);
        return false;
      }
      await this.#finish(won, outcome);
      return true;
    });
  }

  /** Expires a call whose `expiresAt` has passed; false if it was already settled. */
  expire(toolCallId: string): Promise<boolean> {
    return this.#locks.run(toolCallId, async () => {
      if (this.#settled.has(toolCallId)) return false;
      const call = await getPendingCall(this.host.database(), toolCallId);
      if (!call || settledOf(call)) return false;
      return this.#expire(call);
    });
  }

  /**
   * A sync wait ran out of time without an outcome. What happens is the
   * wait's policy: `error` (the call turns `pending`: a late result goes to
   * the inbox; the cycle records the timeout), `deny` or `approve` (the call
   * is settled that way), `escalate` (the card moves on once and the wait
   * starts again). A result that won the race just now stands instead.
   */
  timeOut(pendingId: string, toolName: string, policy: WaitPolicy): Promise<TimeoutResult> {
    return this.#locks.run(pendingId, async () => {
      const recorded = this.host.recordedOutcome(pendingId);
      if (recorded) return { outcome: recorded };
      if (policy.onTimeout === "escalate") {
        const escalated = await this.#escalate(pendingId, policy);
        if (escalated) return escalated;
      }
      if (policy.onTimeout === "deny" || policy.onTimeout === "approve") {
        const call = await getPendingCall(this.host.database(), pendingId);
        if (call && !settledOf(call)) {
          const reason = "No answer in time";
          const result = policy.onTimeout === "approve" ? { approved: true, automatic: true, reason } : call.kind === "approval" ? { approved: false, automatic: true, reason } : { denied: true, reason };
          const outcome: ToolOutcome = call.kind === "approval" || policy.onTimeout === "approve" ? { type: "ok", value: result } : failed(`Nobody answered "${toolName}" within ${policy.timeoutMs}ms, so it was denied`);
          await this.#stage(pendingId, outcome);
          const won = await transitionPendingCall(this.host.database(), pendingId, ["waiting", "pending"], "resolved", { result });
          if (won) await this.#finish(won, outcome, result);
          else {
            this.host.unstage(pendingId);
            this.host.disarmReconcile(pendingId);
          }
        }
        const settled = this.host.recordedOutcome(pendingId);
        if (settled) return { outcome: settled };
      }
      // An approval only ever mattered to the cycle that asked: unanswered, it ends (a late yes must not reach the inbox).
      const open = await getPendingCall(this.host.database(), pendingId);
      if (open?.kind === "approval" && !settledOf(open)) {
        await this.#expire(open, `Nobody answered the approval for "${toolName}" within ${policy.timeoutMs}ms`);
        const settled = this.host.recordedOutcome(pendingId);
        if (settled) return { outcome: settled };
      }
      await transitionPendingCall(this.host.database(), pendingId, ["waiting"], "pending");
      const outcome = failed(`Tool "${toolName}" timed out after ${policy.timeoutMs}ms`, "timeout");
      this.host.deliverToCycle(pendingId, outcome);
      return { outcome: this.host.recordedOutcome(pendingId) ?? outcome };
    });
  }

  /** No cycle waits for a `waiting` call any more (its run ended or failed): it turns `pending`, so a late result goes to the inbox (an approval expires instead). */
  release(toolCallId: string): Promise<void> {
    return this.#locks.run(toolCallId, async () => {
      const call = await getPendingCall(this.host.database(), toolCallId);
      // An approval answers only the cycle that asked for it: with no cycle waiting, it ends.
      if (call?.kind === "approval" && !settledOf(call)) {
        await this.#expire(call, `The approval for "${call.toolName}" ended: no cycle waits for it any more`);
        return;
      }
      await transitionPendingCall(this.host.database(), toolCallId, ["waiting"], "pending");
    });
  }

  /** After a restart (from the alarm): finishes every staged transition that reached D1, drops those that never will. */
  async reconcile(now = Date.now()): Promise<void> {
    for (const staged of this.host.staged()) {
      await this.#locks.run(staged.toolCallId, async () => {
        const call = await getPendingCall(this.host.database(), staged.toolCallId);
        const landed =
          call &&
          ((staged.outcome.type === "expired" && call.status === "expired") ||
            (staged.outcome.type !== "expired" && call.status === "resolved" && canonicalJson(call.result) === canonicalJson(outcomeResult(staged.outcome))));
        if (call && landed) return this.#finish(call, staged.outcome);
        if (call && (call.status === "waiting" || call.status === "pending") && now - staged.stagedAt < stagedGraceMs) {
          // The request that staged it may still be on its way to D1: look again later.
          return this.host.armReconcile(staged.toolCallId, staged.stagedAt + stagedGraceMs);
        }
        this.host.unstage(staged.toolCallId);
        this.host.disarmReconcile(staged.toolCallId);
      });
    }
  }

  async #expire(call: PendingCall, reason?: string): Promise<boolean> {
    const error = reason ?? `Tool "${call.toolName}" expired at ${call.expiresAt ?? new Date().toISOString()} without a result`;
    const outcome: ToolOutcome = { type: "expired", message: error };
    await this.#stage(call.toolCallId, outcome);
    const won = await transitionPendingCall(this.host.database(), call.toolCallId, ["waiting", "pending"], "expired");
    if (!won) {
      this.host.unstage(call.toolCallId);
      this.host.disarmReconcile(call.toolCallId);
      return false;
    }
    await this.#finish(won, outcome, undefined, { expiredAt: new Date().toISOString() });
    return true;
  }

  async #stage(toolCallId: string, outcome: ToolOutcome): Promise<void> {
    this.host.stage(toolCallId, outcome);
    await this.host.armReconcile(toolCallId, Date.now() + stagedGraceMs / 3);
  }

  /**
   * Moves an unanswered card on (once): to `escalateTo.spaceId` (a space the
   * agent belongs to) or again in its own space, mentioning
   * `escalateTo.mentions`. Members of the new space may answer from then on.
   */
  async #escalate(pendingId: string, policy: WaitPolicy): Promise<Extract<TimeoutResult, { escalated: true }> | undefined> {
    const database = this.host.database();
    const call = await getPendingCall(database, pendingId);
    if (!call || call.status !== "waiting") return undefined;
    if (call.escalatedAt) {
      // Escalated before (the wait was continued after a restart): it goes on for the time the escalation gave it.
      const deadline = Date.parse(call.escalatedAt) + policy.timeoutMs;
      return deadline > Date.now() ? { escalated: true, deadline, ...(call.spaceId && call.messageId && { card: { spaceId: call.spaceId, messageId: call.messageId } }) } : undefined;
    }
    const target = policy.escalateTo?.spaceId ?? call.spaceId ?? undefined;
    if (!target) return undefined;
    if (target !== call.spaceId && !(await isMember(database, target, call.agentEntityId))) {
      console.error("cannot escalate to a space the agent is not in", pendingId, target);
      return undefined;
    }
    const minimal = call.displayMode === "minimal";
    const card = { spaceId: target, minimal };
    const message = await this.host.space(target).postMessage({
      id: `${call.messageId ?? messageIdForCall(pendingId)}_escalated`,
      entityId: call.agentEntityId,
      role: "tool",
      parts: [
        {
          ...cardPart(card, { toolCallId: pendingId, toolName: call.toolName, args: call.args, runId: call.runId }, "requires_action"),
          ...(call.kind === "approval" && { kind: "approval" as const, approves: `call_${pendingId.replace(/^apr_/, "")}` }),
          ...answeredByOnCard(call.answeredBy, call.initiatorEntityId),
          ...(call.spaceId && { escalatedFrom: call.spaceId }),
        },
      ],
      status: "requires_action",
      ...(policy.escalateTo?.mentions && { mentions: policy.escalateTo.mentions }),
    });
    const moved = await database
      .update(pendingToolCalls)
      .set({ spaceId: target, messageId: message.id, escalatedAt: new Date().toISOString(), updatedAt: new Date().toISOString() })
      .where(and(eq(pendingToolCalls.toolCallId, pendingId), eq(pendingToolCalls.status, "waiting"), isNull(pendingToolCalls.escalatedAt)))
      .returning({ id: pendingToolCalls.toolCallId })
      .get();
    if (!moved) return undefined;
    if (call.spaceId && call.messageId) {
      await settleCard(this.host.space(call.spaceId), { spaceId: call.spaceId, messageId: call.messageId, minimal }, { toolCallId: pendingId, toolName: call.toolName, args: call.args }, { error: `Nobody answered in time; moved to space ${target}` }, undefined, { escalatedTo: target }).catch((error: unknown) => console.error("could not close the escalated card", pendingId, error));
    }
    this.host.notify(
      {
        id: `evt_${pendingId}_escalated`,
        type: "call.awaiting_input",
        timestamp: new Date().toISOString(),
        data: {
          agentId: call.agentId,
          kind: call.kind,
          runId: call.runId,
          toolCallId: pendingId,
          toolName: call.toolName,
          executionType: call.executionType,
          args: call.args,
          status: "waiting",
          spaceId: target,
          messageId: message.id,
          escalated: true,
          escalatedFrom: call.spaceId,
          ...(call.expiresAt && { expiresAt: call.expiresAt }),
          resultUrl: `/api/runs/${call.runId}/tool-results`,
          callbackUrl: await this.host.callbackUrl(pendingId, call.expiresAt),
        },
      },
      [target],
    );
    this.host.publish("tool.escalated", { toolCallId: pendingId, toolName: call.toolName, from: call.spaceId, to: target, messageId: message.id, ...(policy.escalateTo?.mentions && { mentions: policy.escalateTo.mentions }) });
    return { escalated: true, deadline: Date.now() + policy.timeoutMs, card: { spaceId: target, messageId: message.id } };
  }

  /** The transition won: the card shows it first (with `changes`: who answered, when it expired), then the agent gets it, and the stage is cleared with the delivery. */
  async #finish(call: PendingCall, outcome: ToolOutcome, shown?: unknown, changes: Partial<ToolCallPart> = {}): Promise<void> {
    this.#remember(call, outcome, shown);
    if (call.spaceId && call.messageId) {
      const error = shown === undefined ? outcomeError(outcome) : undefined;
      try {
        await settleCard(
          this.host.space(call.spaceId),
          { spaceId: call.spaceId, messageId: call.messageId, minimal: call.displayMode === "minimal" },
          { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args },
          error !== undefined ? { error } : { result: shown ?? (outcome.type === "ok" ? outcome.value : null) },
          undefined,
          changes,
        );
      } catch (cardError) {
        // The card is display; the agent gets its outcome regardless.
        console.error("could not settle the tool card", call.toolCallId, cardError);
      }
    }
    this.host.transaction(() => {
      // Queued with the delivery: an expiry reported once it happened, even if the object dies right after.
      if (outcome.type === "expired") this.host.notify(expiredEvent(call, outcome.message), call.spaceId ? [call.spaceId] : []);
      if (!this.host.deliverToCycle(call.toolCallId, outcome)) this.host.deliverToInbox(call, outcome);
      this.host.unstage(call.toolCallId);
      this.host.disarmReconcile(call.toolCallId);
    });
  }

  #remember(call: PendingCall, outcome: ToolOutcome, shown?: unknown): void {
    this.#settled.set(call.toolCallId, {
      status: outcome.type === "expired" ? "expired" : "resolved",
      result: outcome.type === "expired" ? null : (shown ?? outcomeResult(outcome)),
      expiresAt: call.expiresAt,
    });
    // A bounded memory: the oldest entries go first.
    if (this.#settled.size > 2_000) this.#settled.delete(this.#settled.keys().next().value as string);
  }

  async #current(toolCallId: string): Promise<Settled | undefined> {
    const call = await getPendingCall(this.host.database(), toolCallId);
    return call ? settledOf(call) : undefined;
  }
}

/** `call.expired` for webhook subscriptions. */
function expiredEvent(call: PendingCall, error: string): WebhookEvent {
  return {
    id: `evt_${call.toolCallId}_expired`,
    type: "call.expired",
    timestamp: new Date().toISOString(),
    data: {
      agentId: call.agentId,
      kind: call.kind,
      runId: call.runId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      executionType: call.executionType,
      expiresAt: call.expiresAt,
      error,
      ...(call.spaceId && { spaceId: call.spaceId, messageId: call.messageId }),
    },
  };
}

function settledOf(call: { status: PendingCallStatus | string; result: unknown; expiresAt: string | null }): Settled | undefined {
  if (call.status === "resolved") return { status: "resolved", result: call.result, expiresAt: call.expiresAt };
  if (call.status === "expired") return { status: "expired", result: null, expiresAt: call.expiresAt };
  return undefined;
}

function answerFor(settled: Settled | undefined, result: unknown): SubmitAnswer {
  // Neither settled nor open: a transition this instance cannot see is in flight; the caller may retry.
  if (!settled) return { kind: "conflict" };
  if (settled.status === "expired") return { kind: "expired", expiresAt: settled.expiresAt };
  return canonicalJson(settled.result) === canonicalJson(result) ? { kind: "duplicate" } : { kind: "conflict" };
}
