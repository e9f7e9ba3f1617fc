/**
 * Writes a checked agent document as a new agent (`POST /api/agents/import`):
 * its notes into R2 first (under the new agent's prefix, which nothing reads
 * until the agent exists), then every D1 row (entity, agent, goals, memories,
 * plans) in one batch, which D1 applies whole or not at all, then the plans'
 * deadlines in the agent's object. If anything after the first write fails,
 * what was written is removed again: an import is all or nothing.
 *
 * Row ids follow from the agent id (goals by position) and rows conflict on
 * their natural keys, so a retry that races the first request with the same
 * Idempotency-Key (same agent id) writes nothing twice.
 */
import { eq } from "drizzle-orm";
import { chunked } from "../../db/chunked";
import type { Database } from "../../db/client";
import { agents, entities, goals, memories, plans } from "../../db/schema";
import type { AppEnv } from "../../env";
import { createId } from "../../ids";
import type { PlanSchedule } from "../../knowledge/knowledge-context";
import { nextRunAt } from "../../knowledge/plan-schedule";
import { listPlans } from "../../knowledge/plans";
import { notesPrefix, summaryOf } from "../../tools";
import { checkFilePath } from "../../security/storage-path";
import type { AgentConfig } from "../agent-config";
import type { AgentDocument } from "./agent-document";
import { agentLifecycle } from "../agent-lifecycle";

export type ImportTarget = { agentId: string; entityId: string };

export async function importAgent(env: AppEnv, database: Database, target: ImportTarget, document: AgentDocument, config: AgentConfig, now = Date.now()): Promise<void> {
  const written: string[] = [];
  let rowsWritten = false;
  try {
    for (const note of document.notes) {
      const checked = checkFilePath(note.path);
      if (!checked.ok) throw new Error(`a note path passed the document check but not the path rule: ${checked.error}`);
      const key = `${notesPrefix(target.agentId)}${checked.path}`;
      await env.FILES.put(key, note.content, { customMetadata: { summary: summaryOf(note.content) }, httpMetadata: { contentType: "text/markdown; charset=utf-8" } });
      written.push(key);
    }
    const [entity, agent, ...knowledge] = rowsOf(database, target, document, config, now);
    const [, created] = await database.batch([entity, agent, ...knowledge]);
    // A retry racing the first request finds the rows written already: they are not its to remove.
    rowsWritten = created.length > 0;
    await armImportedPlans(env, database, target.agentId);
  } catch (error) {
    await undo(env, database, target, written, rowsWritten);
    throw error;
  }
}

/** The plans' deadlines in the agent's object, from the rows D1 has (idempotent: one deadline per plan id). */
export async function armImportedPlans(env: AppEnv, database: Database, agentId: string): Promise<void> {
  const stored = await listPlans({ database, agentId });
  const schedules: PlanSchedule[] = stored.map((plan) => ({ planId: plan.id, nextRunAt: plan.nextRunAt }));
  if (schedules.length > 0) await agentLifecycle.plansImported(env, agentId, schedules);
}

function rowsOf(database: Database, target: ImportTarget, document: AgentDocument, config: AgentConfig, now: number) {
  const nowIso = new Date(now).toISOString();
  const agentId = target.agentId;
  const name = config.agent.name;
  // Goals keep their order: the agent lists them by priority, then by age.
  const goalRows = document.goals.map((goal, index) => ({
    id: `goal_${agentId.replace(/^agt_/, "")}_${index}`,
    agentId,
    description: goal.description,
    priority: goal.priority ?? 0,
    isLongTerm: goal.isLongTerm ?? false,
    isCompleted: goal.isCompleted ?? false,
    createdAt: new Date(now - document.goals.length + index).toISOString(),
    updatedAt: nowIso,
  }));
  const memoryRows = document.memories.map((memory) => ({ id: createId("mem"), agentId, key: memory.key, value: memory.value, createdAt: nowIso, updatedAt: nowIso }));
  const planRows = document.plans.map((plan) => {
    const timing = { runAt: plan.runAt ?? null, cron: plan.cron ?? null, everySeconds: plan.everySeconds ?? null, timezone: plan.timezone ?? null };
    // When it runs next is worked out from now, in its own time zone; a finished one-shot plan stays finished.
    const next = plan.finished ? null : nextRunAt(timing, now);
    return {
      id: createId("plan"),
      agentId,
      name: plan.name,
      instruction: plan.instruction,
      ...timing,
      nextRunAt: next === null ? null : new Date(next).toISOString(),
      lastRunAt: null,
      createdAt: nowIso,
      updatedAt: nowIso,
    };
  });
  return [
    database.insert(entities).values({ id: target.entityId, type: "agent", name }).onConflictDoNothing({ target: entities.id }),
    database
      .insert(agents)
      .values({ id: agentId, entityId: target.entityId, name, config, createdAt: nowIso, updatedAt: nowIso })
      .onConflictDoNothing({ target: agents.id })
      .returning({ id: agents.id }),
    ...chunked(goalRows, { parametersPerItem: 8 }).map((rows) => database.insert(goals).values(rows).onConflictDoNothing({ target: goals.id })),
    ...chunked(memoryRows, { parametersPerItem: 6 }).map((rows) =>
      database
        .insert(memories)
        .values(rows)
        .onConflictDoNothing({ target: [memories.agentId, memories.key] }),
    ),
    ...chunked(planRows, { parametersPerItem: 12 }).map((rows) =>
      database
        .insert(plans)
        .values(rows)
        .onConflictDoNothing({ target: [plans.agentId, plans.name] }),
    ),
  ] as const;
}

/** Removes what a failed import wrote: its notes, and its rows (the entity's delete cascades to the agent and its knowledge). */
async function undo(env: AppEnv, database: Database, target: ImportTarget, noteKeys: string[], rowsWritten: boolean): Promise<void> {
  try {
    if (rowsWritten) {
      await database.delete(entities).where(eq(entities.id, target.entityId));
      await agentLifecycle.deleted(env, target.agentId);
    }
    if (noteKeys.length > 0) await env.FILES.delete(noteKeys);
  } catch (error) {
    console.error("could not remove what a failed import wrote", target.agentId, error);
  }
}
