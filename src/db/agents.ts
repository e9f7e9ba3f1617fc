/** Agent rows: an agent is an entity plus its validated config. */
import { eq } from "drizzle-orm";
import type { AgentConfig } from "../agents/agent-config";
import type { Database } from "./client";
import { agents } from "./schema";

export type AgentRecord = {
  id: string;
  entityId: string;
  name: string;
  config: AgentConfig;
  createdAt: string;
  updatedAt: string;
};

export async function getAgent(database: Database, agentId: string): Promise<AgentRecord | undefined> {
  const row = await database.select().from(agents).where(eq(agents.id, agentId)).get();
  return row ? { ...row, config: row.config as AgentConfig } : undefined;
}

export async function getAgentByEntityId(database: Database, entityId: string): Promise<AgentRecord | undefined> {
  const row = await database.select().from(agents).where(eq(agents.entityId, entityId)).get();
  return row ? { ...row, config: row.config as AgentConfig } : undefined;
}
