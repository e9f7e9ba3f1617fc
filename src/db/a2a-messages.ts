/**
 * The messages an agent's A2A face took, in D1 (`a2a_messages`): one row per
 * agent, sender and `messageId`, written before the message is posted (or
 * the call it answers is answered), so a message sent again finds what the
 * first one made: its conversation, the conversation's message it became,
 * the task. Rows go with their agent.
 */
import { and, asc, eq, gte, isNull, sql } from "drizzle-orm";
import type { Database } from "./client";
import { a2aMessages, runs } from "./schema";

export type A2aMessage = typeof a2aMessages.$inferSelect;
export type A2aMessageKey = Pick<A2aMessage, "agentId" | "sender" | "messageId">;

/** How far before a message's row a run that took it may say it began (D1's clock against itself; the margin is only prudence). */
const runStartMarginMs = 60_000;

const byKey = (key: A2aMessageKey) => and(eq(a2aMessages.agentId, key.agentId), eq(a2aMessages.sender, key.sender), eq(a2aMessages.messageId, key.messageId));

/**
 * Keeps `row` unless a message with its key is kept already (one statement:
 * of two requests at once, one keeps it). `claimed` says whether this call
 * kept it; `message` is the row that stands.
 */
export async function claimA2aMessage(database: Database, row: Omit<A2aMessage, "createdAt" | "postedAt">): Promise<{ claimed: boolean; message: A2aMessage }> {
  for (let tries = 0; ; tries += 1) {
    const [inserted] = await database.insert(a2aMessages).values(row).onConflictDoNothing().returning();
    if (inserted) return { claimed: true, message: inserted };
    const existing = await database.select().from(a2aMessages).where(byKey(row)).get();
    if (existing) return { claimed: false, message: existing };
    // Let go between the two statements (its first request was refused): this one keeps it after all, at the second try.
    if (tries > 0) throw new Error(`the A2A message "${row.messageId}" could not be kept`);
  }
}

export async function getA2aMessage(database: Database, key: A2aMessageKey): Promise<A2aMessage | undefined> {
  return database.select().from(a2aMessages).where(byKey(key)).get();
}

/** A message its request could not take in (refused before anything was posted or answered): the same `messageId` may come again with other content. */
export async function forgetA2aMessage(database: Database, key: A2aMessageKey): Promise<void> {
  await database.delete(a2aMessages).where(byKey(key));
}

export async function markA2aMessagePosted(database: Database, key: A2aMessageKey): Promise<void> {
  await database
    .update(a2aMessages)
    .set({ postedAt: sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))` })
    .where(and(byKey(key), isNull(a2aMessages.postedAt)));
}

/** The task the message started, once its run is known (the first one recorded stands). */
export async function recordA2aMessageTask(database: Database, key: A2aMessageKey, taskId: string): Promise<void> {
  await database
    .update(a2aMessages)
    .set({ taskId })
    .where(and(byKey(key), isNull(a2aMessages.taskId)));
}

/**
 * The run of `agentId` whose trigger holds the inbox event `eventId`, from
 * its row in D1 (written as the run starts): for a message sent again whose
 * first request did not live to record its task. Only runs that began after
 * the message's row are looked at.
 */
export async function runTriggeredBy(database: Database, agentId: string, eventId: string, since: string): Promise<string | undefined> {
  const after = new Date(Date.parse(since) - runStartMarginMs).toISOString();
  const row = await database
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(eq(runs.agentId, agentId), gte(runs.createdAt, after), sql`exists (select 1 from json_each(${runs.trigger}) where json_extract(json_each.value, '$.id') = ${eventId})`),
    )
    .orderBy(asc(runs.createdAt))
    .limit(1)
    .get();
  return row?.id;
}

export const deleteA2aMessagesOfAgent = (database: Database, agentId: string) => database.delete(a2aMessages).where(eq(a2aMessages.agentId, agentId));
