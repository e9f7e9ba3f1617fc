/**
 * The tools of a config whose calls wait on a PendingToolCall (external,
 * space, sub-agents): when a run fails, such a call stays answerable and its
 * late result reaches the inbox, so the run record shows it `pending`.
 */
import type { ToolSettings } from "../engine/tool-context";
import { agentProviderTools } from "./agents-provider";

export function pendingToolNames(config: ToolSettings): Set<string> {
  const names = config.tools.filter((tool) => tool.executionType === "external" || tool.executionType === "space" || tool.executionType === "agent").map((tool) => tool.name);
  for (const provider of config.providers ?? []) {
    if (provider.type === "agents") names.push(...agentProviderTools(provider).map((tool) => tool.name));
  }
  return new Set(names);
}
