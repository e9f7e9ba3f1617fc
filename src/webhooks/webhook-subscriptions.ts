/** Webhook subscriptions in D1: written by the routes, read by agent objects when they push events. */
import { and, count, eq, getTableColumns, inArray, isNotNull, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { chunked } from "../db/chunked";
import { pageAfter, type PageCursor, toPage } from "../db/page-cursor";
import { webhookSubscriptions } from "../db/schema";

export type WebhookSubscription = typeof webhookSubscriptions.$inferSelect;

/** At most this many subscriptions per agent or space. */
export const maxSubscriptionsPerTarget = 20;

export async function getSubscription(database: Database, id: string): Promise<WebhookSubscription | undefined> {
  return (await database.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).limit(1))[0];
}

/**
 * Stores `row` unless its agent or space already has the most it may have:
 * one `INSERT … SELECT … WHERE (SELECT count(*) …) < max` statement, so
 * the count and the insert cannot interleave with another request's (a count
 * first and an insert after let 60 concurrent requests store 60). False when
 * the limit refused it; nothing is written then.
 */
export async function insertSubscriptionWithinLimit(database: Database, row: WebhookSubscription): Promise<boolean> {
  const sameTarget = row.agentId !== null ? eq(webhookSubscriptions.agentId, row.agentId) : eq(webhookSubscriptions.spaceId, row.spaceId ?? "");
  // Every column in the table's order (what `insert … select` fills), each encoded as its column stores it.
  const values = sql.join(
    Object.entries(getTableColumns(webhookSubscriptions)).map(([name, column]) => sql.param(row[name as keyof WebhookSubscription], column)),
    sql`, `,
  );
  const stored = await database
    .insert(webhookSubscriptions)
    .select(sql`select ${values} where (${database.select({ stored: count() }).from(webhookSubscriptions).where(sameTarget)}) < ${maxSubscriptionsPerTarget}`)
    .returning({ id: webhookSubscriptions.id });
  return stored.length > 0;
}

/**
 * Newest first by creation time, the id breaking ties, one keyset page at a
 * time (`cursor`: the last row of the previous page), like the discovery lists.
 */
export async function listSubscriptions(
  database: Database,
  filter: { agentId?: string; spaceId?: string; limit: number; cursor?: PageCursor },
): Promise<{ items: WebhookSubscription[]; nextCursor: string | null }> {
  const { where, orderBy } = pageAfter(webhookSubscriptions, filter.cursor);
  const conditions: SQL[] = [];
  if (filter.agentId) conditions.push(eq(webhookSubscriptions.agentId, filter.agentId));
  if (filter.spaceId) conditions.push(eq(webhookSubscriptions.spaceId, filter.spaceId));
  if (where) conditions.push(where);
  const rows = await database
    .select()
    .from(webhookSubscriptions)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(...orderBy)
    .limit(filter.limit + 1);
  return toPage(rows, filter.limit);
}

/** The subscriptions an agent's events reach: the agent's own and those of the spaces given (one batch). */
export async function subscriptionsReaching(database: Database, agentId: string, spaceIds: readonly string[]): Promise<WebhookSubscription[]> {
  const pieces = chunked([...new Set(spaceIds)], { otherParameters: 1 });
  const byAgent = database.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.agentId, agentId));
  if (pieces.length === 0) return byAgent;
  const bySpace = pieces.map((piece) =>
    database
      .select()
      .from(webhookSubscriptions)
      .where(or(eq(webhookSubscriptions.agentId, agentId), and(isNotNull(webhookSubscriptions.spaceId), inArray(webhookSubscriptions.spaceId, piece)))),
  );
  const [first, ...rest] = bySpace;
  const results = await database.batch([first, ...rest]);
  const seen = new Map<string, WebhookSubscription>();
  for (const rows of results) for (const row of rows) seen.set(row.id, row);
  return [...seen.values()];
}
