/**
 * Built-in goal, memory and plan tools (§7). The handlers live in
 * `agents/knowledge/`, shared with the prebuilt tools.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import type { CycleContext } from "../../agents/cycle-context";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import { DeleteGoalsInput, deleteGoals, listGoals, SetGoalsInput, setGoals } from "../../agents/knowledge/goals";
import { DeleteMemoriesInput, deleteMemories, listMemories, SetMemoriesInput, setMemories } from "../../agents/knowledge/memories";
import { DeletePlansInput, deletePlans, listPlans, SetPlansInput, setPlans } from "../../agents/knowledge/plans";

// Wrapped once per isolate: the SDK converts a schema to JSON Schema once per
// wrapper, so module-level wrappers are converted once instead of every cycle.
const schemas = {
  setGoals: zodSchema(SetGoalsInput),
  deleteGoals: zodSchema(DeleteGoalsInput),
  setMemories: zodSchema(SetMemoriesInput),
  deleteMemories: zodSchema(DeleteMemoriesInput),
  setPlans: zodSchema(SetPlansInput),
  deletePlans: zodSchema(DeletePlansInput),
  empty: zodSchema(z.object({})),
};

/** Runs a knowledge write, turning a failure into data and refreshing the prompt cache. */
async function write(context: CycleContext, action: () => Promise<unknown>): Promise<ToolOutcome> {
  try {
    return succeeded(await action());
  } catch (error) {
    return failed(knowledgeError(error));
  } finally {
    context.knowledgeChanged();
  }
}

/** Inputs are validated before a handler runs, so a throw is a storage failure: logged, never shown raw. */
export function knowledgeError(error: unknown): string {
  console.error("knowledge tool failed", error);
  return "Could not save that right now; try again";
}

export function createKnowledgeTools(context: CycleContext) {
  const knowledge = context.knowledge;
  return {
    set_goals: tool({
      description: "Create or update your goals (give an id to update one).",
      inputSchema: schemas.setGoals,
      execute: (input) => write(context, () => setGoals(knowledge, input)),
    }),
    delete_goals: tool({
      description: "Delete goals by id.",
      inputSchema: schemas.deleteGoals,
      execute: (input) => write(context, () => deleteGoals(knowledge, input)),
    }),
    get_goals: tool({
      description: "Read your goals.",
      inputSchema: schemas.empty,
      execute: async () => succeeded({ goals: await listGoals(knowledge) }),
    }),
    set_memories: tool({
      description: "Remember things as key → value (an existing key is replaced).",
      inputSchema: schemas.setMemories,
      execute: (input) => write(context, () => setMemories(knowledge, input)),
    }),
    delete_memories: tool({
      description: "Forget memories by key.",
      inputSchema: schemas.deleteMemories,
      execute: (input) => write(context, () => deleteMemories(knowledge, input)),
    }),
    get_memories: tool({
      description: "Read your memories.",
      inputSchema: schemas.empty,
      execute: async () => succeeded({ memories: await listMemories(knowledge) }),
    }),
    set_plans: tool({
      description: "Schedule plans: each runs once (runAt), on a cron (UTC) or every N seconds, and wakes you with its instruction.",
      inputSchema: schemas.setPlans,
      execute: (input) => write(context, () => setPlans(knowledge, input)),
    }),
    delete_plans: tool({
      description: "Delete plans by name.",
      inputSchema: schemas.deletePlans,
      execute: (input) => write(context, () => deletePlans(knowledge, input)),
    }),
    get_plans: tool({
      description: "Read your plans and when they run next.",
      inputSchema: schemas.empty,
      execute: async () => succeeded({ plans: await listPlans(knowledge) }),
    }),
  };
}
