/** Built-in goal, memory and plan tools (the `knowledge` group), made from the one list of knowledge actions. */
import { type Tool, tool, zodSchema } from "ai";
import { knowledgeActions, runKnowledgeAction } from "../../knowledge/knowledge-actions";
import type { KnowledgeAccess } from "../engine/tool-context";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";

// Wrapped once per isolate: the SDK converts a schema to JSON Schema once per
// wrapper, so module-level wrappers are converted once instead of every cycle.
const definitions = knowledgeActions.map((entry) => ({ entry, inputSchema: zodSchema(entry.schema) }));

export function createKnowledgeTools(context: KnowledgeAccess): Record<string, Tool> {
  return Object.fromEntries(
    definitions.map(({ entry, inputSchema }) => [
      entry.builtin,
      tool({
        description: entry.description,
        inputSchema,
        execute: async (input: unknown): Promise<ToolOutcome> => {
          const result = await runKnowledgeAction(context, entry, input);
          return result.ok ? succeeded(result.value) : failed(result.error);
        },
      }),
    ]),
  );
}
