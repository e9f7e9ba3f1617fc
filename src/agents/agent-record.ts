/** Agent rows: an agent is an entity plus its validated config. */
import { eq } from "drizzle-orm";
import { AgentConfig } from "./agent-config";
import type { Database } from "../db/client";
import { agents } from "../db/schema";

export type AgentRecord = {
  id: string;
  entityId: string;
  name: string;
  config: AgentConfig;
  createdAt: string;
  updatedAt: string;
};

/**
 * A stored config, read through the current schema: fields added since it was
 * saved get their defaults, so an upgrade never meets a config without them.
 */
export function storedConfig(raw: unknown): AgentConfig {
  const parsed = AgentConfig.safeParse(raw);
  if (parsed.success) return parsed.data;
  // Saved under rules that have since tightened: keep it, with today's defaults underneath.
  const defaults = AgentConfig.parse({ agent: { name: "agent" }, model: { provider: "scripted", turns: [] } });
  const config = raw as Partial<AgentConfig>;
  return { ...defaults, ...config, loop: { ...defaults.loop, ...config.loop }, limits: { ...defaults.limits, ...config.limits } } as AgentConfig;
}

export async function getAgent(database: Database, agentId: string): Promise<AgentRecord | undefined> {
  const row = await database.select().from(agents).where(eq(agents.id, agentId)).get();
  return row ? { ...row, config: storedConfig(row.config) } : undefined;
}
