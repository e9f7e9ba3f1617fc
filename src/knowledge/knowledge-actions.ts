/**
 * The goal, memory and plan actions, each written once: its built-in name
 * (the `knowledge` group), its prebuilt action name, its description, its input
 * schema and its handler. The built-in tools (`tools/builtins/knowledge-tools.ts`)
 * and the prebuilt registry (`tools/prebuilt/prebuilt-registry.ts`) are both
 * made from this list, so they cannot drift apart.
 */
import { z } from "zod";
import { DeleteGoalsInput, deleteGoals, listGoals, SetGoalsInput, type SetGoalsResult, setGoals } from "./goals";
import type { KnowledgeContext } from "./knowledge-context";
import { DeleteMemoriesInput, deleteMemories, listMemories, SetMemoriesInput, setMemories } from "./memories";
import { DeletePlansInput, deletePlans, listPlans, SetPlansInput, setPlans } from "./plans";
import type { KnowledgeAccess } from "./knowledge-context";

export type KnowledgeAction = {
  builtin: string;
  prebuilt: string;
  description: string;
  schema: z.ZodType;
  /** Changes what the agent's prompt shows (the agent object drops its cache). */
  writes: boolean;
  run(knowledge: KnowledgeContext, input: never): Promise<unknown>;
  /** The prebuilt tool's handler, when its answer is not the built-in's (`setGoals` answers in the earlier design's shape too). */
  runPrebuilt?(knowledge: KnowledgeContext, input: never): Promise<unknown>;
};

const Empty = z.object({}).strict();

function action<S extends z.ZodType>(
  builtin: string,
  prebuilt: string,
  description: string,
  schema: S,
  writes: boolean,
  run: (knowledge: KnowledgeContext, input: z.infer<S>) => Promise<unknown>,
): KnowledgeAction {
  return { builtin, prebuilt, description, schema, writes, run: run as KnowledgeAction["run"] };
}

export const knowledgeActions: KnowledgeAction[] = [
  {
    ...action("set_goals", "setGoals", "Create or update your goals (give an id to update one; clearExisting replaces them all).", SetGoalsInput, true, setGoals),
    runPrebuilt: async (knowledge: KnowledgeContext, input: z.infer<typeof SetGoalsInput>) => setGoalsAnswer(await setGoals(knowledge, input)),
  },
  action("delete_goals", "deleteGoals", "Delete goals by id.", DeleteGoalsInput, true, deleteGoals),
  action("get_goals", "getGoals", "Read your goals.", Empty, false, async (knowledge) => ({ goals: await listGoals(knowledge) })),
  action("set_memories", "setMemories", "Remember things as key → value (an existing key is replaced).", SetMemoriesInput, true, setMemories),
  action("delete_memories", "deleteMemories", "Forget memories by key.", DeleteMemoriesInput, true, deleteMemories),
  action("get_memories", "getMemories", "Read your memories.", Empty, false, async (knowledge) => ({ memories: await listMemories(knowledge) })),
  action(
    "set_plans",
    "setPlans",
    "Schedule plans: each runs once (runAt), on a cron, or every N seconds, and wakes you with its instruction. Give a timezone (IANA, default UTC) for cron and local runAt times.",
    SetPlansInput,
    true,
    setPlans,
  ),
  action("delete_plans", "deletePlans", "Delete plans by name.", DeletePlansInput, true, deletePlans),
  action("get_plans", "getPlans", "Read your plans and when they run next.", Empty, false, async (knowledge) => ({ plans: await listPlans(knowledge) })),
];

/** The prebuilt `setGoals` answer: today's `goals`, and beside it the earlier design's shape (what changed, every goal, how many). */
function setGoalsAnswer(value: SetGoalsResult) {
  return { success: true, goalsModified: value.goalsModified, currentGoals: value.goals, totalGoals: value.goals.length, goals: value.goals };
}

/** Runs an action on input its schema accepted: a storage failure becomes data (logged, never shown raw). */
export async function runKnowledgeAction(
  context: KnowledgeAccess,
  entry: KnowledgeAction,
  input: unknown,
  as: "builtin" | "prebuilt" = "builtin",
): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  try {
    const run = as === "prebuilt" && entry.runPrebuilt ? entry.runPrebuilt : entry.run;
    return { ok: true, value: await run(context.knowledge, input as never) };
  } catch (error) {
    console.error("knowledge action failed", entry.builtin, error);
    return { ok: false, error: "Could not save that right now; try again" };
  } finally {
    if (entry.writes) context.knowledgeChanged();
  }
}
