/** Run records in D1: one per cycle. */
import { desc, eq } from "drizzle-orm";
import type { Database } from "./client";
import { runs } from "./schema";

export type RunStatus = "running" | "completed" | "failed" | "interrupted";

export type RunStep = {
  stepNumber: number;
  text: string;
  finishReason: string;
  toolCallIds: string[];
  usage: RunUsage;
};

export type RunToolCall = {
  /** The gateway's id for the call (the `callId` results are posted with). */
  toolCallId: string;
  /** The id the model gave the call. */
  modelToolCallId?: string;
  toolName: string;
  stepNumber: number;
  args: unknown;
  status: "running" | "completed" | "failed" | "pending";
  result?: unknown;
  error?: string;
  startedAt: string;
  latencyMs?: number;
  /** The provider the tool came from (`builtin`, `tools`, an MCP server's or a provider's name). */
  provider?: string;
  /** Why it failed: validation, timeout, upstream, permission, internal. */
  failureKind?: string;
  bytesIn?: number;
  /** The whole output's size (before any cut). */
  bytesOut?: number;
  cacheHit?: boolean;
  /** Time spent waiting for a queue slot. */
  queuedMs?: number;
  /** The handle of the whole output, when it was stored behind one. */
  outputHandle?: string;
};

export type RunUsage = { inputTokens: number; outputTokens: number; totalTokens: number };

/** Something that happened to a run besides its steps: a recovery, a retry, a redone step, a delay, an operator's action, a push that failed; or its `final_report`. */
export type RunNote = {
  at: string;
  kind: "recovered" | "retried" | "redone" | "throttled" | "refused" | "superseded" | "interrupted" | "operator" | "push_failed" | "final_report";
  message: string;
  toolCallId?: string;
  report?: unknown;
};

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
};

type RunRow = typeof runs.$inferSelect;

export function toRun(row: RunRow): Run {
  return {
    ...row,
    steps: (row.steps as RunStep[] | null) ?? [],
    toolCalls: (row.toolCalls as RunToolCall[] | null) ?? [],
    usage: (row.usage as RunUsage | null) ?? null,
    notes: (row.notes as RunNote[] | null) ?? [],
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
