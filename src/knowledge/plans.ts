/**
 * Plans: instructions an agent gives its future self. When one is due, the
 * agent object puts a `plan_due` event in the inbox. Stored in D1; the agent
 * object keeps one deadline per plan (keyed by the plan id, so re-arming is
 * idempotent).
 */
import { z } from "@hono/zod-openapi";
import { and, asc, eq, inArray } from "drizzle-orm";
import { plans } from "../db/schema";
import { chunked } from "../db/chunked";
import { createId } from "../ids";
import type { KnowledgeContext } from "./knowledge-context";
import { checkCron, checkTimezone, nextRunAt, runAtMoment } from "./plan-schedule";

/** A plan's fields, before the timing rule (an imported agent document adds one of its own). */
export const PlanFields = z.object({
  name: z.string().min(1).max(100).describe("Unique per agent; setting an existing name replaces that plan"),
  instruction: z.string().min(1).max(4000).describe("What to do when the plan is due"),
  runAt: z.iso.datetime({ offset: true, local: true }).optional().describe("Run once at this ISO-8601 time; without an offset it is a wall-clock time in `timezone`"),
  cron: z.string().min(1).max(100).optional().describe('Run on a cron schedule in `timezone`, e.g. "0 9 * * 1-5"'),
  everySeconds: z
    .number()
    .int()
    .min(10)
    .max(365 * 24 * 3600)
    .optional()
    .describe("Run every N seconds"),
  timezone: z.string().min(1).max(64).optional().describe('IANA time zone for cron and local runAt, e.g. "Europe/Paris" (default UTC)'),
});

/** The timing rule every plan follows: exactly one schedule, a known zone, a cron that runs, a runAt that exists. */
export function checkPlanTiming(plan: z.infer<typeof PlanFields>, context: z.RefinementCtx): void {
  const schedules = [plan.runAt, plan.cron, plan.everySeconds].filter((value) => value !== undefined).length;
  if (schedules !== 1) context.addIssue({ code: "custom", message: "Give exactly one of runAt, cron or everySeconds" });
  const zoneProblem = plan.timezone === undefined ? undefined : checkTimezone(plan.timezone);
  if (zoneProblem) context.addIssue({ code: "custom", path: ["timezone"], message: zoneProblem });
  if (plan.cron !== undefined && !zoneProblem) {
    const problem = checkCron(plan.cron, plan.timezone);
    if (problem) context.addIssue({ code: "custom", path: ["cron"], message: problem });
  }
  if (plan.runAt !== undefined && !zoneProblem && Number.isNaN(runAtMoment(plan.runAt, plan.timezone))) {
    context.addIssue({ code: "custom", path: ["runAt"], message: "Not a time that exists" });
  }
}

const PlanInput = PlanFields.strict().superRefine(checkPlanTiming);

export const SetPlansInput = z.object({ plans: z.array(PlanInput).min(1).max(20) }).strict();
export const DeletePlansInput = z.object({ names: z.array(z.string()).min(1).max(100) }).strict();

export type Plan = {
  id: string;
  name: string;
  instruction: string;
  runAt: string | null;
  cron: string | null;
  everySeconds: number | null;
  timezone: string | null;
  nextRunAt: string | null;
  lastRunAt: string | null;
};

const planColumns = {
  id: plans.id,
  name: plans.name,
  instruction: plans.instruction,
  runAt: plans.runAt,
  cron: plans.cron,
  everySeconds: plans.everySeconds,
  timezone: plans.timezone,
  nextRunAt: plans.nextRunAt,
  lastRunAt: plans.lastRunAt,
};

export async function listPlans(context: KnowledgeContext): Promise<Plan[]> {
  return context.database.select(planColumns).from(plans).where(eq(plans.agentId, context.agentId)).orderBy(asc(plans.name));
}

export async function getPlan(context: KnowledgeContext, planId: string): Promise<Plan | undefined> {
  return context.database
    .select(planColumns)
    .from(plans)
    .where(and(eq(plans.id, planId), eq(plans.agentId, context.agentId)))
    .get();
}

export async function setPlans(context: KnowledgeContext, input: z.infer<typeof SetPlansInput>): Promise<{ plans: Plan[] }> {
  const { database, agentId } = context;
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const statements = input.plans.map((plan) => {
    const timing = { runAt: plan.runAt ?? null, cron: plan.cron ?? null, everySeconds: plan.everySeconds ?? null, timezone: plan.timezone ?? null };
    const next = nextRunAt(timing, now);
    const values = { ...timing, instruction: plan.instruction, nextRunAt: next === null ? null : new Date(next).toISOString(), lastRunAt: null, updatedAt: nowIso };
    return database
      .insert(plans)
      .values({ id: createId("plan"), agentId, name: plan.name, ...values })
      .onConflictDoUpdate({ target: [plans.agentId, plans.name], set: values })
      .returning(planColumns);
  });
  const [first, ...rest] = statements;
  const results = await database.batch([first, ...rest]);
  const changed = results.flat();
  await context.plansChanged?.(
    changed.map((plan) => ({ planId: plan.id, nextRunAt: plan.nextRunAt })),
    [],
  );
  return { plans: await listPlans(context) };
}

export async function deletePlans(context: KnowledgeContext, input: z.infer<typeof DeletePlansInput>): Promise<{ deleted: number }> {
  // The agent id is one bound parameter; the names fill the rest of each statement, in one batch.
  const [first, ...rest] = chunked(input.names, { otherParameters: 1 }).map((chunk) =>
    context.database
      .delete(plans)
      .where(and(eq(plans.agentId, context.agentId), inArray(plans.name, chunk)))
      .returning({ id: plans.id }),
  );
  const deleted = first === undefined ? [] : (await context.database.batch([first, ...rest])).flat();
  await context.plansChanged?.(
    [],
    deleted.map((plan) => plan.id),
  );
  return { deleted: deleted.length };
}

/** Records that a plan ran and computes its next run (null: finished). */
export async function advancePlan(context: KnowledgeContext, plan: Plan, ranAt: number): Promise<string | null> {
  const lastRunAt = new Date(ranAt).toISOString();
  const next = nextRunAt(plan, ranAt, lastRunAt);
  const nextIso = next === null ? null : new Date(next).toISOString();
  await context.database
    .update(plans)
    .set({ lastRunAt, nextRunAt: nextIso, updatedAt: lastRunAt })
    .where(and(eq(plans.id, plan.id), eq(plans.agentId, context.agentId)));
  return nextIso;
}
