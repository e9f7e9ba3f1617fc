/**
 * The built-in tools a cycle offers: the groups the agent's config selects
 * (`builtins`, default `spaces`, `knowledge` and `calls`) less the
 * tools it denies, or, for a reflection pass, only the notes tools that write.
 * Built-ins take effect one at a time in the order the model called them, so
 * `enter_space` then `send_message` in one parallel step behaves as written
 * (tools that order themselves, or that only read or compute, run alongside).
 */
import type { Tool, ToolSet } from "ai";
import type { ToolContext } from "../engine/tool-context";
import { builtinAliases, selectedBuiltinNames } from "../config/builtin-tool-names";
import type { SerialQueue } from "../engine/serial-queue";
import { createBatchTool } from "./batch-tool";
import { createDataTools } from "./data-tools";
import { createEnvTools } from "./env-tools";
import { createFileTools } from "./file-tools";
import { createHttpTools } from "./http-tools";
import { createImageTools } from "./image-tools";
import { createKnowledgeTools } from "./knowledge-tools";
import { createNotesTools } from "./notes-tools";
import { createReportTools } from "./report-tools";
import { createSearchTools } from "./search-tools";
import { createSpaceTools, selfOrderedTools } from "./space-tools";
import { createTaskTools } from "./task-tools";
import { createWaitTools } from "./wait-tools";
import { createCategoryTools } from "./category-tools";
import { createTimeTools } from "./time-tools";

/** What a reflection pass may do: read and write notes, nothing else. */
export const reflectionToolNames: ReadonlySet<string> = new Set(["notes_read", "notes_write", "notes_append", "notes_patch"]);

/** Built-ins that need no place in the call order: they compute, read, reach the outside, or order their own calls (`batch`). */
const unorderedTools: ReadonlySet<string> = new Set([
  ...selfOrderedTools,
  "current_time",
  "date_add",
  "date_diff",
  "http_request",
  "http_get",
  "http_post",
  "fetch_page",
  "web_search",
  "json_query",
  "json_parse",
  "json_stringify",
  "base64_encode",
  "base64_decode",
  "hash",
  "uuid",
  "csv_to_json",
  "json_to_csv",
  "notes_list",
  "notes_read",
  "read_file",
  "list_files",
  "grep_files",
  "get_file_info",
  "batch",
  "get_env",
  "task_list",
  "task_replay",
  "session_archive_read",
  // Waiting is not a step in the built-ins' order: it must not hold the others back.
  "wait_for_results",
  "list_by_category",
]);

export function createBuiltinTools(context: ToolContext, queue: SerialQueue): ToolSet {
  const names: ReadonlySet<string> = context.reflection
    ? new Set([...reflectionToolNames].filter((name) => !context.config.deniedTools?.includes(name)))
    : selectedBuiltinNames(context.config);
  const has = (...group: string[]) => group.some((name) => names.has(name));
  const all: Record<string, Tool> = {
    ...(has("enter_space", "leave_space", "send_message", "read_messages", "skip") && createSpaceTools(context, queue)),
    ...(has("set_goals", "get_goals", "delete_goals", "set_memories", "get_memories", "delete_memories", "set_plans", "get_plans", "delete_plans") &&
      createKnowledgeTools(context)),
    ...(has("current_time", "date_add", "date_diff", "sleep") && createTimeTools(context)),
    ...(has("http_request", "http_get", "http_post", "fetch_page") && createHttpTools(context)),
    ...(has("web_search") && createSearchTools(context)),
    ...(has("json_query", "json_parse", "json_stringify", "base64_encode", "base64_decode", "hash", "uuid", "csv_to_json", "json_to_csv") && createDataTools(context)),
    ...(has("notes_list", "notes_read", "notes_write", "notes_append", "notes_patch", "notes_delete", ...Object.keys(builtinAliases)) && createNotesTools(context)),
    ...(has("read_file", "write_file", "list_files", "edit_file", "grep_files", "move_file", "delete_file", "get_file_info", "share_file") && createFileTools(context)),
    ...(has("final_report", "task_status") && createReportTools(context)),
    ...(has("batch") && createBatchTool(context)),
    ...(has("generate_image") && createImageTools(context)),
    ...(has("task_list", "task_replay", "session_archive_read") && createTaskTools(context)),
    ...(has("get_env", "set_env") && createEnvTools(context)),
    ...(has("wait_for_results") && createWaitTools(context)),
    ...(has("list_by_category") && createCategoryTools(context)),
  };
  for (const [alias, target] of Object.entries(builtinAliases)) if (all[target]) all[alias] = all[target];
  const tools: Record<string, Tool> = {};
  for (const [name, definition] of Object.entries(all)) {
    if (!names.has(name)) continue;
    const execute = definition.execute;
    tools[name] =
      !execute || unorderedTools.has(builtinAliases[name] ?? name)
        ? definition
        : ({ ...definition, execute: (input, options) => queue.run(() => execute(input, options)) } as Tool);
  }
  return tools;
}
