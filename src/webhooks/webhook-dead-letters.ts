/**
 * Dead letters in D1: webhook deliveries that gave up, written by the agent
 * object that delivered them, listed and redelivered by operators. A row is
 * keyed by its delivery (`deadLetterIdOf`), so writing it again (a crash
 * before the writer forgot it, or a redelivery that gave up too) updates it.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { pageAfter, toPage, type PageCursor } from "../db/page-cursor";
import { webhookDeadLetters } from "../db/schema";

export type DeadLetter = typeof webhookDeadLetters.$inferSelect;
export type DeadLetterStatus = DeadLetter["status"];

/** `dlt_` + 32 hex of the SHA-256 of the delivery's key (the event and subscription, or the call). */
export async function deadLetterIdOf(deliveryKey: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(deliveryKey));
  return `dlt_${[...new Uint8Array(digest)]
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, 32)}`;
}

/** Lands a delivery that gave up (again): status `dead`, its attempts and last error; redeliveries are kept. */
export async function recordDeadLetter(database: Database, row: Omit<DeadLetter, "status" | "redeliveries" | "redeliveredAt" | "deliveredAt">): Promise<void> {
  await database
    .insert(webhookDeadLetters)
    .values({ ...row, status: "dead", redeliveries: 0 })
    .onConflictDoUpdate({
      target: webhookDeadLetters.id,
      set: { status: "dead", attempts: row.attempts, lastError: row.lastError, deadAt: row.deadAt, url: row.url, deliveredAt: null },
    });
}

export async function getDeadLetter(database: Database, id: string): Promise<DeadLetter | undefined> {
  return database.select().from(webhookDeadLetters).where(eq(webhookDeadLetters.id, id)).get();
}

/** Newest first (by when it gave up), one keyset page; filtered by agent, subscription or status. */
export async function listDeadLetters(
  database: Database,
  filter: { agentId?: string; subscriptionId?: string; status?: DeadLetterStatus; limit: number; cursor?: PageCursor },
): Promise<{ items: DeadLetter[]; nextCursor: string | null }> {
  const { where, orderBy } = pageAfter({ createdAt: webhookDeadLetters.deadAt, id: webhookDeadLetters.id }, filter.cursor);
  const rows = await database
    .select()
    .from(webhookDeadLetters)
    .where(
      and(
        filter.agentId ? eq(webhookDeadLetters.agentId, filter.agentId) : undefined,
        filter.subscriptionId ? eq(webhookDeadLetters.subscriptionId, filter.subscriptionId) : undefined,
        filter.status ? eq(webhookDeadLetters.status, filter.status) : undefined,
        where,
      ),
    )
    .orderBy(...orderBy)
    .limit(filter.limit + 1);
  const page = toPage(
    rows.map((row) => ({ ...row, createdAt: row.deadAt })),
    filter.limit,
  );
  return { items: page.items.map(({ createdAt: _deadAt, ...row }) => row), nextCursor: page.nextCursor };
}

/** `dead` → `redelivering`, once: the one caller that gets the row back starts the delivery. */
export async function claimRedelivery(database: Database, id: string, at: string): Promise<DeadLetter | undefined> {
  return database
    .update(webhookDeadLetters)
    .set({ status: "redelivering", redeliveries: sql`${webhookDeadLetters.redeliveries} + 1`, redeliveredAt: at })
    .where(and(eq(webhookDeadLetters.id, id), eq(webhookDeadLetters.status, "dead")))
    .returning()
    .get();
}

/** A redelivery got through. */
export async function markDeadLetterDelivered(database: Database, id: string, at: string): Promise<void> {
  await database
    .update(webhookDeadLetters)
    .set({ status: "delivered", deliveredAt: at })
    .where(and(eq(webhookDeadLetters.id, id), eq(webhookDeadLetters.status, "redelivering")));
}

/** An agent's dead letters (deleted with it: nothing can redeliver them). */
export const deleteDeadLettersOfAgent = (database: Database, agentId: string) => database.delete(webhookDeadLetters).where(eq(webhookDeadLetters.agentId, agentId));
