/**
 * Goals: what an agent is working toward. Shared by the built-in tools
 * (`set_goals`, `delete_goals`, `get_goals`) and the prebuilt tools
 * (`setGoals`, `getGoals`), so the rule lives once.
 */
import { z } from "@hono/zod-openapi";
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { goals } from "../db/schema";
import { chunked } from "../db/chunked";
import { createId } from "../ids";
import type { KnowledgeContext } from "./knowledge-context";

/** What a goal is, without its id (the rule set_goals and an imported agent document share). */
export const GoalFields = z
  .object({
    description: z.string().min(1).max(2000),
    priority: z.number().int().min(0).max(100).optional().describe("Higher is more important"),
    isLongTerm: z.boolean().optional(),
    isCompleted: z.boolean().optional(),
  })
  .strict();

export const SetGoalsInput = z
  .object({
    goals: z
      .array(z.object({ id: z.string().optional().describe("Give the id of an existing goal to update it; omit to create a new goal"), ...GoalFields.shape }).strict())
      .min(1)
      .max(50),
    clearExisting: z.boolean().optional().describe("Remove every existing goal before setting these (default false); no goal may then give an id"),
  })
  .strict()
  .superRefine((input, context) => {
    // Clearing first would leave nothing to update: an id there is a mistake the model can correct.
    if (input.clearExisting) {
      input.goals.forEach((goal, index) => {
        if (goal.id !== undefined) context.addIssue({ code: "custom", path: ["goals", index, "id"], message: "clearExisting removes every goal first: give no ids with it" });
      });
    }
  });

export const DeleteGoalsInput = z.object({ ids: z.array(z.string()).min(1).max(100) }).strict();

export type Goal = { id: string; description: string; priority: number; isLongTerm: boolean; isCompleted: boolean; updatedAt: string };

export async function listGoals(context: KnowledgeContext): Promise<Goal[]> {
  return context.database
    .select({
      id: goals.id,
      description: goals.description,
      priority: goals.priority,
      isLongTerm: goals.isLongTerm,
      isCompleted: goals.isCompleted,
      updatedAt: goals.updatedAt,
    })
    .from(goals)
    .where(eq(goals.agentId, context.agentId))
    .orderBy(desc(goals.priority), asc(goals.createdAt));
}

/** What one goal of a set_goals call did: created, updated, or named an id this agent has no goal with (nothing changed for it). */
export type GoalChange = { action: "created" | "updated" | "not_found"; id: string; description: string };

export type SetGoalsResult = { goals: Goal[]; goalsModified: GoalChange[] };

export async function setGoals(context: KnowledgeContext, input: z.infer<typeof SetGoalsInput>): Promise<SetGoalsResult> {
  const { database, agentId } = context;
  const now = new Date().toISOString();
  const changed = (action: GoalChange["action"]) => ({ id: goals.id, description: goals.description, action: sql<GoalChange["action"]>`${action}` });
  const writes = input.goals.map((goal) =>
    goal.id
      ? database
          .update(goals)
          .set({
            description: goal.description,
            ...(goal.priority !== undefined && { priority: goal.priority }),
            ...(goal.isLongTerm !== undefined && { isLongTerm: goal.isLongTerm }),
            ...(goal.isCompleted !== undefined && { isCompleted: goal.isCompleted }),
            updatedAt: now,
          })
          .where(and(eq(goals.id, goal.id), eq(goals.agentId, agentId)))
          .returning(changed("updated"))
      : database
          .insert(goals)
          .values({
            id: createId("goal"),
            agentId,
            description: goal.description,
            priority: goal.priority ?? 0,
            isLongTerm: goal.isLongTerm ?? false,
            isCompleted: goal.isCompleted ?? false,
            updatedAt: now,
          })
          .returning(changed("created")),
  );
  // Clearing and setting are one batch: either every goal is replaced or nothing changed.
  const [first, ...rest] = writes;
  const results = input.clearExisting
    ? (await database.batch([database.delete(goals).where(eq(goals.agentId, agentId)), first, ...rest])).slice(1)
    : await database.batch([first, ...rest]);
  const goalsModified = input.goals.map((goal, index): GoalChange => {
    const written = results[index];
    return (Array.isArray(written) ? written[0] : undefined) ?? { action: "not_found", id: goal.id ?? "", description: goal.description };
  });
  return { goals: await listGoals(context), goalsModified };
}

export async function deleteGoals(context: KnowledgeContext, input: z.infer<typeof DeleteGoalsInput>): Promise<{ deleted: number }> {
  // The agent id is one bound parameter; the ids fill the rest of each statement, in one batch.
  const [first, ...rest] = chunked(input.ids, { otherParameters: 1 }).map((chunk) =>
    context.database
      .delete(goals)
      .where(and(eq(goals.agentId, context.agentId), inArray(goals.id, chunk)))
      .returning({ id: goals.id }),
  );
  const deleted = first === undefined ? [] : (await context.database.batch([first, ...rest])).flat();
  return { deleted: deleted.length };
}
