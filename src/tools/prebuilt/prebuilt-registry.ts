/**
 * Prebuilt tools (seed 004): server handlers named by `execution.action` that
 * bring their own description and input schema. They share their handlers
 * with the built-in goal, memory and plan tools, so each rule lives once.
 */
import { toJSONSchema, type z } from "zod";
import type { CycleContext } from "../../agents/cycle-context";
import { DeleteGoalsInput, deleteGoals, listGoals, SetGoalsInput, setGoals } from "../../agents/knowledge/goals";
import { DeleteMemoriesInput, deleteMemories, listMemories, SetMemoriesInput, setMemories } from "../../agents/knowledge/memories";
import { DeletePlansInput, deletePlans, listPlans, SetPlansInput, setPlans } from "../../agents/knowledge/plans";
import { knowledgeError } from "../builtins/knowledge-tools";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";

export type PrebuiltTool = {
  description: string;
  inputSchema: Record<string, unknown>;
  execute(context: CycleContext, input: unknown): Promise<ToolOutcome>;
};

const Empty = SetGoalsInput.pick({}).strict();

function prebuilt<S extends z.ZodType>(
  description: string,
  schema: S,
  handler: (context: CycleContext, input: z.infer<S>) => Promise<unknown>,
  writes: boolean,
): PrebuiltTool {
  return {
    description,
    inputSchema: toJSONSchema(schema, { io: "input" }) as Record<string, unknown>,
    async execute(context, input) {
      const parsed = schema.safeParse(input);
      if (!parsed.success) return failed(parsed.error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("; "));
      try {
        return succeeded(await handler(context, parsed.data));
      } catch (error) {
        return failed(knowledgeError(error));
      } finally {
        if (writes) context.knowledgeChanged();
      }
    },
  };
}

export const prebuiltTools: Record<string, PrebuiltTool> = {
  setGoals: prebuilt("Set or update your goals (give an id to update one).", SetGoalsInput, (context, input) => setGoals(context.knowledge, input), true),
  getGoals: prebuilt("Read your current goals.", Empty, async (context) => ({ goals: await listGoals(context.knowledge) }), false),
  deleteGoals: prebuilt("Delete goals by id.", DeleteGoalsInput, (context, input) => deleteGoals(context.knowledge, input), true),
  setMemories: prebuilt("Remember things as key → value.", SetMemoriesInput, (context, input) => setMemories(context.knowledge, input), true),
  getMemories: prebuilt("Read your memories.", Empty, async (context) => ({ memories: await listMemories(context.knowledge) }), false),
  deleteMemories: prebuilt("Forget memories by key.", DeleteMemoriesInput, (context, input) => deleteMemories(context.knowledge, input), true),
  setPlans: prebuilt("Schedule plans (runAt, cron or everySeconds).", SetPlansInput, (context, input) => setPlans(context.knowledge, input), true),
  getPlans: prebuilt("Read your plans.", Empty, async (context) => ({ plans: await listPlans(context.knowledge) }), false),
  deletePlans: prebuilt("Delete plans by name.", DeletePlansInput, (context, input) => deletePlans(context.knowledge, input), true),
};

export const prebuiltActions = Object.keys(prebuiltTools);
