/** Message rows in D1 and their conversion to the message shape clients see. */
import { and, asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import { z } from "zod";
import { type Message, MessagePart } from "../protocol/message";
import { parseStoredValue } from "./parse-stored-json";
import { chunked } from "./chunked";
import type { Database } from "./client";
import { messages } from "./schema";

type MessageRow = typeof messages.$inferSelect;

export function toMessage(row: MessageRow): Message {
  const message: Message = {
    id: row.id,
    spaceId: row.spaceId,
    seq: row.seq,
    entityId: row.entityId,
    role: row.role,
    status: row.status,
    createdAt: row.createdAt,
  };
  if (row.text !== null) message.text = row.text;
  if (row.parts !== null) message.parts = storedColumn(row.id, "parts", z.array(MessagePart), row.parts);
  if (row.mentions !== null) message.mentions = storedColumn(row.id, "mentions", z.array(z.string()), row.mentions);
  if (row.updatedAt !== null) message.updatedAt = row.updatedAt;
  return message;
}

/** A JSON column of a message row, parsed; one that does not parse fails the read loudly (a card read as something else is worse). */
function storedColumn<S extends z.ZodType>(messageId: string, column: string, schema: S, value: unknown): z.infer<S> {
  const parsed = parseStoredValue(schema, value);
  if (!parsed.ok) throw new Error(`Message ${messageId} is stored in D1 but its ${column} cannot be read (${parsed.reason})`);
  return parsed.value;
}

/** A message's row values. */
function rowOf(message: Message) {
  return {
    id: message.id,
    spaceId: message.spaceId,
    seq: message.seq,
    entityId: message.entityId,
    role: message.role,
    text: message.text ?? null,
    parts: message.parts ?? null,
    mentions: message.mentions ?? null,
    status: message.status,
    createdAt: message.createdAt,
    updatedAt: message.updatedAt ?? null,
  };
}

/**
 * Writes messages as they are now (the SpaceDO's write-behind): new ones are
 * inserted, known ones get their current parts, status and text. Idempotent:
 * the same rows again change nothing. One batch of multi-row statements.
 */
export async function upsertMessages(database: Database, list: readonly Message[]): Promise<void> {
  const pieces = chunked(list, { parametersPerItem: 11 });
  const statements = pieces.map((piece) =>
    database
      .insert(messages)
      .values(piece.map(rowOf))
      .onConflictDoUpdate({
        target: messages.id,
        set: { text: sql`excluded.text`, parts: sql`excluded.parts`, status: sql`excluded.status`, updatedAt: sql`excluded.updated_at` },
      }),
  );
  const [first, ...rest] = statements;
  if (first) await database.batch([first, ...rest]);
}

export async function getMessage(database: Database, messageId: string): Promise<Message | undefined> {
  const row = await database.select().from(messages).where(eq(messages.id, messageId)).get();
  return row ? toMessage(row) : undefined;
}

export async function findMessageBySeq(database: Database, spaceId: string, seq: number): Promise<Message | undefined> {
  const row = await database
    .select()
    .from(messages)
    .where(and(eq(messages.spaceId, spaceId), eq(messages.seq, seq)))
    .get();
  return row ? toMessage(row) : undefined;
}

/** Messages with `afterSeq < seq < beforeSeq`, oldest first. */
export async function listMessagesBetween(database: Database, spaceId: string, afterSeq: number, beforeSeq: number, limit: number): Promise<Message[]> {
  const rows = await database
    .select()
    .from(messages)
    .where(and(eq(messages.spaceId, spaceId), gt(messages.seq, afterSeq), lt(messages.seq, beforeSeq)))
    .orderBy(asc(messages.seq))
    .limit(limit);
  return rows.map(toMessage);
}

/** The newest `limit` messages with `seq < beforeSeq`, newest first. */
export async function listMessagesBefore(database: Database, spaceId: string, beforeSeq: number, limit: number): Promise<Message[]> {
  const rows = await database
    .select()
    .from(messages)
    .where(and(eq(messages.spaceId, spaceId), lt(messages.seq, beforeSeq)))
    .orderBy(desc(messages.seq))
    .limit(limit);
  return rows.map(toMessage);
}
