/**
 * An agent as one portable document (`GET /api/agents/:agentId/export`): its
 * config as stored (secrets are names there, never values), its goals in the
 * order the agent sees them, memories, plans as schedules (when they run next
 * is worked out again by the import), and its notes read from R2. An export
 * the import could not take back is refused instead of cut short: past the
 * document limits, or holding the value of a secret anywhere.
 */
import type { Database } from "../../db/client";
import type { AppEnv } from "../../env";
import { listGoals } from "../../knowledge/goals";
import { listMemories } from "../../knowledge/memories";
import { listPlans, type Plan } from "../../knowledge/plans";
import { listNotes, maxNoteBytes, notesPrefix, readText } from "../../tools";
import { agentDocumentFormat, agentDocumentVersion, documentLimits, maxDocumentBytes, type AgentDocument, type DocumentPlan } from "./agent-document";
import type { AgentRecord } from "../agent-record";
import { findSecretValue, referencesIn, secretNamesOf } from "./document-strings";

export type ExportRefusal = { code: "export_too_large" | "export_refused"; message: string };
export type ExportResult = { ok: true; document: AgentDocument } | ({ ok: false } & ExportRefusal);

/** Notes are read a few at a time (each read is an R2 request of this invocation). */
const noteReadsAtOnce = 6;

export async function exportAgent(env: AppEnv, database: Database, agent: AgentRecord, now = new Date()): Promise<ExportResult> {
  const knowledge = { database, agentId: agent.id };
  const [goals, memories, plans, notes] = await Promise.all([
    listGoals(knowledge),
    listMemories(knowledge),
    listPlans(knowledge),
    listNotes(env.FILES, agent.id, documentLimits.notes),
  ]);
  const counts = { goals: goals.length, memories: memories.length, plans: plans.length, notes: notes.notes.length + (notes.truncated ? 1 : 0) };
  for (const [what, count] of Object.entries(counts) as [keyof typeof documentLimits, number][]) {
    if (count > documentLimits[what]) return tooLarge(`The agent has more than ${documentLimits[what]} ${what}, the most a document holds`);
  }

  const noteEntries: AgentDocument["notes"] = [];
  const paths = notes.notes.map((note) => note.path).sort();
  for (let start = 0; start < paths.length; start += noteReadsAtOnce) {
    const reads = await Promise.all(
      paths.slice(start, start + noteReadsAtOnce).map(async (path) => ({ path, read: await readText(env.FILES, `${notesPrefix(agent.id)}${path}`, maxNoteBytes) })),
    );
    for (const { path, read } of reads) {
      if (read.ok) noteEntries.push({ path, content: read.value.text });
      else if (read.reason === "too_large") return tooLarge(`The note "${path}" is ${read.size} bytes, over the ${maxNoteBytes}-byte limit of a note`);
      else if (read.reason === "not_text") return { ok: false, code: "export_refused", message: `The note "${path}" is not UTF-8 text` };
      // not_found: deleted while it was being exported; it is simply not in the document.
    }
  }

  const document: AgentDocument = {
    format: agentDocumentFormat,
    version: agentDocumentVersion,
    exportedAt: now.toISOString(),
    agent: { name: agent.name, config: agent.config },
    goals: goals.map(({ description, priority, isLongTerm, isCompleted }) => ({ description, priority, isLongTerm, isCompleted })),
    memories: memories.map(({ key, value }) => ({ key, value })),
    plans: plans.map(portablePlan),
    notes: noteEntries,
    references: referencesIn(agent.config, ["agent", "config"]),
  };

  const bytes = new TextEncoder().encode(JSON.stringify(document)).byteLength;
  if (bytes > maxDocumentBytes) return tooLarge(`The document would be ${bytes} bytes, over the ${maxDocumentBytes}-byte limit of an import`);
  // Configs name secrets; a value pasted in literally (a header, a note, a memory) would leave with the file.
  const leaked = findSecretValue(document, secretNamesOf(agent.config), env);
  if (leaked) {
    return {
      ok: false,
      code: "export_refused",
      message: `The value of the secret "${leaked.name}" appears at ${leaked.path}; nothing was exported. Name the secret instead (\${env.${leaked.name}} in a header, apiKeyEnv for a model) and export again`,
    };
  }
  return { ok: true, document };
}

/** A plan's schedule without its run state; a one-shot plan that ran says it is finished. */
function portablePlan(plan: Plan): DocumentPlan {
  return {
    name: plan.name,
    instruction: plan.instruction,
    ...(plan.runAt !== null && { runAt: plan.runAt }),
    ...(plan.cron !== null && { cron: plan.cron }),
    ...(plan.everySeconds !== null && { everySeconds: plan.everySeconds }),
    ...(plan.timezone !== null && { timezone: plan.timezone }),
    ...(plan.runAt !== null && plan.nextRunAt === null && { finished: true }),
  };
}

function tooLarge(message: string): ExportResult {
  return { ok: false, code: "export_too_large", message };
}
