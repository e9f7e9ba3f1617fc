/** What the goal, memory and plan handlers need: the database and whose knowledge it is. */
import type { Database } from "../db/client";

export type PlanSchedule = { planId: string; nextRunAt: string | null };

export type KnowledgeContext = {
  database: Database;
  agentId: string;
  /** Called after plans change so the agent object re-arms its alarm. */
  plansChanged?: (changed: PlanSchedule[], deletedIds: string[]) => void | Promise<void>;
};

/** What a tool that reads or changes knowledge is lent: the store, and a way to say it changed. */
export type KnowledgeAccess = {
  knowledge: KnowledgeContext;
  /** Tells the agent object its goals/memories/plans changed (prompt cache). */
  knowledgeChanged(): void;
};
