/**
 * The prebuilt `searchKnowledge`: what the agent knows (its memories, goals
 * and notes) ranked by how many of the query's words each holds. There is no
 * embedding index behind it: the words are matched as written, ignoring case,
 * in a memory's key and value, a goal's description, and a note's path and
 * summary (a note's body is read with `notes_read`).
 */
import { z } from "zod";
import { listGoals } from "../../knowledge/goals";
import { listMemories } from "../../knowledge/memories";
import { listNotes } from "../builtins/notes-tools";
import type { KnowledgeAccess, PlatformAccess, RunIdentity } from "../engine/tool-context";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";

export const SearchKnowledgeInput = z
  .object({
    query: z.string().trim().min(1).max(500).describe("Words to look for"),
    limit: z.number().int().min(1).max(50).optional().describe("Most results (default 10)"),
    sources: z
      .array(z.enum(["memories", "goals", "notes"]))
      .min(1)
      .optional()
      .describe("Where to look (default: all)"),
  })
  .strict();

type Hit = { source: "memory" | "goal" | "note"; score: number; updatedAt: string; item: Record<string, unknown> };

/** The distinct words of a text, lower-cased (letters and digits in any script). */
function wordsOf(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

/** How many of the words occur in the text. */
function scoreOf(words: readonly string[], text: string): number {
  const haystack = text.toLowerCase();
  return words.filter((word) => haystack.includes(word)).length;
}

export async function searchKnowledge(context: KnowledgeAccess & PlatformAccess & RunIdentity, input: z.infer<typeof SearchKnowledgeInput>): Promise<ToolOutcome> {
  const words = wordsOf(input.query);
  if (words.length === 0) return failed("The query has no words to look for");
  const sources = new Set(input.sources ?? ["memories", "goals", "notes"]);
  try {
    const [memories, goals, notes] = await Promise.all([
      sources.has("memories") ? listMemories(context.knowledge) : [],
      sources.has("goals") ? listGoals(context.knowledge) : [],
      sources.has("notes") ? listNotes(context.env.FILES, context.agent.agentId).then((listed) => listed.notes) : [],
    ]);
    const hits: Hit[] = [
      ...memories.map((memory): Hit => ({ source: "memory", score: scoreOf(words, `${memory.key}\n${memory.value}`), updatedAt: memory.updatedAt, item: memory })),
      ...goals.map((goal): Hit => ({ source: "goal", score: scoreOf(words, goal.description), updatedAt: goal.updatedAt, item: goal })),
      ...notes.map((note): Hit => ({ source: "note", score: scoreOf(words, `${note.path}\n${note.summary}`), updatedAt: note.updated, item: note })),
    ].filter((hit) => hit.score > 0);
    // The most words first; among equals, the most recently changed.
    hits.sort((a, b) => b.score - a.score || b.updatedAt.localeCompare(a.updatedAt));
    const limit = input.limit ?? 10;
    return succeeded({
      query: input.query,
      results: hits.slice(0, limit).map((hit) => ({ source: hit.source, score: hit.score / words.length, ...hit.item })),
      total: hits.length,
    });
  } catch (error) {
    console.error("searchKnowledge failed", error);
    return failed("Could not search right now; try again");
  }
}
