/**
 * Memories: what an agent wants to remember, as key → value. Shared by the
 * built-in and prebuilt tools.
 */
import { z } from "@hono/zod-openapi";
import { and, asc, eq, inArray } from "drizzle-orm";
import { memories } from "../db/schema";
import { chunked } from "../db/chunked";
import { createId } from "../ids";
import type { KnowledgeContext } from "./knowledge-context";

/** One memory (the rule set_memories and an imported agent document share). */
export const MemoryInput = z
  .object({
    key: z.string().min(1).max(200).describe("A short name; setting an existing key replaces its value"),
    value: z.string().min(1).max(10_000),
  })
  .strict();

export const SetMemoriesInput = z.object({ memories: z.array(MemoryInput).min(1).max(50) }).strict();

export const DeleteMemoriesInput = z.object({ keys: z.array(z.string()).min(1).max(100) }).strict();

export type Memory = { key: string; value: string; updatedAt: string };

export async function listMemories(context: KnowledgeContext): Promise<Memory[]> {
  return context.database
    .select({ key: memories.key, value: memories.value, updatedAt: memories.updatedAt })
    .from(memories)
    .where(eq(memories.agentId, context.agentId))
    .orderBy(asc(memories.key));
}

export async function setMemories(context: KnowledgeContext, input: z.infer<typeof SetMemoriesInput>): Promise<{ memories: Memory[] }> {
  const { database, agentId } = context;
  const now = new Date().toISOString();
  const statements = input.memories.map((memory) =>
    database
      .insert(memories)
      .values({ id: createId("mem"), agentId, key: memory.key, value: memory.value, updatedAt: now })
      .onConflictDoUpdate({ target: [memories.agentId, memories.key], set: { value: memory.value, updatedAt: now } }),
  );
  const [first, ...rest] = statements;
  await database.batch([first, ...rest]);
  return { memories: await listMemories(context) };
}

export async function deleteMemories(context: KnowledgeContext, input: z.infer<typeof DeleteMemoriesInput>): Promise<{ deleted: number }> {
  // The agent id is one bound parameter; the keys fill the rest of each statement, in one batch.
  const [first, ...rest] = chunked(input.keys, { otherParameters: 1 }).map((chunk) =>
    context.database
      .delete(memories)
      .where(and(eq(memories.agentId, context.agentId), inArray(memories.key, chunk)))
      .returning({ id: memories.id }),
  );
  const deleted = first === undefined ? [] : (await context.database.batch([first, ...rest])).flat();
  return { deleted: deleted.length };
}
