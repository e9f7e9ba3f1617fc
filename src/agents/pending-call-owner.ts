/**
 * A pending call's whole life, in the agent object, beside its journal: the
 * one owner of every PendingToolCall transition (a submitted result, an
 * expiry, a sync wait that timed out, an operator's cancel, the recovery of a
 * transition a crash interrupted), and the live waiters of the cycle that
 * waits for one. It runs one call at a time per call id and keeps one rule:
 * an outcome is staged in the object's storage before its D1 transition, and
 * delivered (to the cycle's journal, waking its waiter; or to the inbox) in
 * the same storage transaction that unstages it. So D1 never says `resolved`
 * or `expired` for an outcome the agent will not get, and after a crash the
 * alarm finishes what was staged. Tools see it through `PendingCallPort`.
 *
 * A result's path: the route (`api/tool-results.ts`) → `api/answer-pending-call.ts`
 * → the object (`agent-do.ts` `submitToolResult`) → here (`submit`, `#finish`)
 * → the journal (`cycle-journal.ts`) and the live waiter here → the waiting
 * cycle (`tools/engine/await-outcome.ts`): six files.
 */
import type { WebhookEvent } from "../webhooks/webhook-event";
import { canonicalJson } from "../canonical-json";
import type { Database } from "../db/client";
import type { SpacePort } from "../protocol/space-port";
import {
  failed,
  getPendingCall,
  KeyedLock,
  outcomeError,
  outcomeResult,
  type PendingCall,
  type PendingCallPort,
  type PendingCallStatus,
  settleCard,
  type SubmitAnswer,
  type TimeoutResult,
  type ToolOutcome,
  transitionPendingCall,
  type WaitPolicy,
} from "../tools";
import type { ToolCallPart } from "../protocol/message";
import type { AgentStorage } from "./agent-storage";
import { escalateCall } from "./escalate-call";
import type { CycleJournal } from "./cycle-journal";

export type { SubmitAnswer, TimeoutResult };

/** A staged outcome whose transition did not show up in D1 this long after is dropped (it never happened). */
export const stagedGraceMs = 30_000;

/** What the owner needs from outside the object's storage (six members). */
export type PendingCallHost = {
  database(): Database;
  /** The space a call's card is in. */
  space(spaceId: string): SpacePort;
  /** Why an answer does not fit its call (checked before anything changes), or undefined. */
  checkAnswer(call: PendingCall, outcome: ToolOutcome): Promise<Extract<SubmitAnswer, { kind: "invalid" | "invalid_result" }> | undefined>;
  /** The agent stream. */
  publish(type: string, data: Record<string, unknown>): void;
  /** Pushes an event to webhook subscriptions (the agent's, and those of `spaceIds`). */
  notify(event: WebhookEvent, spaceIds: readonly string[]): void;
  /** A signed URL that answers the call with one POST. */
  callbackUrl(pendingId: string, expiresAt: string | null): Promise<string>;
};

/** The object's own parts the owner works on directly (read each time: a deleted agent's storage is replaced). */
export type OwnerParts = {
  storage(): AgentStorage;
  journal(): CycleJournal;
  /** Sets the alarm from what is owed (a reconcile deadline changed), and owes a cycle (an event reached the inbox). */
  scheduler: { schedule(): Promise<void>; owe(): Promise<void> };
};

type Settled = { status: "resolved" | "expired"; result: unknown; expiresAt: string | null };

export class PendingCallOwner implements PendingCallPort {
  readonly #locks = new KeyedLock();
  /** Calls this instance saw settle: later submissions are answered without D1. */
  readonly #settled = new Map<string, Settled>();
  /** The live waiter of each call a cycle waits for here: a wake only says "look now", the outcome is in the journal. */
  readonly #waiters = new Map<string, () => void>();

  constructor(
    private readonly parts: OwnerParts,
    private readonly host: PendingCallHost,
  ) {}

  /** The call's outcome: recorded already, or when it is delivered, or undefined at `until` or on `signal`. */
  async await(pendingId: string, until: number, signal?: AbortSignal): Promise<ToolOutcome | undefined> {
    const recorded = this.#recorded(pendingId);
    if (recorded || Date.now() >= until || signal?.aborted) return recorded;
    await new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", finish);
        if (this.#waiters.get(pendingId) === finish) this.#waiters.delete(pendingId);
        resolve();
      };
      const timer = setTimeout(finish, Math.max(0, until - Date.now()));
      signal?.addEventListener("abort", finish);
      this.#waiters.set(pendingId, finish);
    });
    return this.#recorded(pendingId);
  }

  /** A cycle of this instance waits for the call right now. */
  isAwaited(pendingId: string): boolean {
    return this.#waiters.has(pendingId);
  }

  /** Lets every waiting cycle go (the agent was deleted). */
  wakeAll(): void {
    for (const waiter of [...this.#waiters.values()]) waiter();
  }

  /**
   * A result (or a reported failure) for a call; the route already checked
   * who may answer. D1 keeps what the model sees: the value, or `{error}`.
   * `answerer`: the entity that answered with a token (its card says so);
   * who executed the call, when the answer says (`outcome.meta.executedBy`), goes on the card too.
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
        this.#unstage(call.toolCallId);
        this.#disarmReconcile(call.toolCallId);
        return answerFor(await this.#current(call.toolCallId), result);
      }
      const executedBy = outcome.meta?.executedBy;
      await this.#finish(won, outcome, undefined, { ...(answerer && { answerer }), ...(executedBy && { executedBy }) });
      return { kind: "accepted" };
    });
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
        this.#unstage(toolCallId);
        this.#disarmReconcile(toolCallId);
        return false;
      }
      await this.#finish(won, outcome);
      return true;
    });
  }

  /** Expires a call whose `expiresAt` has passed (`reason`: what the agent is told); false if it was already settled. */
  expire(toolCallId: string, reason?: string): Promise<boolean> {
    return this.#locks.run(toolCallId, async () => {
      if (this.#settled.has(toolCallId)) return false;
      const call = await getPendingCall(this.host.database(), toolCallId);
      if (!call || settledOf(call)) return false;
      return this.#expire(call, reason);
    });
  }

  /**
   * Settles an open call with what `produce` gives (a request the gateway
   * makes for it now, e.g. once a person connected the account it waited
   * for). `produce` runs under the call's lock, and only while the call is
   * open and not past its expiry: an expiry or another settlement of this
   * object waits for it or goes first, so it runs at most once per call
   * here. False when the call was not open (nothing ran).
   */
  settleWith(toolCallId: string, produce: (call: PendingCall) => Promise<Extract<ToolOutcome, { type: "ok" | "error" }>>): Promise<boolean> {
    return this.#locks.run(toolCallId, async () => {
      if (this.#settled.has(toolCallId)) return false;
      const call = await getPendingCall(this.host.database(), toolCallId);
      if (!call || settledOf(call)) return false;
      // Past its deadline: whoever waits for it expires it with its own words.
      if (call.expiresAt && Date.parse(call.expiresAt) <= Date.now()) return false;
      const outcome = await produce(call);
      const result = outcomeResult(outcome);
      await this.#stage(toolCallId, outcome);
      const won = await transitionPendingCall(this.host.database(), toolCallId, ["waiting", "pending"], "resolved", { result });
      if (!won) {
        this.#unstage(toolCallId);
        this.#disarmReconcile(toolCallId);
        return false;
      }
      await this.#finish(won, outcome);
      return true;
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
      const recorded = this.#recorded(pendingId);
      if (recorded) return { outcome: recorded };
      if (policy.onTimeout === "escalate") {
        const escalated = await this.#escalate(pendingId, policy);
        if (escalated) return escalated;
      }
      if (policy.onTimeout === "deny" || policy.onTimeout === "approve") {
        const call = await getPendingCall(this.host.database(), pendingId);
        if (call && !settledOf(call)) {
          const reason = "No answer in time";
          const result =
            policy.onTimeout === "approve"
              ? { approved: true, automatic: true, reason }
              : call.kind === "approval"
                ? { approved: false, automatic: true, reason }
                : { denied: true, reason };
          const outcome: ToolOutcome =
            call.kind === "approval" || policy.onTimeout === "approve"
              ? { type: "ok", value: result }
              : failed(`Nobody answered "${toolName}" within ${policy.timeoutMs}ms, so it was denied`);
          await this.#stage(pendingId, outcome);
          const won = await transitionPendingCall(this.host.database(), pendingId, ["waiting", "pending"], "resolved", { result });
          if (won) await this.#finish(won, outcome, result);
          else {
            this.#unstage(pendingId);
            this.#disarmReconcile(pendingId);
          }
        }
        const settled = this.#recorded(pendingId);
        if (settled) return { outcome: settled };
      }
      // An approval only ever mattered to the cycle that asked: unanswered, it ends (a late yes must not reach the inbox).
      const open = await getPendingCall(this.host.database(), pendingId);
      if (open?.kind === "approval" && !settledOf(open)) {
        await this.#expire(open, `Nobody answered the approval for "${toolName}" within ${policy.timeoutMs}ms`);
        const settled = this.#recorded(pendingId);
        if (settled) return { outcome: settled };
      }
      await transitionPendingCall(this.host.database(), pendingId, ["waiting"], "pending");
      const outcome = failed(`Tool "${toolName}" timed out after ${policy.timeoutMs}ms`, "timeout");
      this.#deliverToCycle(pendingId, outcome);
      return { outcome: this.#recorded(pendingId) ?? outcome };
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
    for (const staged of this.parts.storage().allStaged()) {
      await this.#locks.run(staged.toolCallId, async () => {
        const call = await getPendingCall(this.host.database(), staged.toolCallId);
        const landed =
          call &&
          ((staged.outcome.type === "expired" && call.status === "expired") ||
            (staged.outcome.type !== "expired" && call.status === "resolved" && canonicalJson(call.result) === canonicalJson(outcomeResult(staged.outcome))));
        if (call && landed) return this.#finish(call, staged.outcome);
        if (call && (call.status === "waiting" || call.status === "pending") && now - staged.stagedAt < stagedGraceMs) {
          // The request that staged it may still be on its way to D1: look again later.
          return this.#armReconcile(staged.toolCallId, staged.stagedAt + stagedGraceMs);
        }
        this.#unstage(staged.toolCallId);
        this.#disarmReconcile(staged.toolCallId);
      });
    }
  }

  async #expire(call: PendingCall, reason?: string): Promise<boolean> {
    const error = reason ?? `Tool "${call.toolName}" expired at ${call.expiresAt ?? new Date().toISOString()} without a result`;
    const outcome: ToolOutcome = { type: "expired", message: error };
    await this.#stage(call.toolCallId, outcome);
    const won = await transitionPendingCall(this.host.database(), call.toolCallId, ["waiting", "pending"], "expired");
    if (!won) {
      this.#unstage(call.toolCallId);
      this.#disarmReconcile(call.toolCallId);
      return false;
    }
    await this.#finish(won, outcome, undefined, { expiredAt: new Date().toISOString() });
    return true;
  }

  async #stage(toolCallId: string, outcome: ToolOutcome): Promise<void> {
    this.parts.storage().stage(toolCallId, outcome);
    await this.#armReconcile(toolCallId, Date.now() + stagedGraceMs / 3);
  }

  #unstage(toolCallId: string): void {
    this.parts.storage().unstage(toolCallId);
  }

  /** The alarm comes back to settle `toolCallId` by `at` if nothing else does. */
  async #armReconcile(toolCallId: string, at: number): Promise<void> {
    this.parts.storage().setDeadline({ id: `reconcile:${toolCallId}`, kind: "reconcile", dueAt: at, payload: { toolCallId } });
    await this.parts.scheduler.schedule();
  }

  #disarmReconcile(toolCallId: string): void {
    this.parts.storage().deleteDeadline(`reconcile:${toolCallId}`);
  }

  /** The outcome the journal holds for the call (a cycle's own call, or a wait of its), if any. */
  #recorded(pendingId: string): ToolOutcome | undefined {
    const journal = this.parts.journal();
    return journal.call(pendingId)?.outcome ?? journal.waitOutcome(pendingId);
  }

  /** A call open in the journal takes its outcome there; its waiter (if any) wakes on the next turn. False when no cycle has it open. */
  #deliverToCycle(toolCallId: string, outcome: ToolOutcome): boolean {
    const journal = this.parts.journal();
    if (journal.isOpen(toolCallId)) journal.callFinished(toolCallId, outcome);
    else if (journal.isWaitOpen(toolCallId)) journal.finishWait(toolCallId, outcome);
    else return false;
    // On the next turn, so the submitter's answer leaves before the waiting cycle resumes.
    setTimeout(() => this.#waiters.get(toolCallId)?.(), 0);
    return true;
  }

  /** A `tool_result` event in the inbox (idempotent by call id), and a cycle owed for it. */
  #deliverToInbox(call: PendingCall, outcome: ToolOutcome): void {
    const error = outcomeError(outcome);
    const eventId = `evt_result_${call.toolCallId}`;
    this.parts.storage().enqueue(
      {
        type: "tool_result",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        runId: call.runId,
        result: outcome.type === "ok" ? outcome.value : null,
        ...(error !== undefined && { error }),
        // The call's trace, kept with it in D1: the run this wakes links to the call's span, whenever the answer comes.
        ...(call.traceparent !== null && { traceparent: call.traceparent }),
      },
      eventId,
    );
    this.host.publish("agent.inbox.received", { eventId, event: { type: "tool_result", toolCallId: call.toolCallId } });
    void this.parts.scheduler.owe().catch((owing: unknown) => console.error("could not owe a cycle", owing));
  }

  /** Moves an unanswered card on, once (`escalate-call.ts`). */
  #escalate(pendingId: string, policy: WaitPolicy): Promise<Extract<TimeoutResult, { escalated: true }> | undefined> {
    return escalateCall(this.host, pendingId, policy);
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
    this.parts.storage().transaction(() => {
      // Queued with the delivery: an expiry reported once it happened, even if the object dies right after.
      if (outcome.type === "expired") this.host.notify(expiredEvent(call, outcome.message), call.spaceId ? [call.spaceId] : []);
      if (!this.#deliverToCycle(call.toolCallId, outcome)) this.#deliverToInbox(call, outcome);
      this.#unstage(call.toolCallId);
      this.#disarmReconcile(call.toolCallId);
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
