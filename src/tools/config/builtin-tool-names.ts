/**
 * The built-in tools, by group. `spaces` and `knowledge` are the tools every
 * agent had before the catalogue; with `calls` they are what an agent gets
 * when its config names no `builtins`; the other groups are the catalogue
 * (adapted to Workers) an agent opts into. Every name here is reserved: a
 * configured tool may not take one, whichever groups the agent has.
 */
export const builtinGroups = {
  spaces: ["enter_space", "leave_space", "send_message", "read_messages", "skip"],
  knowledge: ["set_goals", "delete_goals", "get_goals", "set_memories", "delete_memories", "get_memories", "set_plans", "delete_plans", "get_plans"],
  time: ["current_time", "date_add", "date_diff", "sleep"],
  http: ["http_request", "http_get", "http_post", "fetch_page"],
  /** A search API (the agent's `webSearch` config). */
  search: ["web_search"],
  data: ["json_query", "json_parse", "json_stringify", "base64_encode", "base64_decode", "hash", "uuid", "csv_to_json", "json_to_csv"],
  notes: ["notes_list", "notes_read", "notes_write", "notes_append", "notes_patch", "notes_delete"],
  files: ["read_file", "write_file", "list_files", "edit_file", "grep_files", "move_file", "delete_file", "get_file_info", "share_file"],
  reports: ["final_report", "task_status", "batch"],
  images: ["generate_image"],
  /** The agent's own variables (not the gateway's env or secrets). */
  env: ["get_env", "set_env"],
  /** The agent's own past cycles, read from its run records. */
  tasks: ["task_list", "task_replay", "session_archive_read"],
  /** Waiting for pending calls started in earlier steps (default, like `spaces` and `knowledge`). */
  calls: ["wait_for_results"],
} as const;

export type BuiltinGroup = keyof typeof builtinGroups;
export type BuiltinToolName = (typeof builtinGroups)[BuiltinGroup][number];

export const builtinGroupNames = Object.keys(builtinGroups) as BuiltinGroup[];

/** Without `builtins`: `spaces`, `knowledge` and `calls`, nothing else. */
export const defaultBuiltinGroups: readonly BuiltinGroup[] = ["spaces", "knowledge", "calls"];

export const builtinToolNames: readonly BuiltinToolName[] = builtinGroupNames.flatMap((group) => builtinGroups[group]);

const names: ReadonlySet<string> = new Set(builtinToolNames);

export const isBuiltinToolName = (name: string): name is BuiltinToolName => names.has(name);

/** Built-ins whose call, once it succeeded, ends the cycle (the step it is in is the last). */
export const cycleEndingTools: ReadonlySet<string> = new Set(["skip", "sleep", "final_report"]);

/** What a config says about built-ins (fields of the agent config). */
export type BuiltinSelection = { builtins?: readonly string[]; deniedTools?: readonly string[] };

/** The built-in names an agent has: its groups (or the default), less the tools it denies. */
export function selectedBuiltinNames(selection: BuiltinSelection): Set<BuiltinToolName> {
  const groups = (selection.builtins ?? defaultBuiltinGroups).filter((group): group is BuiltinGroup => group in builtinGroups);
  const denied = new Set(selection.deniedTools ?? []);
  return new Set(groups.flatMap((group) => builtinGroups[group]).filter((name) => !denied.has(name)));
}

/** The groups an agent has (its `builtins`, or the default). */
export function selectedBuiltinGroups(selection: BuiltinSelection): Set<BuiltinGroup> {
  return new Set((selection.builtins ?? defaultBuiltinGroups).filter((group): group is BuiltinGroup => group in builtinGroups));
}
