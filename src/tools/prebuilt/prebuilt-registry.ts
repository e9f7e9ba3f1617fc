/**
 * Prebuilt tools (`executionType: "prebuilt"`): server handlers named by
 * `execution.action` that bring their own description and input schema. They
 * are the knowledge actions under their prebuilt names, so each rule lives
 * once. The input is parsed here too: a config may give a prebuilt tool its own
 * schema. The names a config may give are listed without the handlers
 * (`config/prebuilt-actions.ts`); the two lists must be the same.
 */
import { toJSONSchema } from "zod";
import { prebuiltActions } from "../config/prebuilt-actions";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import { knowledgeActions, runKnowledgeAction } from "../../knowledge/knowledge-actions";
import type { KnowledgeAccess } from "../engine/tool-context";

export type PrebuiltTool = {
  description: string;
  inputSchema: Record<string, unknown>;
  execute(context: KnowledgeAccess, input: unknown): Promise<ToolOutcome>;
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
        const result = await runKnowledgeAction(context, entry, parsed.data, "prebuilt");
        return result.ok ? succeeded(result.value) : failed(result.error);
      },
    },
  ]),
);

// A name a config may give without a handler here (or the reverse) would pass the check at save and fail every call: refused at load instead.
const handled = Object.keys(prebuiltTools);
if (handled.length !== prebuiltActions.length || handled.some((name, index) => name !== prebuiltActions[index])) {
  throw new Error(`The prebuilt actions a config may name (${prebuiltActions.join(", ")}) are not the ones with handlers (${handled.join(", ")})`);
}
