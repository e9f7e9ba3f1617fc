/**
 * Prebuilt tools (`executionType: "prebuilt"`): server handlers named by
 * `execution.action` that bring their own description and input schema. The
 * goal, memory and plan actions are the knowledge actions under their
 * prebuilt names, so each rule lives once; the search and space actions
 * (`search-knowledge.ts`, `space-actions.ts`) reuse what the built-ins use.
 * The input is parsed here too: a config may give a prebuilt tool its own
 * schema. The names a config may give are listed without the handlers
 * (`config/prebuilt-actions.ts`); the two lists must be the same.
 */
import { toJSONSchema, type z } from "zod";
import { prebuiltActions } from "../config/prebuilt-actions";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import { knowledgeActions, runKnowledgeAction } from "../../knowledge/knowledge-actions";
import type { ToolContext } from "../engine/tool-context";
import type { InlineCall } from "../engine/resolved-tool";
import { SearchKnowledgeInput, searchKnowledge } from "./search-knowledge";
import { GetSpaceContextInput, getSpaceContext, SendNotificationInput, sendNotification, UpdateSpaceMetadataInput, updateSpaceMetadata } from "./space-actions";

export type PrebuiltTool = {
  description: string;
  inputSchema: Record<string, unknown>;
  execute(context: ToolContext, call: Pick<InlineCall, "args" | "modelToolCallId">): Promise<ToolOutcome>;
};

function problemsOf(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("; ");
}

/** A prebuilt tool from a schema and a handler of what it accepted. */
function prebuilt<S extends z.ZodType>(
  description: string,
  schema: S,
  run: (context: ToolContext, input: z.infer<S>, modelToolCallId: string) => Promise<ToolOutcome>,
): PrebuiltTool {
  return {
    description,
    inputSchema: toJSONSchema(schema, { io: "input" }) as Record<string, unknown>,
    async execute(context, call) {
      const parsed = schema.safeParse(call.args);
      return parsed.success ? run(context, parsed.data, call.modelToolCallId) : failed(problemsOf(parsed.error));
    },
  };
}

export const prebuiltTools: Record<string, PrebuiltTool> = {
  ...Object.fromEntries(
    knowledgeActions.map((entry): [string, PrebuiltTool] => [
      entry.prebuilt,
      prebuilt(entry.description, entry.schema, async (context, input) => {
        const result = await runKnowledgeAction(context, entry, input, "prebuilt");
        return result.ok ? succeeded(result.value) : failed(result.error);
      }),
    ]),
  ),
  searchKnowledge: prebuilt("Search what you know (your memories, goals and notes) for words; the best matches first.", SearchKnowledgeInput, (context, input) =>
    searchKnowledge(context, input),
  ),
  sendNotification: prebuilt(
    "Notify members of a space (default: whoever started this run) with a message that mentions them, in a space you are a member of (default: your active space).",
    SendNotificationInput,
    (context, input, modelToolCallId) => sendNotification(context, input, modelToolCallId),
  ),
  getSpaceContext: prebuilt("Read a space you are a member of (default: your active space): its name, metadata and members.", GetSpaceContextInput, (context, input) =>
    getSpaceContext(context, input),
  ),
  updateSpaceMetadata: prebuilt(
    "Change a space's metadata: the keys given are set, a key set to null is removed, objects are merged.",
    UpdateSpaceMetadataInput,
    (context, input) => updateSpaceMetadata(context, input),
  ),
};

// A name a config may give without a handler here (or the reverse) would pass the check at save and fail every call: refused at load instead.
const handled = Object.keys(prebuiltTools);
if (handled.length !== prebuiltActions.length || handled.some((name, index) => name !== prebuiltActions[index])) {
  throw new Error(`The prebuilt actions a config may name (${prebuiltActions.join(", ")}) are not the ones with handlers (${handled.join(", ")})`);
}
