/** Agents for the discovery routes: a keyset page of summaries, and the agents of a space with their configs. */
import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import type { Page } from "../db/discovery";
import { pageAfter, toPage, type PageCursor } from "../db/page-cursor";
import { agents, members } from "../db/schema";
import { storedConfig } from "./agent-record";

export type AgentSummary = {
  id: string;
  entityId: string;
  name: string;
  description?: string;
  model: { provider: string; name?: string };
  createdAt: string;
  updatedAt: string;
};

export async function listAgentsPage(database: Database, options: { limit: number; cursor?: PageCursor }): Promise<Page<AgentSummary>> {
  const { where, orderBy } = pageAfter(agents, options.cursor);
  const rows = await database
    .select()
    .from(agents)
    .where(where)
    .orderBy(...orderBy)
    .limit(options.limit + 1);
  const page = toPage(rows, options.limit);
  return {
    nextCursor: page.nextCursor,
    items: page.items.map((row) => {
      const config = storedConfig(row.config);
      const model: AgentSummary["model"] = { provider: config.model.provider };
      if ("name" in config.model && config.model.name) model.name = config.model.name;
      const summary: AgentSummary = { id: row.id, entityId: row.entityId, name: row.name, model, createdAt: row.createdAt, updatedAt: row.updatedAt };
      if (config.agent.description) summary.description = config.agent.description;
      return summary;
    }),
  };
}

/** The agents that are members of a space, with their configs (read through the current schema). */
export async function listAgentsInSpace(database: Database, spaceId: string) {
  const rows = await database
    .select({ id: agents.id, entityId: agents.entityId, name: agents.name, config: agents.config })
    .from(members)
    .innerJoin(agents, eq(members.entityId, agents.entityId))
    .where(eq(members.spaceId, spaceId));
  return rows.map((row) => ({ ...row, config: storedConfig(row.config) }));
}
