/**
 * Prebuilt tools (seed 004): server handlers named by `execution.action` that
 * bring their own description and input schema. They are the knowledge
 * actions under their prebuilt names, so each rule lives once. The input is
 * parsed here too: a config may give a prebuilt tool its own schema.
 */
import { toJSONSchema } from "zod";
import { failed, type ToolOutcome } from "../engine/tool-outcome";
import { knowledgeActions, runKnowledgeAction } from "../knowledge/knowledge-actions";
import type { ToolContext } from "../tool-context";

export type PrebuiltTool = {
  description: string;
  inputSchema: Record<string, unknown>;
  execute(context: ToolContext, input: unknown): Promise<ToolOutcome>;
};

export const prebuiltTools: Record<string, PrebuiltTool> = Object.fromEntries(
  knowledgeActions.map((entry): [string, PrebuiltTool] => [
    entry.prebuilt,
    {
      description: entry.description,
      inputSchema: toJSONSchema(entry.schema, { io: "input" }) as Record<string, unknown>,
      async execute(context, input) {
        const parsed = entry.schema.safeParse(input);
        if (!parsed.success) return failed(parsed.error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("; "));
        return runKnowledgeAction(context, entry, parsed.data);
      },
    },
  ]),
);

export const prebuiltActions = Object.keys(prebuiltTools);
