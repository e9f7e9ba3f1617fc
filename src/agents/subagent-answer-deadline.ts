/** The deadline that keeps a sub-agent's answer until the caller's object takes it (`subagent-answers.ts`). */
import { z } from "zod";
import { ToolOutcome } from "../tools";

export const SubagentAnswerDeadline = z.object({
  id: z.string(),
  kind: z.literal("subagent_answer"),
  dueAt: z.number(),
  payload: z.object({ toolCallId: z.string(), parentAgentId: z.string(), outcome: ToolOutcome, attempt: z.number().int() }),
});
export type SubagentAnswerDeadline = z.infer<typeof SubagentAnswerDeadline>;
