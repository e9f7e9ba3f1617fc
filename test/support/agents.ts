/** Helpers for agent tests: create scripted agents and wait for their runs. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { AgentDO } from "../../src/agents/agent-do";
import { AgentStorage } from "../../src/agents/agent-storage";
import { CycleJournal } from "../../src/agents/cycle-journal";
import { secret } from "./api";

export type ScriptedTurn = { text?: string; toolCalls?: { name: string; args: Record<string, unknown> }[] };

export function scriptedConfig(turns: ScriptedTurn[], extra: Record<string, unknown> = {}) {
  return { agent: { name: "Scripty", system: "You are a test agent." }, model: { provider: "scripted", turns }, ...extra };
}

export async function createAgent(config: Record<string, unknown>): Promise<{ id: string; entityId: string }> {
  const { status, body } = await secret<{ id: string; entityId: string }>("/api/agents", { body: { config } });
  if (status !== 201) throw new Error(`createAgent: ${status} ${JSON.stringify(body)}`);
  return body;
}

export type RunRecord = {
  id: string;
  status: string;
  trigger: { type: string; [key: string]: unknown }[];
  steps: { stepNumber: number; toolCallIds: string[]; text: string }[];
  toolCalls: {
    toolCallId: string;
    toolName: string;
    status: string;
    result?: unknown;
    error?: string;
    latencyMs?: number;
    args: unknown;
    provider?: string;
    failureKind?: string;
    bytesIn?: number;
    bytesOut?: number;
    cacheHit?: boolean;
    queuedMs?: number;
    outputHandle?: string;
  }[];
  toolStats?: {
    toolName: string;
    provider: string;
    calls: number;
    failed: number;
    failures: Record<string, number>;
    cacheHits: number;
    latencyMs: { median: number; p95: number };
    bytesIn: number;
    bytesOut: number;
  }[];
  usage: { inputTokens: number; outputTokens: number; totalTokens: number } | null;
  error: string | null;
  notes: { at: string; kind: string; message: string }[];
  d1Statements: number | null;
  parentRunId?: string | null;
  childRunIds?: string[];
  totalUsage?: { inputTokens: number; outputTokens: number; totalTokens: number } | null;
};

export async function listRuns(agentId: string): Promise<RunRecord[]> {
  const { body } = await secret<{ runs: RunRecord[] }>(`/api/agents/${agentId}/runs?limit=200`);
  return body.runs;
}

/** Polls until `count` runs of the agent have finished (not running). */
export async function waitForRuns(agentId: string, count: number, timeoutMs = 10_000): Promise<RunRecord[]> {
  const start = Date.now();
  for (;;) {
    const runs = await listRuns(agentId);
    const finished = runs.filter((run) => run.status !== "running");
    if (finished.length >= count) return finished.reverse();
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${count} runs; have ${JSON.stringify(runs.map((run) => run.status))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function agentObject(agentId: string) {
  return env.AGENT.get(env.AGENT.idFromName(agentId));
}

/**
 * Reads the agent object's storage from inside it (tests only; no RPC for
 * this in production). For what no route can tell: the inbox, staged
 * outcomes, the running cycle's journal, the deadline table and the alarm.
 * Run status, pending calls, messages and statistics have routes: use those.
 */
export async function agentState(agentId: string) {
  return runInDurableObject(agentObject(agentId), async (_instance: AgentDO, state) => {
    const storage = new AgentStorage(state.storage);
    const journal = new CycleJournal(state.storage.sql, storage);
    const active = journal.active();
    return {
      pending: storage.pendingEvents().length,
      deadlines: storage.deadlines().map(({ id, kind, dueAt }) => ({ id, kind, dueAt })),
      staged: storage.allStaged().length,
      activeRun: active,
      openCalls: active ? journal.openCalls(active.runId) : [],
      alarm: await state.storage.getAlarm(),
    };
  });
}

export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what} not met in time`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/**
 * Waits until the agent has nothing queued, running or backing off, then
 * returns its runs (oldest first). Everything a request delivered to the
 * agent was in its inbox before the request answered, so once this returns,
 * "no further run happened" is a fact, not a guess after a sleep.
 */
export async function settledRuns(agentId: string, timeoutMs = 10_000): Promise<RunRecord[]> {
  await waitUntil(
    async () => {
      const state = await agentState(agentId);
      return state.pending === 0 && state.activeRun === undefined && state.staged === 0;
    },
    timeoutMs,
    "the agent to settle",
  );
  return (await listRuns(agentId)).reverse();
}

/**
 * Proves an agent was not woken by something that happened before: a fresh
 * event is pushed to it, and its first run must hold only that event.
 */
export async function expectNotWoken(agentId: string): Promise<void> {
  const marker = crypto.randomUUID();
  await secret(`/api/agents/${agentId}/inbox`, { body: { type: "external", data: { marker } } });
  const [first, ...rest] = await waitForRuns(agentId, 1);
  if (rest.length > 0 || first.trigger.length !== 1 || (first.trigger[0].data as { marker?: string } | undefined)?.marker !== marker) {
    throw new Error(`the agent was woken before: ${JSON.stringify((await listRuns(agentId)).map((run) => run.trigger))}`);
  }
}
