/**
 * The `tasks` group: the agent's own past cycles (its run records in D1), as
 * the catalogue's task and session tools read them. `task_list` lists a day's
 * runs, `task_replay` gives one run's conversation step by step (what the
 * model said and the calls it made, with their results), and
 * `session_archive_read` the whole archived record of one run (its trigger,
 * usage, notes and final report beside the steps). Only the agent's own runs:
 * another agent's run id reads as unknown.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import { and, desc, eq, gte, lt } from "drizzle-orm";
import { getRun, type Run, toRun } from "../../db/runs";
import { runs } from "../../db/schema";
import type { PlatformAccess, RunIdentity } from "../engine/tool-context";
import { failed, succeeded } from "../engine/tool-outcome";

const RunId = z.string().min(1).max(100);

const schemas = {
  list: zodSchema(
    z.object({
      date: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/, "A date as YYYY-MM-DD")
        .optional()
        .describe("The day (UTC), YYYY-MM-DD; default today"),
      limit: z.number().int().min(1).max(100).optional().describe("Most runs (default 50), newest first"),
    }),
  ),
  replay: zodSchema(z.object({ taskId: RunId.describe("A run id from task_list") })),
  archive: zodSchema(z.object({ file: RunId.describe("A run id from task_list") })),
};

/** What a run's trigger was, in a word per event (the inbox event types). */
function triggerTypes(trigger: unknown): string[] {
  if (!Array.isArray(trigger)) return [];
  return trigger.flatMap((event: unknown) => (typeof event === "object" && event !== null && "type" in event && typeof event.type === "string" ? [event.type] : []));
}

/** The run, if it is one of this agent's. */
async function ownRun(context: RunIdentity & PlatformAccess, runId: string): Promise<Run | undefined> {
  const run = await getRun(context.database, runId);
  return run?.agentId === context.agent.agentId ? run : undefined;
}

const unknownRun = (runId: string) => failed(`You have no run "${runId}" (task_list lists yours)`);

export function createTaskTools(context: RunIdentity & PlatformAccess) {
  return {
    task_list: tool({
      description: "List your past cycles (runs) of one day (UTC, default today), newest first: id, status, what started it, how many steps and calls.",
      inputSchema: schemas.list,
      execute: async ({ date, limit = 50 }) => {
        const day = date ?? new Date().toISOString().slice(0, 10);
        const start = Date.parse(`${day}T00:00:00Z`);
        if (Number.isNaN(start)) return failed(`"${day}" is not a date`);
        const next = new Date(start + 86_400_000).toISOString().slice(0, 10);
        const rows = await context.database
          .select()
          .from(runs)
          .where(and(eq(runs.agentId, context.agent.agentId), gte(runs.createdAt, day), lt(runs.createdAt, next)))
          .orderBy(desc(runs.createdAt), desc(runs.id))
          .limit(limit);
        return succeeded({
          date: day,
          tasks: rows.map(toRun).map((run) => ({
            taskId: run.id,
            status: run.status,
            trigger: triggerTypes(run.trigger),
            startedAt: run.createdAt,
            finishedAt: run.finishedAt,
            steps: run.steps.length,
            toolCalls: run.toolCalls.length,
            current: run.id === context.runId,
          })),
        });
      },
    }),

    task_replay: tool({
      description: "Replay one of your past runs: each step's text and the tool calls it made, with their arguments and results.",
      inputSchema: schemas.replay,
      execute: async ({ taskId }) => {
        const run = await ownRun(context, taskId);
        if (!run) return unknownRun(taskId);
        return succeeded({
          taskId: run.id,
          status: run.status,
          trigger: triggerTypes(run.trigger),
          messages: run.steps.map((step) => ({
            step: step.stepNumber,
            text: step.text,
            toolCalls: run.toolCalls
              .filter((call) => call.stepNumber === step.stepNumber)
              .map((call) => ({
                toolName: call.toolName,
                args: call.args,
                status: call.status,
                ...(call.result !== undefined && { result: call.result }),
                ...(call.error !== undefined && { error: call.error }),
              })),
          })),
        });
      },
    }),

    session_archive_read: tool({
      description: "Read the whole archived record of one of your past runs: what started it, its steps and calls, usage, notes and final report.",
      inputSchema: schemas.archive,
      execute: async ({ file }) => {
        const run = await ownRun(context, file);
        if (!run) return unknownRun(file);
        const { d1Statements: _statements, ...record } = run;
        return succeeded(record);
      },
    }),
  };
}
