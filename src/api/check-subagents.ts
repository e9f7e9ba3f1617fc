/**
 * The agents a config lists as sub-agents (`providers[].agents`, and
 * `agent` tools) must exist when it is saved: a typo is a 400 naming its
 * path, not a tool that fails at every call. (An agent deleted later makes
 * its tool fail with a message saying so.)
 */
import { inArray } from "drizzle-orm";
import type { AgentConfig } from "../agents/agent-config";
import { chunked } from "../db/chunked";
import type { Database } from "../db/client";
import { agents } from "../db/schema";
import { validationError } from "./context";
import { destinationsOf } from "../tools";

/** `at` is where the config sits in the request body, for the paths of the problems. */
export async function checkSubagents(config: AgentConfig, database: Database, at: (string | number)[] = ["config"]): Promise<void> {
  const wanted: { agentId: string; path: (string | number)[] }[] = [];
  config.tools.forEach((tool, index) => {
    if (tool.executionType === "agent") wanted.push({ agentId: tool.execution.agentId, path: [...at, "tools", index, "execution", "agentId"] });
  });
  (config.providers ?? []).forEach((provider, index) => {
    if (provider.type !== "agents") return;
    for (const [agentIndex, agent] of provider.agents.entries()) wanted.push({ agentId: agent.agentId, path: [...at, "providers", index, "agents", agentIndex, "agentId"] });
  });
  if (config.router) {
    for (const [index, destination] of destinationsOf(config.router).entries()) wanted.push({ agentId: destination.agentId, path: [...at, "router", "destinations", index] });
  }
  if (wanted.length === 0) return;
  const ids = [...new Set(wanted.map((entry) => entry.agentId))];
  const found = new Set<string>();
  for (const part of chunked(ids)) {
    for (const row of await database.select({ id: agents.id }).from(agents).where(inArray(agents.id, part))) found.add(row.id);
  }
  const missing = wanted.filter((entry) => !found.has(entry.agentId));
  if (missing.length > 0)
    throw validationError(
      missing.map((entry) => ({ path: entry.path, message: `There is no agent "${entry.agentId}"` })),
      "body",
    );
}
