/**
 * `wait_for_results`: the model waits, with a deadline, for any or all of
 * several pending calls it started in earlier steps (async `external`/`space`
 * calls). Results that arrive during the wait come to the cycle instead of
 * the inbox; results that arrived before it are taken from the inbox (so
 * they are not delivered twice); at the deadline, calls still pending go
 * back to arriving in the inbox.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import { and, eq, inArray } from "drizzle-orm";
import { pendingToolCalls } from "../../db/schema";
import { chunked } from "../../db/chunked";
import { failed, outcomeError, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import type { JournalAccess, PlatformAccess, RunIdentity, RuntimeAccess } from "../engine/tool-context";

export const maxWaitForResultsMs = 10 * 60 * 1000;

const WaitForResultsInput = z
  .object({
    callIds: z.array(z.string().min(1).max(200)).min(1).max(20).describe("pendingToolCallId values from earlier pending results (or your own tool call ids from this cycle)"),
    mode: z.enum(["any", "all"]).default("all").describe("any: return as soon as one has a result; all: wait for every one"),
    timeoutMs: z.number().int().min(1).max(maxWaitForResultsMs).default(30_000).describe("Stop waiting after this long"),
  })
  .strict();

const schema = zodSchema(WaitForResultsInput);

type Entry = { callId: string; status: "resolved" | "expired" | "pending"; result?: unknown; error?: string };

export function createWaitTools(context: RunIdentity & PlatformAccess & JournalAccess & RuntimeAccess) {
  return {
    wait_for_results: tool({
      description: "Wait (up to timeoutMs) for results of pending tool calls you started earlier, returning when any or all have arrived.",
      inputSchema: schema,
      execute: async ({ callIds, mode, timeoutMs }, { abortSignal }) => waitForResults(context, [...new Set(callIds)], mode, timeoutMs, abortSignal),
    }),
  };
}

async function waitForResults(
  context: RunIdentity & PlatformAccess & JournalAccess & RuntimeAccess,
  callIds: string[],
  mode: "any" | "all",
  timeoutMs: number,
  abortSignal?: AbortSignal,
): Promise<ToolOutcome> {
  const { database, toolRuntime: runtime } = context;
  const byGatewayId = (await Promise.all(chunked(callIds).map((chunk) => database.select().from(pendingToolCalls).where(inArray(pendingToolCalls.toolCallId, chunk))))).flat();
  // A model may name a call of this run by its own id instead.
  const byModelId = (
    await Promise.all(
      chunked(callIds, { otherParameters: 1 }).map((chunk) =>
        database
          .select()
          .from(pendingToolCalls)
          .where(and(eq(pendingToolCalls.runId, context.runId), inArray(pendingToolCalls.modelToolCallId, chunk))),
      ),
    )
  ).flat();
  const named = new Map<string, (typeof byGatewayId)[number]>();
  for (const row of [...byModelId, ...byGatewayId]) {
    if (row.agentId !== context.agent.agentId || row.kind !== "call") continue;
    named.set(row.toolCallId, row);
    if (row.modelToolCallId) named.set(row.modelToolCallId, row);
  }
  const unknown = callIds.filter((id) => !named.has(id));
  if (unknown.length > 0) return failed(`Not pending calls of yours: ${unknown.join(", ")}`);
  const mine = new Map(callIds.map((id) => named.get(id)).flatMap((row) => (row ? [[row.toolCallId, row] as const] : [])));

  const entries = new Map<string, Entry>();
  const open: string[] = [];
  for (const [callId, row] of mine) {
    if (row.status === "resolved" || row.status === "expired") {
      // Already settled: its tool_result event, if still queued, is taken here instead of later.
      runtime.inbox.takeQueuedResult(callId);
      entries.set(callId, row.status === "expired" ? { callId, status: "expired", error: `Tool "${row.toolName}" expired` } : { callId, status: "resolved", result: row.result });
    } else {
      context.journal.openWait(callId);
      open.push(callId);
    }
  }
  const deadline = Date.now() + timeoutMs;
  const collect = () => {
    for (const callId of open) {
      if (entries.has(callId)) continue;
      const outcome = recorded.get(callId);
      if (outcome) entries.set(callId, entryOf(callId, outcome));
    }
  };
  // Each call's outcome as its owner holds it: recorded already, or delivered while this round waits.
  const recorded = new Map<string, ToolOutcome>();
  const look = async (callIds: string[], until: number, signal?: AbortSignal) => {
    await Promise.all(
      callIds.map(async (callId) => {
        const outcome = await runtime.calls.await(callId, until, signal);
        if (outcome) recorded.set(callId, outcome);
      }),
    );
  };
  await look(open, 0);
  collect();
  while (open.some((callId) => !entries.has(callId)) && !(mode === "any" && entries.size > 0) && Date.now() < deadline && !abortSignal?.aborted) {
    const waiting = open.filter((callId) => !entries.has(callId));
    // One round: the first outcome to arrive (or the deadline, or the cycle's end) ends every wait of the round.
    const round = new AbortController();
    const endRound = () => round.abort();
    abortSignal?.addEventListener("abort", endRound, { once: true });
    await Promise.race(waiting.map((callId) => runtime.calls.await(callId, deadline, round.signal)));
    round.abort();
    abortSignal?.removeEventListener("abort", endRound);
    await look(waiting, 0);
    collect();
  }
  // What did not arrive goes back to the inbox when it does; what arrived just now is kept.
  for (const callId of open) if (!entries.has(callId)) context.journal.closeWait(callId);
  await look(open, 0);
  collect();
  const results = [...mine.keys()].map((callId) => entries.get(callId) ?? { callId, status: "pending" as const });
  return succeeded({ complete: results.every((entry) => entry.status !== "pending"), results });
}

function entryOf(callId: string, outcome: ToolOutcome): Entry {
  const error = outcomeError(outcome);
  if (outcome.type === "expired") return { callId, status: "expired", error };
  if (error !== undefined) return { callId, status: "resolved", error };
  return { callId, status: "resolved", result: outcome.type === "ok" ? outcome.value : null };
}
