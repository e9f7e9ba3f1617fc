/** The built-in tools of §7: always present, never visible, never overridden by config. */
export const builtinToolNames = [
  "enter_space",
  "leave_space",
  "send_message",
  "read_messages",
  "skip",
  "set_goals",
  "delete_goals",
  "get_goals",
  "set_memories",
  "delete_memories",
  "get_memories",
  "set_plans",
  "delete_plans",
  "get_plans",
  "wait_for_results",
] as const;

export type BuiltinToolName = (typeof builtinToolNames)[number];

const names: ReadonlySet<string> = new Set(builtinToolNames);

export const isBuiltinToolName = (name: string): name is BuiltinToolName => names.has(name);
