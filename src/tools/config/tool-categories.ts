/**
 * The catalogue's tool categories, for `list_by_category`: every tool of a
 * cycle is in one. Built-ins by their group (a few by their own name, as the
 * catalogue files them), MCP tools `mcp`, and the tools an agent brings
 * itself (configured tools, OpenAPI operations, sub-agents, remote agents)
 * `custom`. `code` is the catalogue's and names no tool here yet.
 */
import { type BuiltinGroup, builtinGroups } from "./builtin-tool-names";

export const toolCategories = ["system", "file", "network", "data", "memory", "code", "mcp", "custom"] as const;
export type ToolCategory = (typeof toolCategories)[number];

const groupCategories: Record<BuiltinGroup, ToolCategory> = {
  spaces: "system",
  knowledge: "memory",
  calls: "system",
  time: "system",
  env: "system",
  reports: "system",
  categories: "system",
  http: "network",
  search: "network",
  images: "network",
  data: "data",
  tasks: "data",
  notes: "memory",
  memory: "memory",
  files: "file",
};

/** The catalogue files the session tool under system, apart from the task tools of its group. */
const nameCategories: Record<string, ToolCategory> = { session_archive_read: "system" };

const groupOf = new Map<string, BuiltinGroup>(Object.entries(builtinGroups).flatMap(([group, names]) => names.map((name) => [name, group as BuiltinGroup] as const)));

/** A tool's category from the kind of provider it came from and the name it has there. */
export function toolCategory(providerKind: string, name: string): ToolCategory {
  if (providerKind === "builtin") {
    const group = groupOf.get(name);
    return nameCategories[name] ?? (group ? groupCategories[group] : "system");
  }
  if (providerKind === "outputs") return "system";
  if (providerKind === "mcp") return "mcp";
  return "custom";
}
