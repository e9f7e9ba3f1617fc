/**
 * `ask_agent` as an MCP task (protocol revision 2025-11-25): a client that
 * asks for a task gets one at once, the question delivered, and reads it
 * later with `tasks/get`, `tasks/result` and `tasks/cancel`, on any isolate,
 * after any restart. Nothing is kept for it: the task id is a signed handle
 * (`signed-handle.ts`, bound to the caller and the endpoint) naming the
 * agent and the inbox event the question became, and the task is read from
 * durable state, the run that took that event (its record in D1, or the
 * agent's active run before its record is written) and the run's pending
 * calls:
 *
 * - no run has taken the question yet, or its run works: `working`;
 * - its run waits for a call or approval this caller may answer, or for
 *   this person to connect an account: `input_required` (`tasks/result`
 *   then puts each to the person as an elicitation where their client
 *   takes one; `answer_call` works too, for a call);
 * - the run completed: `completed`; failed or was interrupted: `failed`;
 *   stopped by `tasks/cancel`: `cancelled`.
 *
 * `tasks/result` waits (as long as the question's `timeoutSeconds`) for the
 * run to end and answers what `ask_agent` would have; when that wait runs
 * out, its answer is the same `deadline_exceeded` tool error and the task
 * goes on. A task is kept a week (`ttl`); after that its id reads as unknown.
 */
import { type CallToolResult, type CreateTaskResult, ErrorCode, McpError, RELATED_TASK_META_KEY, type Task } from "@modelcontextprotocol/sdk/types.js";
import { and, asc, eq, gte, sql } from "drizzle-orm";
import { z } from "zod";
import { agentStub } from "../agents/agent-stub";
import { mayAnswer } from "../api/who-may-answer";
import { getDatabase } from "../db/client";
import { ApiError } from "../errors";
import { getRun, type Run, toRun } from "../db/runs";
import { pendingToolCalls, runs } from "../db/schema";
import { type PendingCall, waitsOnSomeone } from "../tools";
import { AgentEvents } from "./agent-events";
import { agentReply } from "./ask-agent-task";
import { type SpaceQuestion, spaceReply } from "./ask-in-space";
import { offerWaitingCall } from "./elicit-calls";
import type { FaceContext } from "./face-context";
import { callerKey, faceKey } from "./face-session";
import { followRun, type RunFollowed } from "./follow-run";
import { progressReporter, type ToolExtra } from "./progress-reporter";
import { readHandle, signHandle } from "./signed-handle";

const purpose = "switchboard mcp face tasks v1";
/** How long a task's id is good for, from its creation (the task's `ttl`). */
export const taskTtlMs = 7 * 24 * 3600 * 1000;
/** How often a client is told to poll `tasks/get`. */
export const taskPollIntervalMs = 1_000;
/** The reason a `tasks/cancel` gives the run: its note is how a failed run reads as `cancelled`. */
export const taskCancelReason = "cancelled by its MCP client (tasks/cancel)";

/** What a task id carries: who asked where, the agent, the question's inbox event, and for a space the question itself. */
const Claims = z.object({
  w: z.string(),
  f: z.string(),
  a: z.string(),
  e: z.string(),
  t: z.number(),
  c: z.number(),
  s: z.string().optional(),
  m: z.string().optional(),
  q: z.number().optional(),
});
type Claims = z.infer<typeof Claims>;

export type TaskTarget = { agentId: string; eventId: string; timeoutSeconds: number; question?: SpaceQuestion };

/** Starts a task; a refusal on the way (a REST helper's `ApiError`) is the request's error, with its code and words. */
export async function startingTask(work: () => Promise<CreateTaskResult>): Promise<CreateTaskResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) throw new McpError(ErrorCode.InvalidParams, `${error.code}: ${error.message}`);
    throw error;
  }
}

export async function createTask(context: FaceContext, target: TaskTarget): Promise<CreateTaskResult> {
  const now = Date.now();
  const { question } = target;
  const claims: Claims = {
    w: callerKey(context.caller),
    f: faceKey(context.face),
    a: target.agentId,
    e: target.eventId,
    t: target.timeoutSeconds,
    c: now,
    ...(question && { s: question.spaceId, m: question.questionId, q: question.questionSeq }),
  };
  const taskId = await signHandle(context.c.env.WEBHOOK_SECRET, purpose, claims, now + taskTtlMs);
  const createdAt = new Date(now).toISOString();
  return {
    task: {
      taskId,
      status: "working",
      statusMessage: "The question was delivered to the agent",
      createdAt,
      lastUpdatedAt: createdAt,
      ttl: taskTtlMs,
      pollInterval: taskPollIntervalMs,
    },
  };
}

async function claimsOf(context: FaceContext, taskId: string): Promise<Claims> {
  const read = await readHandle(context.c.env.WEBHOOK_SECRET, purpose, taskId);
  const claims = read ? Claims.safeParse(read) : undefined;
  // Another caller's task, another endpoint's, a changed or expired id: not found, as the protocol's own servers answer.
  if (!claims?.success || claims.data.w !== callerKey(context.caller) || claims.data.f !== faceKey(context.face)) {
    throw new McpError(ErrorCode.InvalidParams, "Failed to retrieve task: Task not found");
  }
  return claims.data;
}

/** The run that took the question: its record, or the agent's active run whose record is not written yet. */
async function runOf(context: FaceContext, claims: Claims): Promise<{ runId: string; run?: Run } | undefined> {
  const database = getDatabase(context.c.env.DB);
  // Runs of this agent since the question (a few seconds' slack for clocks), whose trigger names its event.
  const since = new Date(claims.c - 5_000).toISOString();
  const row = await database
    .select()
    .from(runs)
    .where(and(eq(runs.agentId, claims.a), gte(runs.createdAt, since), sql`instr(${runs.trigger}, ${`"${claims.e}"`}) > 0`))
    .orderBy(asc(runs.createdAt))
    .get();
  if (row) return { runId: row.id, run: toRun(row) };
  const active = await agentStub(context.c.env, claims.a).activeRunFor(claims.e);
  return active ? { runId: active } : undefined;
}

type TaskView = { task: Task; runId?: string; run?: Run; waiting: PendingCall[] };

async function viewOf(context: FaceContext, taskId: string, claims: Claims): Promise<TaskView> {
  const base = { taskId, createdAt: new Date(claims.c).toISOString(), ttl: taskTtlMs, pollInterval: taskPollIntervalMs };
  const found = await runOf(context, claims);
  if (!found) return { task: { ...base, status: "working", lastUpdatedAt: base.createdAt, statusMessage: "The question waits in the agent's inbox" }, waiting: [] };
  const { runId, run } = found;
  const updated = run?.finishedAt ?? run?.createdAt ?? base.createdAt;
  if (run && run.status !== "running") {
    const cancelled = run.notes.some((note) => note.kind === "operator" && note.message.endsWith(taskCancelReason));
    const status = run.status === "completed" ? "completed" : cancelled ? "cancelled" : "failed";
    return { task: { ...base, status, lastUpdatedAt: updated, statusMessage: run.error ?? `Run ${runId} ${run.status}` }, runId, run, waiting: [] };
  }
  const database = getDatabase(context.c.env.DB);
  const open = await database.select().from(pendingToolCalls).where(eq(pendingToolCalls.runId, runId)).orderBy(asc(pendingToolCalls.createdAt));
  const waiting: PendingCall[] = [];
  for (const call of open) {
    if ((call.status !== "waiting" && call.status !== "pending") || !waitsOnSomeone(call)) continue;
    // An account connection waits on its own person only: nobody answers it in the service's place.
    if (call.accountKey !== null) {
      if (context.caller.kind === "entity" && call.initiatorEntityId === context.caller.entityId) waiting.push(call);
      continue;
    }
    if ((await mayAnswer(context.c.env, context.caller, call, call.toolCallId)).ok) waiting.push(call);
  }
  if (waiting.length > 0) {
    const names = waiting
      .map((call) => (call.accountKey !== null ? `${call.toolName} (to connect your account at ${call.accountKey})` : `${call.toolName} (${call.kind} ${call.toolCallId})`))
      .join(", ");
    const at = waiting[waiting.length - 1].createdAt;
    return {
      task: {
        ...base,
        status: "input_required",
        lastUpdatedAt: at,
        statusMessage: `Run ${runId} waits for your answer: ${names}. Ask for the task's result, or answer with answer_call.`,
      },
      runId,
      run,
      waiting,
    };
  }
  return { task: { ...base, status: "working", lastUpdatedAt: updated, statusMessage: `Run ${runId} is working` }, runId, run, waiting };
}

export async function getTask(context: FaceContext, taskId: string): Promise<Task> {
  return (await viewOf(context, taskId, await claimsOf(context, taskId))).task;
}

/** A finished run as the wait that saw it end would report it (the messages it sent, from its record). */
function finishedFrom(run: Run, spaceId: string | undefined): RunFollowed {
  const Sent = z.object({ messageId: z.string(), spaceId: z.string() });
  const sentMessageIds = run.toolCalls.flatMap((call) => {
    const sent = call.toolName === "send_message" ? Sent.safeParse(call.result) : undefined;
    return sent?.success && sent.data.spaceId === spaceId ? [sent.data.messageId] : [];
  });
  return { kind: "finished", runId: run.id, status: run.status, error: run.error ?? undefined, sentMessageIds };
}

export async function taskResult(context: FaceContext, taskId: string, extra: ToolExtra): Promise<CallToolResult> {
  const claims = await claimsOf(context, taskId);
  const { env } = context.c;
  const deadline = Date.now() + claims.t * 1000;
  // Opened before the task is read, so a run that ends in between is seen ending.
  const events = await AgentEvents.open(env, claims.a);
  let followed: RunFollowed;
  try {
    const view = await viewOf(context, taskId, claims);
    if (view.run && view.run.status !== "running") followed = finishedFrom(view.run, claims.s);
    else {
      const offer = (callId: string) => offerWaitingCall(context, callId, extra.requestId);
      for (const call of view.waiting) await offer(call.toolCallId);
      followed = await followRun(events, {
        eventId: claims.e,
        ...(view.runId && { runId: view.runId }),
        ...(claims.m && { messageId: claims.m }),
        deadline,
        signal: extra.signal,
        progress: progressReporter(extra),
        namesTools: context.caller.kind === "secret",
        onWaiting: offer,
      });
      if (followed.kind === "finished") {
        const run = await getRun(getDatabase(env.DB), followed.runId);
        if (run) followed = finishedFrom(run, claims.s);
      }
    }
  } finally {
    events.close();
  }
  const question = claims.s !== undefined && claims.m !== undefined && claims.q !== undefined;
  const result = question
    ? await spaceReply(context, { agentId: claims.a, spaceId: claims.s ?? "", questionId: claims.m ?? "", questionSeq: claims.q ?? 0, timeoutSeconds: claims.t }, followed)
    : await agentReply(context, claims.e, claims.t, followed);
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

export async function cancelTask(context: FaceContext, taskId: string): Promise<Task> {
  const claims = await claimsOf(context, taskId);
  const view = await viewOf(context, taskId, claims);
  if (["completed", "failed", "cancelled"].includes(view.task.status)) {
    throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${view.task.status}`);
  }
  if (!view.runId) throw new McpError(ErrorCode.InvalidParams, "No run has taken the question yet (it waits in the agent's inbox): there is nothing to cancel");
  const events = await AgentEvents.open(context.c.env, claims.a);
  try {
    const stopped = await agentStub(context.c.env, claims.a).abortRun(taskCancelReason, view.runId);
    if (!stopped.aborted) throw new McpError(ErrorCode.InvalidParams, `The task's run ${view.runId} is not running`);
    // The run fails under the abort; its end is waited for (briefly), then the task read once, so the answer says cancelled.
    const until = Date.now() + 10_000;
    for (;;) {
      const next = await events.next(until, context.c.req.raw.signal);
      if (next.kind !== "event" || (next.event.type === "agent.cycle.finished" && next.event.data.runId === view.runId)) break;
    }
    return (await viewOf(context, taskId, claims)).task;
  } finally {
    events.close();
  }
}
