/**
 * The push notification configs of A2A tasks in D1: written by the A2A face
 * (`CreateTaskPushNotificationConfig` and the others), read by the agent
 * object when one of its tasks changes (`a2a-task-push.ts`) and again before
 * each attempt, so a deleted config gets nothing more and its credentials
 * stay in D1 alone (never in the object's retry rows).
 */
import { and, asc, count, eq, getTableColumns, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { a2aPushConfigs } from "../db/schema";

export type A2aPushConfig = typeof a2aPushConfigs.$inferSelect;

/** At most this many configs per task. */
export const maxPushConfigsPerTask = 10;

export async function getPushConfig(database: Database, taskId: string, id: string): Promise<A2aPushConfig | undefined> {
  return (
    await database
      .select()
      .from(a2aPushConfigs)
      .where(and(eq(a2aPushConfigs.taskId, taskId), eq(a2aPushConfigs.id, id)))
      .limit(1)
  )[0];
}

export async function listPushConfigs(database: Database, taskId: string): Promise<A2aPushConfig[]> {
  return database
    .select()
    .from(a2aPushConfigs)
    .where(eq(a2aPushConfigs.taskId, taskId))
    .orderBy(asc(a2aPushConfigs.createdAt), asc(a2aPushConfigs.id))
    .limit(maxPushConfigsPerTask);
}

/**
 * Stores `row` (replacing a config of the same id, as creating it again with
 * new details does) unless its task already has the most it may have: one
 * statement, so concurrent requests cannot pass the count together. False
 * when the limit refused it.
 */
export async function putPushConfig(database: Database, row: A2aPushConfig): Promise<boolean> {
  const values = sql.join(
    Object.entries(getTableColumns(a2aPushConfigs)).map(([name, column]) => sql.param(row[name as keyof A2aPushConfig], column)),
    sql`, `,
  );
  const others = database
    .select({ stored: count() })
    .from(a2aPushConfigs)
    .where(and(eq(a2aPushConfigs.taskId, row.taskId), sql`${a2aPushConfigs.id} <> ${row.id}`));
  const { taskId: _task, id: _id, ...changed } = row;
  const stored = await database
    .insert(a2aPushConfigs)
    .select(sql`select ${values} where (${others}) < ${maxPushConfigsPerTask}`)
    .onConflictDoUpdate({ target: [a2aPushConfigs.taskId, a2aPushConfigs.id], set: changed })
    .returning({ id: a2aPushConfigs.id });
  return stored.length > 0;
}

/** Deletes one config; deleting one that is not there is not an error (the protocol asks for idempotent deletes). */
export async function deletePushConfig(database: Database, taskId: string, id: string): Promise<void> {
  await database.delete(a2aPushConfigs).where(and(eq(a2aPushConfigs.taskId, taskId), eq(a2aPushConfigs.id, id)));
}

export const deletePushConfigsOfAgent = (database: Database, agentId: string) => database.delete(a2aPushConfigs).where(eq(a2aPushConfigs.agentId, agentId));
