/**
 * Sub-agent runs as a tree. A run started by a sub-agent task names the
 * caller's run as its parent (`parent_run_id`, from the task's `fromRunId`);
 * a run's children are the runs that name it, and its total usage is its own
 * with every descendant's added, so a run that handed work on shows what the
 * whole of it cost. A run's own `usage` stays its own: summing an agent's
 * runs never counts a token twice.
 */
import { asc, inArray } from "drizzle-orm";
import { z } from "zod";
import { chunked } from "./chunked";
import type { Database } from "./client";
import { parseStoredValue } from "./parse-stored-json";
import { type Run, RunUsage } from "./runs";
import { runs } from "./schema";

export type RunTree = { parentRunId: string | null; childRunIds: string[]; totalUsage: RunUsage | null };

/** Sub-agent calls nest at most 8 deep; a tree is never read deeper than this, whatever the rows say. */
const maxTreeDepth = 16;

const TaskTrigger = z.array(z.looseObject({ type: z.string(), fromRunId: z.string().optional() }));

/** The parent of a run with this trigger: the run of the first `agent_task` that names one. */
export function parentRunIdOf(trigger: unknown): string | null {
  const parsed = TaskTrigger.safeParse(trigger);
  if (!parsed.success) return null;
  return parsed.data.find((event) => event.type === "agent_task" && event.fromRunId !== undefined)?.fromRunId ?? null;
}

function addUsage(total: RunUsage | null, more: RunUsage | null): RunUsage | null {
  if (!more) return total;
  if (!total) return more;
  return { inputTokens: total.inputTokens + more.inputTokens, outputTokens: total.outputTokens + more.outputTokens, totalTokens: total.totalTokens + more.totalTokens };
}

/** Each run's place in its tree: its parent, its children (oldest first) and its usage with its descendants'. Read one level at a time. */
export async function runTrees(database: Database, roots: Run[]): Promise<Map<string, RunTree>> {
  const trees = new Map<string, RunTree>(roots.map((run) => [run.id, { parentRunId: run.parentRunId, childRunIds: [], totalUsage: run.usage }]));
  /** The runs whose children are read next, each with the roots its descendants count for. */
  let frontier = new Map<string, string[]>(roots.map((run) => [run.id, [run.id]]));
  for (let level = 0; frontier.size > 0 && level < maxTreeDepth; level++) {
    const pieces = chunked([...frontier.keys()]);
    const rows = (
      await Promise.all(
        pieces.map((ids) =>
          database
            .select({ id: runs.id, parentRunId: runs.parentRunId, usage: runs.usage })
            .from(runs)
            .where(inArray(runs.parentRunId, ids))
            .orderBy(asc(runs.createdAt), asc(runs.id)),
        ),
      )
    ).flat();
    const next = new Map<string, string[]>();
    for (const row of rows) {
      if (row.parentRunId === null) continue;
      if (level === 0) trees.get(row.parentRunId)?.childRunIds.push(row.id);
      const usage = parseStoredValue(RunUsage.nullable(), row.usage);
      const counted = frontier.get(row.parentRunId) ?? [];
      for (const root of counted) {
        const tree = trees.get(root);
        if (tree && usage.ok) tree.totalUsage = addUsage(tree.totalUsage, usage.value);
      }
      next.set(row.id, counted);
    }
    frontier = next;
  }
  return trees;
}

/** Runs with their place in the tree, for the routes. */
export async function withRunTrees<R extends Run>(database: Database, list: R[]): Promise<(R & RunTree)[]> {
  const trees = await runTrees(database, list);
  return list.map((run) => ({ ...run, ...(trees.get(run.id) ?? { parentRunId: run.parentRunId, childRunIds: [], totalUsage: run.usage }) }));
}
