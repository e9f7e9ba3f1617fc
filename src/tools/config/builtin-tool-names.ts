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
  /** The notes tools under the catalogue's names (`builtinAliases`). */
  memory: ["memory_list", "memory_read", "memory_write", "memory_patch", "memory_append"],
  files: ["read_file", "write_file", "list_files", "edit_file", "grep_files", "move_file", "delete_file", "get_file_info", "share_file"],
  reports: ["final_report", "task_status", "batch"],
  images: ["generate_image"],
  /** The agent's own variables (not the gateway's env or secrets). */
  env: ["get_env", "set_env"],
  /** The agent's own past cycles, read from its run records. */
  tasks: ["task_list", "task_replay", "session_archive_read"],
  /** Waiting for pending calls started in earlier steps (default, like `spaces` and `knowledge`). */
  calls: ["wait_for_results"],
  /** The agent's tools by the catalogue's categories (`tool-categories.ts`). */
  categories: ["list_by_category"],
} as const;

/**
 * Built-ins that are another built-in under a second name: the same tool, its
 * approval and its denial. The catalogue calls the notes tools `memory_*`.
 */
export const builtinAliases: Readonly<Record<string, BuiltinToolName>> = {
  memory_list: "notes_list",
  memory_read: "notes_read",
  memory_write: "notes_write",
  memory_patch: "notes_patch",
  memory_append: "notes_append",
};

export type BuiltinGroup = keyof typeof builtinGroups;
export type BuiltinToolName = (typeof builtinGroups)[BuiltinGroup][number];

export const builtinGroupNames = Object.keys(builtinGroups) as BuiltinGroup[];

/** Without `builtins`: `spaces`, `knowledge` and `calls`, nothing else. */
export const defaultBuiltinGroups: readonly BuiltinGroup[] = ["spaces", "knowledge", "calls"];

export const builtinToolNames: readonly BuiltinToolName[] = builtinGroupNames.flatMap((group) => builtinGroups[group]);

const names: ReadonlySet<string> = new Set(builtinToolNames);

export const isBuiltinToolName = (name: string): name is BuiltinToolName => names.has(name);

/** Tools whose call, once it succeeded, ends the cycle (the step it is in is the last): built-ins, and the router's handoff (`providers/router-provider.ts`). */
export const cycleEndingTools: ReadonlySet<string> = new Set(["skip", "sleep", "final_report", "router__handoff-to"]);

/** What a config says about built-ins (fields of the agent config). */
export type BuiltinSelection = { builtins?: readonly string[]; deniedTools?: readonly string[] };

/** The built-in names an agent has: its groups (or the default), less the tools it denies. */
export function selectedBuiltinNames(selection: BuiltinSelection): Set<BuiltinToolName> {
  const groups = (selection.builtins ?? defaultBuiltinGroups).filter((group): group is BuiltinGroup => group in builtinGroups);
  const denied = new Set(selection.deniedTools ?? []);
  // A built-in denied under its own name is denied under its alias too.
  return new Set(groups.flatMap((group) => builtinGroups[group]).filter((name) => !denied.has(name) && !(name in builtinAliases && denied.has(builtinAliases[name]))));
}

/** The groups an agent has (its `builtins`, or the default). */
export function selectedBuiltinGroups(selection: BuiltinSelection): Set<BuiltinGroup> {
  return new Set((selection.builtins ?? defaultBuiltinGroups).filter((group): group is BuiltinGroup => group in builtinGroups));
}
