/**
 * On start: if the previous instance died while a cycle was running (deploy,
 * eviction, crash), its run becomes `interrupted` and its events go back in
 * the queue. Returns the interrupted run's id, if there was one.
 */
import { eq } from "drizzle-orm";
import { getDatabase } from "../db/client";
import { runs } from "../db/schema";
import type { AppEnv } from "../env";
import type { AgentStorage } from "./agent-storage";

export type ActiveRun = { runId: string; startedAt: string };

export async function recoverInterruptedRun(env: AppEnv, storage: AgentStorage): Promise<string | undefined> {
  const active = storage.get<ActiveRun>("active_run");
  if (!active) return undefined;
  storage.release(active.runId);
  storage.delete("active_run");
  try {
    await getDatabase(env.DB)
      .update(runs)
      .set({ status: "interrupted", error: "The agent object restarted while this cycle ran; its events were queued again", finishedAt: new Date().toISOString() })
      .where(eq(runs.id, active.runId));
  } catch (error) {
    console.error("could not mark run interrupted", active.runId, error);
  }
  return active.runId;
}
