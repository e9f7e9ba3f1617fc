/**
 * What the agent object's alarm does with due deadlines: a due plan puts a
 * `plan_due` event in the inbox and advances; a sync wait whose waiter was
 * lost to a restart flips to `pending`; an expired call becomes `expired`; a
 * failed webhook is tried again. One failing deadline never stops the others.
 */
import { getDatabase } from "../db/client";
import type { AppEnv } from "../env";
import { expireToolCall, flipTimedOutCall } from "../tools/engine/expire-tool-call";
import type { ToolWaiters } from "../tools/engine/tool-waiters";
import type { WebhookSender } from "../tools/engine/webhook-sender";
import type { AgentStorage, Deadline } from "./agent-storage";
import type { KnowledgeContext, PlanSchedule } from "./knowledge/knowledge-context";
import { advancePlan, getPlan } from "./knowledge/plans";

export type DeadlineDeps = {
  env: AppEnv;
  storage: AgentStorage;
  agentId: string | undefined;
  waiters: ToolWaiters;
  webhooks: WebhookSender;
  plansChanged(changed: PlanSchedule[]): void;
};

export async function processDeadlines(deps: DeadlineDeps, now = Date.now()): Promise<void> {
  const { storage, env, waiters } = deps;
  for (const deadline of storage.dueDeadlines(now)) {
    try {
      const { toolCallId } = (deadline.payload ?? {}) as { toolCallId?: string };
      if (deadline.kind === "plan") await planDue(deps, deadline, now);
      else if (deadline.kind === "tool_timeout" && toolCallId) {
        storage.deleteDeadline(deadline.id);
        // A live waiter has its own timer; the backstop is for a waiter lost to a restart.
        if (!waiters.has(toolCallId)) await flipTimedOutCall(env, toolCallId);
      } else if (deadline.kind === "call_expiry" && toolCallId) {
        storage.deleteDeadline(deadline.id);
        await expireToolCall(env, toolCallId, waiters, storage);
      } else if (deadline.kind === "webhook") {
        await deps.webhooks.retryFromAlarm(deadline);
      } else storage.deleteDeadline(deadline.id);
    } catch (error) {
      console.error("deadline failed", deadline.id, error);
    }
  }
}

/**
 * A due plan: the `plan_due` event enters the inbox (keyed by plan and due
 * time, so a retried alarm never queues it twice), then the plan advances.
 */
async function planDue(deps: DeadlineDeps, deadline: Deadline, now: number): Promise<void> {
  const { storage, agentId } = deps;
  const { planId } = deadline.payload as { planId: string };
  if (!agentId) return storage.deleteDeadline(deadline.id);
  const knowledge: KnowledgeContext = { database: getDatabase(deps.env.DB), agentId };
  const plan = await getPlan(knowledge, planId);
  if (!plan) return storage.deleteDeadline(deadline.id);
  const dueAt = new Date(deadline.dueAt).toISOString();
  storage.enqueue({ type: "plan_due", planId, name: plan.name, instruction: plan.instruction, dueAt }, `evt_plan_${planId}_${deadline.dueAt}`);
  const next = await advancePlan(knowledge, plan, Math.max(now, deadline.dueAt));
  deps.plansChanged([{ planId, nextRunAt: next }]);
}
