/**
 * What the agent object's alarm does with due deadlines: a due plan puts a
 * `plan_due` event in the inbox and advances; a sync wait no cycle holds any
 * more turns `pending`; an expired call becomes `expired` (through the
 * pending-call owner); a failed webhook is tried again; a run record that did
 * not reach D1 is written again; a `sleep` wakes the agent with its event;
 * an event for webhook subscriptions is fanned out; a remote A2A agent's task
 * is looked at again.
 * One failing deadline never stops the others.
 */
import { getDatabase } from "../db/client";
import type { AppEnv } from "../env";
import type { PendingCallOwner } from "./pending-call-owner";
import type { WebhookSender } from "../webhooks/webhook-sender";
import type { AgentStorage, Deadline } from "./agent-storage";
import type { CycleJournal } from "./cycle-journal";
import type { EventNotifier } from "../webhooks/event-notifier";
import { retryRunRecord } from "./finish-run";
import { sendSubagentAnswer } from "./subagent-answers";
import type { KnowledgeContext, PlanSchedule } from "../knowledge/knowledge-context";
import { advancePlan, getPlan } from "../knowledge/plans";

export type DeadlineDeps = {
  env: AppEnv;
  storage: AgentStorage;
  journal: CycleJournal;
  agentId: string;
  owner: PendingCallOwner;
  webhooks: WebhookSender;
  notifier: EventNotifier;
  plansChanged(changed: PlanSchedule[]): void;
  publish(type: string, data: Record<string, unknown>): void;
  /** Looks at a remote A2A task again (the agent object knows the provider's config). */
  pollA2a(deadline: Extract<Deadline, { kind: "a2a_poll" }>): Promise<void>;
};

export async function processDeadlines(deps: DeadlineDeps, now = Date.now()): Promise<void> {
  const { storage } = deps;
  for (const deadline of storage.dueDeadlines(now)) {
    try {
      await processDeadline(deps, deadline, now);
    } catch (error) {
      console.error("deadline failed", deadline.id, error);
    }
  }
}

async function processDeadline(deps: DeadlineDeps, deadline: Deadline, now: number): Promise<void> {
  const { storage } = deps;
  switch (deadline.kind) {
    case "plan":
      return planDue(deps, deadline.payload.planId, deadline, now);
    case "tool_timeout": {
      const { toolCallId } = deadline.payload;
      storage.deleteDeadline(deadline.id);
      // A live waiter has its own timer, and a continued cycle times the call out itself.
      if (deps.owner.isAwaited(toolCallId) || deps.journal.isOpen(toolCallId) || deps.journal.isWaitOpen(toolCallId)) return;
      return deps.owner.release(toolCallId);
    }
    case "call_expiry":
      storage.deleteDeadline(deadline.id);
      await deps.owner.expire(deadline.payload.toolCallId);
      return;
    case "webhook":
      return deps.webhooks.retryFromAlarm(deadline);
    case "run_record":
      return retryRunRecord(deps.env, storage, deadline.payload.runId, deadline.payload.attempt);
    case "reconcile":
      // The alarm reconciles every staged outcome before deadlines; this one only woke it.
      return storage.deleteDeadline(deadline.id);
    case "sleep":
      // One transaction: the event is queued and the wake-up gone, or neither.
      return storage.transaction(() => {
        storage.enqueue(deadline.payload.event, deadline.payload.eventId);
        storage.deleteDeadline(deadline.id);
      });
    case "subagent_answer":
      return sendSubagentAnswer(deps.env, storage, deadline, deps.publish);
    case "notify":
      return deps.notifier.fanOut(deadline.payload.event.id);
    case "a2a_poll":
      return deps.pollA2a(deadline);
  }
}

/**
 * A due plan: the `plan_due` event enters the inbox (keyed by plan and due
 * time, so a retried alarm never queues it twice), then the plan advances.
 */
async function planDue(deps: DeadlineDeps, planId: string, deadline: Deadline, now: number): Promise<void> {
  const { storage } = deps;
  const knowledge: KnowledgeContext = { database: getDatabase(deps.env.DB), agentId: deps.agentId };
  const plan = await getPlan(knowledge, planId);
  if (!plan) return storage.deleteDeadline(deadline.id);
  const dueAt = new Date(deadline.dueAt).toISOString();
  storage.enqueue({ type: "plan_due", planId, name: plan.name, instruction: plan.instruction, dueAt }, `evt_plan_${planId}_${deadline.dueAt}`);
  const next = await advancePlan(knowledge, plan, Math.max(now, deadline.dueAt));
  deps.plansChanged([{ planId, nextRunAt: next }]);
}
