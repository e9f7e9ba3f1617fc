/** Webhook subscriptions in D1: written by the routes, read by agent objects when they push events. */
import { and, desc, eq, inArray, isNotNull, lt, or, type SQL } from "drizzle-orm";
import type { Database } from "./client";
import { chunked } from "./chunked";
import { webhookSubscriptions } from "./schema";

export type WebhookSubscription = typeof webhookSubscriptions.$inferSelect;

/** At most this many subscriptions per agent or space. */
export const maxSubscriptionsPerTarget = 20;

export async function getSubscription(database: Database, id: string): Promise<WebhookSubscription | undefined> {
  return (await database.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).limit(1))[0];
}

export async function countSubscriptions(database: Database, target: { agentId?: string; spaceId?: string }): Promise<number> {
  const where = target.agentId ? eq(webhookSubscriptions.agentId, target.agentId) : eq(webhookSubscriptions.spaceId, target.spaceId ?? "");
  return (await database.select({ id: webhookSubscriptions.id }).from(webhookSubscriptions).where(where)).length;
}

/** Newest first; `before` is the last id of the previous page (ids grow with time). */
export async function listSubscriptions(database: Database, filter: { agentId?: string; spaceId?: string; limit: number; before?: string }): Promise<WebhookSubscription[]> {
  const conditions: SQL[] = [];
  if (filter.agentId) conditions.push(eq(webhookSubscriptions.agentId, filter.agentId));
  if (filter.spaceId) conditions.push(eq(webhookSubscriptions.spaceId, filter.spaceId));
  if (filter.before) conditions.push(lt(webhookSubscriptions.id, filter.before));
  return database
    .select()
    .from(webhookSubscriptions)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(webhookSubscriptions.id))
    .limit(filter.limit);
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
