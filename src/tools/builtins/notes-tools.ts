/**
 * The `notes` group (memory as markdown documents, in R2): the agent's
 * notes are markdown documents under its own prefix, `agents/<agentId>/notes/`.
 * Each keeps a one-line summary (its `> Summary:` line, else its first line)
 * in its metadata, so the index the system prompt shows costs one list call.
 * Every change is idempotent per call and exact where it must be: a patch
 * replaces a passage only when it occurs exactly once.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import type { JournalAccess, PlatformAccess, RunIdentity } from "../engine/tool-context";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import { replaceExactlyOnce } from "../files/exact-once";
import { checkFilePath } from "../../security/storage-path";
import { changeText, readText } from "../files/text-object-store";

export const maxNoteBytes = 256_000;
/** Notes the index in the system prompt lists at most (newest first). */
export const maxIndexedNotes = 100;
const maxSummaryLength = 200;

export const notesPrefix = (agentId: string) => `agents/${agentId}/notes/`;

const NotePath = z.string().min(1).max(512).describe('A path such as "people/ada.md"');

const schemas = {
  list: zodSchema(z.object({})),
  read: zodSchema(
    z.object({
      path: NotePath,
      fromLine: z.number().int().min(1).optional().describe("First line to return (1-based)"),
      toLine: z.number().int().min(1).optional().describe("Last line to return (inclusive)"),
    }),
  ),
  write: zodSchema(
    z.object({ path: NotePath, content: z.string().max(maxNoteBytes), summary: z.string().max(maxSummaryLength).optional().describe("Sets the note's > Summary: line") }),
  ),
  append: zodSchema(z.object({ path: NotePath, entry: z.string().min(1).max(maxNoteBytes), summary: z.string().max(maxSummaryLength).optional() })),
  patch: zodSchema(
    z.object({
      path: NotePath,
      oldText: z.string().min(1).max(maxNoteBytes).optional().describe("The exact passage to replace; it must occur exactly once"),
      newText: z.string().max(maxNoteBytes).optional(),
      // The catalogue's memory_patch names them old_str and new_str: either pair is taken.
      old_str: z.string().min(1).max(maxNoteBytes).optional().describe("The same as oldText"),
      new_str: z.string().max(maxNoteBytes).optional().describe("The same as newText"),
    }),
  ),
  delete: zodSchema(z.object({ path: NotePath })),
};

const summaryLine = /^> ?Summary:[ \t]*(.*)$/im;

/** The note's one-line summary: its `> Summary:` line, else its first line of text. */
export function summaryOf(text: string): string {
  const explicit = summaryLine.exec(text)?.[1]?.trim();
  const line =
    explicit ||
    text
      .split("\n")
      .map((entry) => entry.replace(/^#+\s*/, "").trim())
      .find((entry) => entry !== "") ||
    "";
  return line.length > maxSummaryLength ? `${line.slice(0, maxSummaryLength - 1)}…` : line;
}

/** The text with its `> Summary:` line set (replaced, or put under the title, or on top). */
export function withSummary(text: string, summary: string): string {
  const line = `> Summary: ${summary.replace(/\s+/g, " ").trim()}`;
  if (summaryLine.test(text)) return text.replace(summaryLine, line);
  const lines = text.split("\n");
  if (lines[0]?.startsWith("# ")) return [lines[0], "", line, ...lines.slice(1)].join("\n");
  return text === "" ? `${line}\n` : `${line}\n\n${text}`;
}

export type NoteEntry = { path: string; summary: string; size: number; updated: string };

/** The agent's notes, newest first, with their summaries (from metadata: one list call per 1,000 notes). */
export async function listNotes(bucket: R2Bucket, agentId: string, max = 1_000): Promise<{ notes: NoteEntry[]; truncated: boolean }> {
  const prefix = notesPrefix(agentId);
  const notes: NoteEntry[] = [];
  let cursor: string | undefined;
  let truncated = false;
  do {
    const page = await bucket.list({ prefix, cursor, include: ["customMetadata"], limit: 1_000 });
    for (const object of page.objects) {
      notes.push({ path: object.key.slice(prefix.length), summary: object.customMetadata?.summary ?? "", size: object.size, updated: object.uploaded.toISOString() });
    }
    cursor = page.truncated ? page.cursor : undefined;
    if (notes.length >= max) {
      truncated = cursor !== undefined || notes.length > max;
      break;
    }
  } while (cursor);
  notes.sort((a, b) => b.updated.localeCompare(a.updated));
  return { notes: notes.slice(0, max), truncated };
}

/** The index the system prompt shows: one line per note. */
export async function notesIndex(bucket: R2Bucket, agentId: string): Promise<string[]> {
  const { notes } = await listNotes(bucket, agentId, maxIndexedNotes);
  return notes.map((note) => `- ${note.path}${note.summary ? `: ${note.summary}` : ""} (${note.size} bytes, updated ${note.updated.slice(0, 16)}Z)`);
}

export function createNotesTools(context: RunIdentity & PlatformAccess & JournalAccess) {
  const bucket = context.env.FILES;
  const prefix = notesPrefix(context.agent.agentId);
  const keyOf = (path: string) => {
    const checked = checkFilePath(path);
    return checked.ok ? { ok: true as const, path: checked.path, key: `${prefix}${checked.path}` } : checked;
  };
  const change = async (toolCallId: string, path: string, apply: (current: string | undefined) => { text: string } | { error: string }): Promise<ToolOutcome> => {
    const target = keyOf(path);
    if (!target.ok) return failed(target.error);
    const changed = await changeText(bucket, target.key, { callId: context.callIds.idFor(toolCallId), maxBytes: maxNoteBytes }, (current) => {
      const next = apply(current?.text);
      return "error" in next ? next : { text: next.text, metadata: { summary: summaryOf(next.text) }, contentType: "text/markdown; charset=utf-8" };
    });
    if (!changed.ok) return failed(changed.error);
    return succeeded({ path: target.path, size: changed.size, summary: changed.metadata.summary ?? "", ...(changed.created && { created: true }) });
  };

  return {
    notes_list: tool({
      description: "List your notes (markdown documents you wrote) with their one-line summaries, newest first.",
      inputSchema: schemas.list,
      execute: async () => succeeded(await listNotes(bucket, context.agent.agentId)),
    }),

    notes_read: tool({
      description: "Read one of your notes, or a range of its lines (1-based, inclusive).",
      inputSchema: schemas.read,
      execute: async ({ path, fromLine, toLine }) => {
        const target = keyOf(path);
        if (!target.ok) return failed(target.error);
        const read = await readText(bucket, target.key, maxNoteBytes);
        if (!read.ok) return failed(read.reason === "not_found" ? `You have no note "${target.path}" (notes_list shows them)` : `The note "${target.path}" cannot be read as text`);
        const lines = read.value.text.split("\n");
        const from = fromLine ?? 1;
        const to = Math.min(toLine ?? lines.length, lines.length);
        if (from > Math.max(lines.length, 1)) return failed(`The note has ${lines.length} lines; fromLine ${from} is past its end`);
        if (to < from) return failed("toLine is before fromLine");
        return succeeded({
          path: target.path,
          content: lines.slice(from - 1, to).join("\n"),
          fromLine: from,
          toLine: to,
          totalLines: lines.length,
          summary: read.value.metadata.summary ?? summaryOf(read.value.text),
        });
      },
    }),

    notes_write: tool({
      description: "Create or replace a note (markdown). Give summary to set its one-line > Summary: (otherwise its first line is the summary).",
      inputSchema: schemas.write,
      execute: async ({ path, content, summary }, { toolCallId }) => change(toolCallId, path, () => ({ text: summary === undefined ? content : withSummary(content, summary) })),
    }),

    notes_append: tool({
      description: "Append an entry to a note (created if missing); summary, if given, updates its > Summary: line.",
      inputSchema: schemas.append,
      execute: async ({ path, entry, summary }, { toolCallId }) =>
        change(toolCallId, path, (current) => {
          const base = current === undefined || current === "" ? "" : current.endsWith("\n") ? current : `${current}\n`;
          const text = `${base}${entry}${entry.endsWith("\n") ? "" : "\n"}`;
          return { text: summary === undefined ? text : withSummary(text, summary) };
        }),
    }),

    notes_patch: tool({
      description: "Replace an exact passage of a note with new text. The passage must occur exactly once (otherwise nothing changes and you are told why).",
      inputSchema: schemas.patch,
      execute: async ({ path, ...input }, { toolCallId }) => {
        const oldText = input.oldText ?? input.old_str;
        const newText = input.newText ?? input.new_str;
        if (oldText === undefined || newText === undefined) return failed("Give oldText and newText (or old_str and new_str)");
        if ((input.oldText !== undefined && input.old_str !== undefined) || (input.newText !== undefined && input.new_str !== undefined)) {
          return failed("Give oldText and newText, or old_str and new_str, not both");
        }
        return change(toolCallId, path, (current) => {
          if (current === undefined) return { error: `You have no note "${path}"` };
          const patched = replaceExactlyOnce(current, oldText, newText);
          return patched.ok ? { text: patched.text } : { error: patched.error };
        });
      },
    }),

    notes_delete: tool({
      description: "Delete one of your notes.",
      inputSchema: schemas.delete,
      execute: async ({ path }) => {
        const target = keyOf(path);
        if (!target.ok) return failed(target.error);
        const existed = (await bucket.head(target.key)) !== null;
        await bucket.delete(target.key);
        return succeeded({ path: target.path, deleted: existed });
      },
    }),
  };
}
