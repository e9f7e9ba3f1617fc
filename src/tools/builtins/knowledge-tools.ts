/**
 * Built-in goal, memory and plan tools (§7). The handlers live in
 * `agents/knowledge/`, shared with the prebuilt tools.
 */
import { z } from "@hono/zod-openapi";
import { tool } from "ai";
import type { CycleContext } from "../../agents/cycle-context";
import { DeleteGoalsInput, deleteGoals, listGoals, SetGoalsInput, setGoals } from "../../agents/knowledge/goals";
import { DeleteMemoriesInput, deleteMemories, listMemories, SetMemoriesInput, setMemories } from "../../agents/knowledge/memories";
import { DeletePlansInput, deletePlans, listPlans, SetPlansInput, setPlans } from "../../agents/knowledge/plans";

/** Runs a knowledge write, turning a failure into data and refreshing the prompt cache. */
async function write<T>(context: CycleContext, action: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await action();
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    context.knowledgeChanged();
  }
}

export function createKnowledgeTools(context: CycleContext) {
  const knowledge = context.knowledge;
  return {
    set_goals: tool({
      description: "Create or update your goals (give an id to update one).",
      inputSchema: SetGoalsInput,
      execute: (input) => write(context, () => setGoals(knowledge, input)),
    }),
    delete_goals: tool({
      description: "Delete goals by id.",
      inputSchema: DeleteGoalsInput,
      execute: (input) => write(context, () => deleteGoals(knowledge, input)),
    }),
    get_goals: tool({
      description: "Read your goals.",
      inputSchema: z.object({}),
      execute: async () => ({ goals: await listGoals(knowledge) }),
    }),
    set_memories: tool({
      description: "Remember things as key → value (an existing key is replaced).",
      inputSchema: SetMemoriesInput,
      execute: (input) => write(context, () => setMemories(knowledge, input)),
    }),
    delete_memories: tool({
      description: "Forget memories by key.",
      inputSchema: DeleteMemoriesInput,
      execute: (input) => write(context, () => deleteMemories(knowledge, input)),
    }),
    get_memories: tool({
      description: "Read your memories.",
      inputSchema: z.object({}),
      execute: async () => ({ memories: await listMemories(knowledge) }),
    }),
    set_plans: tool({
      description: "Schedule plans: each runs once (runAt), on a cron (UTC) or every N seconds, and wakes you with its instruction.",
      inputSchema: SetPlansInput,
      execute: (input) => write(context, () => setPlans(knowledge, input)),
    }),
    delete_plans: tool({
      description: "Delete plans by name.",
      inputSchema: DeletePlansInput,
      execute: (input) => write(context, () => deletePlans(knowledge, input)),
    }),
    get_plans: tool({
      description: "Read your plans and when they run next.",
      inputSchema: z.object({}),
      execute: async () => ({ plans: await listPlans(knowledge) }),
    }),
  };
}
