/** Run records in D1: one per cycle. */
import { desc, eq } from "drizzle-orm";
import { z } from "zod";
import { parseStoredValue } from "./parse-stored-json";
import type { Database } from "./client";
import { runs } from "./schema";

export type RunStatus = "running" | "completed" | "failed" | "interrupted";

export const RunUsage = z.object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() });
export type RunUsage = z.infer<typeof RunUsage>;

export const RunStep = z.object({
  stepNumber: z.number().int(),
  text: z.string(),
  finishReason: z.string(),
  toolCallIds: z.array(z.string()),
  usage: RunUsage,
});
export type RunStep = z.infer<typeof RunStep>;

export const RunToolCall = z.object({
  /** The gateway's id for the call (the `callId` results are posted with). */
  toolCallId: z.string(),
  /** The id the model gave the call. */
  modelToolCallId: z.string().optional(),
  toolName: z.string(),
  stepNumber: z.number().int(),
  args: z.unknown(),
  status: z.enum(["running", "completed", "failed", "pending"]),
  result: z.unknown().optional(),
  error: z.string().optional(),
  startedAt: z.string(),
  latencyMs: z.number().optional(),
  /** The provider the tool came from (`builtin`, `tools`, an MCP server's or a provider's name). */
  provider: z.string().optional(),
  /** Why it failed: validation, timeout, upstream, permission, internal. */
  failureKind: z.string().optional(),
  bytesIn: z.number().optional(),
  /** The whole output's size (before any cut). */
  bytesOut: z.number().optional(),
  cacheHit: z.boolean().optional(),
  /** Time spent waiting for a queue slot. */
  queuedMs: z.number().optional(),
  /** The handle of the whole output, when it was stored behind one. */
  outputHandle: z.string().optional(),
});
export type RunToolCall = z.infer<typeof RunToolCall>;

/** Something that happened to a run besides its steps: a recovery, a retry, a redone step, a delay, an operator's action, a push that failed; or its `final_report`, or a reflection pass's answer; or the caller's settings a sub-agent's run took (`inherited`). */
export const RunNote = z.object({
  at: z.string(),
  kind: z.enum(["recovered", "retried", "redone", "throttled", "refused", "superseded", "interrupted", "operator", "push_failed", "final_report", "reflection", "inherited"]),
  message: z.string(),
  /** A `final_report` note: the call that made it and the report itself. */
  toolCallId: z.string().optional(),
  report: z.unknown().optional(),
});
export type RunNote = z.infer<typeof RunNote>;

export type Run = {
  id: string;
  agentId: string;
  agentEntityId: string;
  status: RunStatus;
  trigger: unknown;
  steps: RunStep[];
  toolCalls: RunToolCall[];
  usage: RunUsage | null;
  error: string | null;
  notes: RunNote[];
  d1Statements: number | null;
  createdAt: string;
  finishedAt: string | null;
  /** The run whose sub-agent call gave this one its task (`run-trees.ts`). */
  parentRunId: string | null;
};

type RunRow = typeof runs.$inferSelect;

/** A run row with its JSON columns parsed; a column that does not parse reads as empty, and is logged (the row's other columns still stand). */
export function toRun(row: RunRow): Run {
  const column = <S extends z.ZodType>(name: string, schema: S, value: unknown): z.infer<S> | null => {
    const parsed = parseStoredValue(schema.nullable(), value);
    if (parsed.ok) return parsed.value;
    console.error(`unreadable ${name} on run ${row.id}, shown as empty`, parsed.reason);
    return null;
  };
  return {
    ...row,
    steps: column("steps", z.array(RunStep), row.steps) ?? [],
    toolCalls: column("tool calls", z.array(RunToolCall), row.toolCalls) ?? [],
    usage: column("usage", RunUsage, row.usage),
    notes: column("notes", z.array(RunNote), row.notes) ?? [],
  };
}

export async function getRun(database: Database, runId: string): Promise<Run | undefined> {
  const row = await database.select().from(runs).where(eq(runs.id, runId)).get();
  return row ? toRun(row) : undefined;
}

export async function listRuns(database: Database, agentId: string, limit: number): Promise<Run[]> {
  const rows = await database.select().from(runs).where(eq(runs.agentId, agentId)).orderBy(desc(runs.createdAt), desc(runs.id)).limit(limit);
  return rows.map(toRun);
}
