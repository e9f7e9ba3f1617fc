/** Message rows in D1 and their conversion to the contract's message shape. */
import { and, asc, desc, eq, gt } from "drizzle-orm";
import { Message, type MessagePart } from "../protocol/message";
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
  if (row.parts !== null) message.parts = row.parts as MessagePart[];
  if (row.mentions !== null) message.mentions = row.mentions as string[];
  if (row.updatedAt !== null) message.updatedAt = row.updatedAt;
  return message;
}

/** Inserts a message; false when a message with its id already exists (nothing is written then). */
export async function insertMessage(database: Database, message: Message): Promise<boolean> {
  const inserted = await database.insert(messages).values({
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
  })
    .onConflictDoNothing({ target: messages.id })
    .returning({ id: messages.id });
  return inserted.length > 0;
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

export async function updateMessageParts(
  database: Database,
  messageId: string,
  changes: { parts: MessagePart[]; status: string; updatedAt: string },
): Promise<void> {
  await database.update(messages).set(changes).where(eq(messages.id, messageId));
}

/** Messages after `afterSeq`, oldest first. */
export async function listMessages(database: Database, spaceId: string, afterSeq: number, limit: number): Promise<Message[]> {
  const rows = await database
    .select()
    .from(messages)
    .where(and(eq(messages.spaceId, spaceId), gt(messages.seq, afterSeq)))
    .orderBy(asc(messages.seq))
    .limit(limit);
  return rows.map(toMessage);
}

/** The newest `limit` messages, oldest first (history for `enter_space`). */
export async function listRecentMessages(database: Database, spaceId: string, limit: number, offset = 0): Promise<Message[]> {
  const rows = await database
    .select()
    .from(messages)
    .where(eq(messages.spaceId, spaceId))
    .orderBy(desc(messages.seq))
    .limit(limit)
    .offset(offset);
  return rows.reverse().map(toMessage);
}
