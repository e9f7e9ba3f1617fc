/**
 * A note added to a run from outside the attempt that runs it (an operator's
 * action, a push that failed), wherever the run is at: on the journal while
 * it is active (the attempt merges it when it saves) or on its queued record
 * while that waits for D1, and on the D1 row at once, so `GET /api/runs/:id`
 * shows it while the run still goes on. The note is not doubled: the
 * record's final write replaces the row's notes with the run's own, which
 * hold it.
 */
import type { RunNote } from "../db/runs";
import type { AgentStorage } from "./agent-storage";
import type { CycleJournal } from "./cycle-journal";
import { noteOnQueuedRecord } from "./finish-run";

export type RunNotesHost = { journal: CycleJournal; storage: AgentStorage; database: D1Database };

export async function noteOnRun(host: RunNotesHost, runId: string, note: RunNote): Promise<void> {
  const active = host.journal.active();
  if (active?.runId === runId) {
    active.notes.push(note);
    host.journal.saveRun(active);
  } else {
    noteOnQueuedRecord(host.storage, runId, note);
  }
  // One statement appends, so notes added at the same time are all kept.
  await host.database.prepare("UPDATE runs SET notes = json_insert(COALESCE(notes, '[]'), '$[#]', json(?)) WHERE id = ?").bind(JSON.stringify(note), runId).run();
}
