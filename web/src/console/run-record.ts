/**
 * A run's steps, tool calls and notes, read from the run record the gateway
 * sends (its OpenAPI schema leaves steps and calls open): each field checked
 * for its type, so a record from an older or newer gateway shows what it
 * has instead of breaking the page. Also the pending-call rows of an agent.
 */

export type StepRecord = { stepNumber: number; text: string; finishReason: string; toolCallIds: string[]; inputTokens?: number; outputTokens?: number };

export type ToolCallRecord = {
  toolCallId: string;
  toolName: string;
  stepNumber: number;
  status: string;
  args: unknown;
  result: unknown;
  error?: string;
  startedAt?: string;
  latencyMs?: number;
  provider?: string;
  failureKind?: string;
  cacheHit?: boolean;
  queuedMs?: number;
};

export type PendingCallRecord = {
  toolCallId: string;
  runId: string;
  toolName: string;
  kind: string;
  executionType: string;
  status: string;
  args: unknown;
  result: unknown;
  spaceId?: string;
  createdAt?: string;
  expiresAt?: string;
  resolvedAt?: string;
};

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const count = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** The entries of `values` that `read` makes sense of, in order. */
function readEach<T>(values: unknown, read: (fields: Fields) => T | undefined): T[] {
  if (!Array.isArray(values)) return [];
  const entries: T[] = [];
  for (const value of values) {
    const entry = isFields(value) ? read(value) : undefined;
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

export function readSteps(values: unknown): StepRecord[] {
  return readEach(values, (fields) => {
    const stepNumber = count(fields.stepNumber);
    if (stepNumber === undefined) return undefined;
    const usage = isFields(fields.usage) ? fields.usage : {};
    return {
      stepNumber,
      text: text(fields.text) ?? "",
      finishReason: text(fields.finishReason) ?? "",
      toolCallIds: Array.isArray(fields.toolCallIds) ? fields.toolCallIds.filter((id): id is string => typeof id === "string") : [],
      inputTokens: count(usage.inputTokens),
      outputTokens: count(usage.outputTokens),
    };
  });
}

export function readToolCalls(values: unknown): ToolCallRecord[] {
  return readEach(values, (fields) => {
    const toolCallId = text(fields.toolCallId);
    const toolName = text(fields.toolName);
    if (toolCallId === undefined || toolName === undefined) return undefined;
    return {
      toolCallId,
      toolName,
      stepNumber: count(fields.stepNumber) ?? 0,
      status: text(fields.status) ?? "unknown",
      args: fields.args,
      result: fields.result,
      error: text(fields.error),
      startedAt: text(fields.startedAt),
      latencyMs: count(fields.latencyMs),
      provider: text(fields.provider),
      failureKind: text(fields.failureKind),
      cacheHit: typeof fields.cacheHit === "boolean" ? fields.cacheHit : undefined,
      queuedMs: count(fields.queuedMs),
    };
  });
}

export function readPendingCalls(values: unknown): PendingCallRecord[] {
  return readEach(values, (fields) => {
    const toolCallId = text(fields.toolCallId);
    const runId = text(fields.runId);
    if (toolCallId === undefined || runId === undefined) return undefined;
    return {
      toolCallId,
      runId,
      toolName: text(fields.toolName) ?? "",
      kind: text(fields.kind) ?? "call",
      executionType: text(fields.executionType) ?? "",
      status: text(fields.status) ?? "unknown",
      args: fields.args,
      result: fields.result,
      spaceId: text(fields.spaceId),
      createdAt: text(fields.createdAt),
      expiresAt: text(fields.expiresAt),
      resolvedAt: text(fields.resolvedAt),
    };
  });
}

/** A run's usage in tokens, when it says. */
export function readUsage(value: unknown): { inputTokens: number; outputTokens: number } | undefined {
  if (!isFields(value)) return undefined;
  const inputTokens = count(value.inputTokens);
  const outputTokens = count(value.outputTokens);
  return inputTokens === undefined || outputTokens === undefined ? undefined : { inputTokens, outputTokens };
}
