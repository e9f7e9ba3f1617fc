/**
 * The `files` group (file tools, on R2): files live under the
 * shared `files/` area, and an agent may use only the folders its config
 * lists (`files.prefixes`), read-only if it says so, up to `maxFileBytes`.
 * Every path goes through one rule (`security/storage-path.ts`): nothing escapes its
 * folder. Writes are idempotent per call (`text-object-store.ts`); `edit_file`
 * applies exact-once patches, all or none. `share_file` makes a signed,
 * expiring link the members of a space can download the file with.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import { signFileLink } from "../../security/file-links";
import type { JournalAccess, PlatformAccess, SettingsAccess, SpaceAccess } from "../engine/tool-context";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import { replaceExactlyOnce } from "../files/exact-once";
import { maxMediaTypeLength, mediaTypeProblem } from "../files/media-type";
import { checkFilePath, checkFolderPath, isInside } from "../../security/storage-path";
import { callsOf, changeText, readText, withKeyLock } from "../files/text-object-store";
import { defaultMaxFileBytes } from "../config/builtin-config";
import { compileSafePattern, PatternBudget, searchBudgetUnits } from "../../security/safe-pattern/safe-pattern";

export const filesRoot = "files/";
const maxGrepFiles = 200;
const maxGrepBytes = 5_000_000;
const maxLineLength = 2_000;

const FilePath = z.string().min(1).max(512);

const schemas = {
  read: zodSchema(
    z.object({
      path: FilePath,
      offset: z.number().int().min(1).optional().describe("First line (1-based)"),
      limit: z.number().int().min(1).max(100_000).optional().describe("Lines to return"),
    }),
  ),
  write: zodSchema(
    z.object({
      path: FilePath,
      content: z.string().max(10_000_000),
      contentType: z.string().max(maxMediaTypeLength).optional().describe('A media type, e.g. "text/csv; charset=utf-8" (default "text/plain; charset=utf-8")'),
    }),
  ),
  list: zodSchema(
    z.object({
      path: z.string().max(512).optional().describe("A folder (default: your folders)"),
      recursive: z.boolean().optional(),
      pattern: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe('Only files matching this glob: * and ? within a name, ** across folders; without a "/" it matches the file\'s name, with one its path below the folder'),
      limit: z.number().int().min(1).max(1_000).optional(),
      cursor: z.string().max(1_024).optional(),
    }),
  ),
  edit: zodSchema(
    z.object({
      path: FilePath,
      edits: z
        .array(z.object({ oldText: z.string().min(1), newText: z.string() }))
        .min(1)
        .max(50)
        .describe("Applied in order; each oldText must occur exactly once when its turn comes, or nothing is changed"),
    }),
  ),
  grep: zodSchema(
    z.object({
      pattern: z.string().min(1).max(500),
      path: z.string().max(512).optional().describe("A folder or file to search (default: all your folders)"),
      regex: z.boolean().optional().describe("Treat pattern as a regular expression (JavaScript syntax; no backreferences or lookaround; default: plain text)"),
      caseSensitive: z.boolean().optional(),
      maxMatches: z.number().int().min(1).max(1_000).optional(),
    }),
  ),
  move: zodSchema(z.object({ from: FilePath, to: FilePath, overwrite: z.boolean().optional() })),
  path: zodSchema(z.object({ path: FilePath })),
  share: zodSchema(
    z.object({
      path: FilePath,
      expiresInSeconds: z
        .number()
        .int()
        .min(60)
        .max(7 * 24 * 3600)
        .optional()
        .describe("Default 3600"),
      spaceId: z.string().max(200).optional().describe("Whose members may download it (default: your active space)"),
    }),
  ),
};

type Target = { ok: true; path: string; key: string } | { ok: false; error: string };

/** A successful outcome with the catalogue's fields added beside today's (`bytesWritten`, `applied`). */
function withFields(outcome: ToolOutcome, fields: Record<string, unknown>): ToolOutcome {
  return outcome.type === "ok" && typeof outcome.value === "object" && outcome.value !== null ? succeeded({ ...outcome.value, ...fields }) : outcome;
}

/** A glob as a pattern for the linear engine: `**` any folders, `*` and `?` within a name, everything else literal. */
export function globToPattern(glob: string): string {
  let source = "";
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index];
    if (char === "*" && glob[index + 1] === "*") {
      const slash = glob[index + 2] === "/";
      source += slash ? "(?:.*/)?" : ".*";
      index += slash ? 2 : 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return `^${source}$`;
}

export function createFileTools(context: PlatformAccess & SettingsAccess & SpaceAccess & JournalAccess) {
  const bucket = context.env.FILES;
  const settings = context.config.files;
  const prefixes = (settings?.prefixes ?? []).map((prefix) => {
    const checked = checkFolderPath(prefix);
    return checked.ok ? checked.path : "\u0000";
  });
  const maxBytes = settings?.maxFileBytes ?? defaultMaxFileBytes;
  const readOnly = settings?.readOnly === true;
  const folders = prefixes.map((prefix) => `${prefix}/`).join(", ");

  const fileTarget = (raw: string): Target => {
    const checked = checkFilePath(raw);
    if (!checked.ok) return checked;
    if (!prefixes.some((prefix) => isInside(checked.path, prefix))) return { ok: false, error: `"${checked.path}" is outside your folders (${folders})` };
    return { ok: true, path: checked.path, key: `${filesRoot}${checked.path}` };
  };
  const writable = (raw: string): Target => (readOnly ? { ok: false, error: "Your files are read-only" } : fileTarget(raw));
  const callId = (toolCallId: string) => context.callIds.idFor(toolCallId);
  const notFound = (path: string) => failed(`No file "${path}"`);
  const unreadable = (path: string, reason: string, size?: number) =>
    failed(
      reason === "not_found"
        ? `No file "${path}"`
        : reason === "too_large"
          ? `"${path}" is ${size} bytes, over the ${maxBytes}-byte limit`
          : `"${path}" is not UTF-8 text (use share_file to give people a link to it)`,
    );

  const searchFolders = (raw: string | undefined): { ok: true; folders: string[] } | { ok: false; error: string } => {
    if (raw === undefined || raw === "") return { ok: true, folders: prefixes };
    const checked = checkFolderPath(raw);
    if (!checked.ok) return checked;
    if (prefixes.some((prefix) => isInside(checked.path, prefix))) return { ok: true, folders: [checked.path] };
    // A parent of some of the agent's folders: those folders.
    const inner = prefixes.filter((prefix) => isInside(prefix, checked.path));
    return inner.length > 0 ? { ok: true, folders: inner } : { ok: false, error: `"${checked.path}" is outside your folders (${folders})` };
  };

  const change = async (
    target: Target,
    toolCallId: string,
    apply: (current: string | undefined) => { text: string; contentType?: string } | { error: string },
    overwrite = false,
  ): Promise<ToolOutcome> => {
    if (!target.ok) return failed(target.error);
    const changed = await changeText(bucket, target.key, { callId: callId(toolCallId), maxBytes, overwrite }, (current) => apply(current?.text));
    return changed.ok ? succeeded({ path: target.path, size: changed.size, ...(changed.created && { created: true }) }) : failed(changed.error);
  };

  return {
    read_file: tool({
      description: `Read a text file from your folders (${folders || "none"}), optionally a range of lines.`,
      inputSchema: schemas.read,
      execute: async ({ path, offset, limit }) => {
        const target = fileTarget(path);
        if (!target.ok) return failed(target.error);
        const read = await readText(bucket, target.key, maxBytes);
        if (!read.ok) return unreadable(target.path, read.reason, read.size);
        const lines = read.value.text.split("\n");
        const from = offset ?? 1;
        const to = Math.min(limit === undefined ? lines.length : from + limit - 1, lines.length);
        if (from > Math.max(lines.length, 1)) return failed(`"${target.path}" has ${lines.length} lines; offset ${from} is past its end`);
        const content = lines.slice(from - 1, to).join("\n");
        const cap = context.config.limits.toolResponseMaxBytes - 1_024;
        return succeeded({
          path: target.path,
          content: content.slice(0, cap),
          size: read.value.size,
          totalLines: lines.length,
          fromLine: from,
          toLine: to,
          ...(content.length > cap && { truncated: true }),
          contentType: read.value.contentType ?? null,
        });
      },
    }),

    write_file: tool({
      description: "Create or overwrite a text file in your folders.",
      inputSchema: schemas.write,
      execute: async ({ path, content, contentType }, { toolCallId }) => {
        // Kept with the file and sent as its content-type header when it is downloaded.
        const problem = contentType === undefined ? undefined : mediaTypeProblem(contentType);
        if (problem !== undefined) return failed(`contentType ${JSON.stringify(contentType)} is not a valid content type: ${problem}`);
        const written = await change(writable(path), toolCallId, () => ({ text: content, ...(contentType !== undefined && { contentType }) }), true);
        return withFields(written, { bytesWritten: new TextEncoder().encode(content).length });
      },
    }),

    list_files: tool({
      description: "List files and folders in one of your folders (recursive lists every file below it).",
      inputSchema: schemas.list,
      execute: async ({ path, recursive, pattern, limit = 200, cursor }) => {
        // A glob from the model runs on the linear engine, like every outside pattern.
        const compiled = pattern === undefined ? undefined : compileSafePattern(globToPattern(pattern));
        if (compiled && !compiled.ok) return failed(`The pattern cannot be used: ${compiled.message}`);
        const matcher = compiled?.pattern.matcher();
        const budget = new PatternBudget(searchBudgetUnits);
        if (path === undefined || path === "") {
          if (!recursive) return succeeded({ path: "", folders: prefixes.map((prefix) => `${prefix}/`), files: [] });
        }
        const scope = searchFolders(path);
        if (!scope.ok) return failed(scope.error);
        if (scope.folders.length !== 1) return succeeded({ path: path ?? "", folders: scope.folders.map((folder) => `${folder}/`), files: [] });
        const folder = scope.folders[0];
        const listed = await bucket.list({ prefix: `${filesRoot}${folder}/`, limit, cursor, ...(!recursive && { delimiter: "/" }) });
        const below = (key: string) => key.slice(`${filesRoot}${folder}/`.length);
        const matches = (key: string) => {
          if (!matcher || pattern === undefined) return true;
          const tested = pattern.includes("/") ? below(key) : below(key).slice(below(key).lastIndexOf("/") + 1);
          return matcher.search(tested, budget) === "match";
        };
        return succeeded({
          path: folder,
          folders: (listed.delimitedPrefixes ?? []).map((prefix) => prefix.slice(filesRoot.length)),
          files: listed.objects
            .filter((object) => matches(object.key))
            .map((object) => {
              const updated = object.uploaded.toISOString();
              // `modified` is the catalogue's name for `updated`.
              return { path: object.key.slice(filesRoot.length), size: object.size, updated, modified: updated };
            }),
          ...(pattern !== undefined && { pattern }),
          ...(listed.truncated && { cursor: listed.cursor }),
        });
      },
    }),

    edit_file: tool({
      description: "Edit a text file with exact replacements: each oldText must occur exactly once (when its turn comes); if any does not, nothing is changed.",
      inputSchema: schemas.edit,
      execute: async ({ path, edits }, { toolCallId }) =>
        change(writable(path), toolCallId, (current) => {
          if (current === undefined) return { error: `No file "${path}"` };
          let text = current;
          for (const [index, edit] of edits.entries()) {
            const patched = replaceExactlyOnce(text, edit.oldText, edit.newText);
            if (!patched.ok) return { error: `Edit ${index + 1} of ${edits.length}: ${patched.error}. Nothing was changed.` };
            text = patched.text;
          }
          return { text };
        }).then((outcome) => withFields(outcome, { applied: edits.length })),
    }),

    grep_files: tool({
      description: "Search your text files for a pattern (plain text by default, or a regular expression); returns matching lines.",
      inputSchema: schemas.grep,
      execute: async ({ pattern, path, regex, caseSensitive, maxMatches = 100 }) => {
        // Plain text or a regular expression, both on the linear-time engine, with one budget for the whole search.
        const compiled = compileSafePattern(pattern, { ignoreCase: !caseSensitive, literal: !regex });
        if (!compiled.ok) return failed(`${compiled.kind === "invalid" ? "Invalid regular expression" : "The pattern cannot be used"}: ${compiled.message}`);
        const matcher = compiled.pattern.matcher();
        const searchBudget = new PatternBudget(searchBudgetUnits);
        // A single file, or the folders given.
        const single = path !== undefined && path !== "" ? fileTarget(path) : undefined;
        const keys: string[] = [];
        if (single?.ok && (await bucket.head(single.key))) keys.push(single.key);
        else {
          const scope = searchFolders(path);
          if (!scope.ok) return failed(scope.error);
          for (const folder of scope.folders) {
            let cursor: string | undefined;
            do {
              const listed = await bucket.list({ prefix: `${filesRoot}${folder}/`, cursor, limit: 1_000 });
              keys.push(...listed.objects.filter((object) => object.size <= maxBytes).map((object) => object.key));
              cursor = listed.truncated ? listed.cursor : undefined;
            } while (cursor && keys.length < maxGrepFiles);
          }
        }
        const matches: { path: string; line: number; text: string }[] = [];
        let searched = 0;
        let bytes = 0;
        let truncated = keys.length > maxGrepFiles;
        let stoppedAt: { path: string; line: number } | undefined;
        for (const key of keys.slice(0, maxGrepFiles)) {
          if (matches.length >= maxMatches || bytes > maxGrepBytes) {
            truncated = true;
            break;
          }
          const read = await readText(bucket, key, maxBytes);
          if (!read.ok) continue;
          searched += 1;
          bytes += read.value.size;
          const text = read.value.text;
          const path = key.slice(filesRoot.length);
          const result = matcher.searchLines(
            text,
            searchBudget,
            ({ index, start, end }) => {
              matches.push({ path, line: index + 1, text: text.slice(start, Math.min(end, start + maxLineLength)) });
              return matches.length < maxMatches;
            },
            maxLineLength,
          );
          if (result.stopped === "callback") truncated = true;
          if (result.stopped === "over-budget") {
            stoppedAt = { path, line: result.line + 1 };
            break;
          }
        }
        return succeeded({
          matches,
          filesSearched: searched,
          ...((truncated || stoppedAt) && { truncated: true }),
          ...(stoppedAt && {
            stoppedAt,
            note: "The search stopped early: this pattern over this much text costs more than one call may spend. Search the rest with a narrower path or a simpler pattern.",
          }),
        });
      },
    }),

    move_file: tool({
      description: "Move or rename a file within your folders.",
      inputSchema: schemas.move,
      execute: async ({ from, to, overwrite }, { toolCallId }) => {
        const source = writable(from);
        const destination = writable(to);
        if (!source.ok) return failed(source.error);
        if (!destination.ok) return failed(destination.error);
        if (source.key === destination.key) return failed("from and to are the same file");
        const id = callId(toolCallId);
        // Both keys locked, always in the same order, so two moves between the same files never wait on each other.
        const [first, second] = [source.key, destination.key].sort();
        return withKeyLock(first, () =>
          withKeyLock(second, async () => {
            const object = await bucket.get(source.key);
            if (!object) {
              // Done before a restart: the destination carries this call's id.
              const moved = await bucket.head(destination.key);
              return moved && callsOf(moved.customMetadata).includes(id) ? succeeded({ from: source.path, to: destination.path }) : notFound(source.path);
            }
            if (object.size > maxBytes) {
              await object.body.cancel();
              return failed(`"${source.path}" is ${object.size} bytes, over the ${maxBytes}-byte limit`);
            }
            const existing = await bucket.head(destination.key);
            if (existing && !overwrite && !callsOf(existing.customMetadata).includes(id)) {
              await object.body.cancel();
              return failed(`"${destination.path}" exists; give overwrite: true to replace it`);
            }
            const calls = [...callsOf(object.customMetadata), id].slice(-16).join(",");
            await bucket.put(destination.key, await object.arrayBuffer(), { httpMetadata: object.httpMetadata, customMetadata: { ...object.customMetadata, calls } });
            await bucket.delete(source.key);
            return succeeded({ from: source.path, to: destination.path });
          }),
        );
      },
    }),

    delete_file: tool({
      description: "Delete a file in your folders.",
      inputSchema: schemas.path,
      execute: async ({ path }) => {
        const target = writable(path);
        if (!target.ok) return failed(target.error);
        const existed = (await bucket.head(target.key)) !== null;
        await withKeyLock(target.key, () => bucket.delete(target.key));
        return succeeded({ path: target.path, deleted: existed });
      },
    }),

    get_file_info: tool({
      description: "Whether a file exists, and its size, type and last change.",
      inputSchema: schemas.path,
      execute: async ({ path }) => {
        const target = fileTarget(path);
        if (!target.ok) return failed(target.error);
        const head = await bucket.head(target.key);
        if (!head) return succeeded({ path: target.path, exists: false });
        return succeeded({
          path: target.path,
          exists: true,
          size: head.size,
          updated: head.uploaded.toISOString(),
          modified: head.uploaded.toISOString(),
          contentType: head.httpMetadata?.contentType ?? null,
          etag: head.etag,
        });
      },
    }),

    share_file: tool({
      description: "A signed link members of a space (default: your active space) can download the file with, valid for a while (default an hour). Send it in a message.",
      inputSchema: schemas.share,
      execute: async ({ path, expiresInSeconds = 3_600, spaceId }) => {
        const target = fileTarget(path);
        if (!target.ok) return failed(target.error);
        const space = spaceId ?? context.getActiveSpaceId();
        if (!space) return failed("Name a spaceId, or enter_space first: a link is for the members of one space");
        if (!(await context.isMemberOf(space))) return failed(`You are not a member of space "${space}"`);
        if (!(await bucket.head(target.key))) return notFound(target.path);
        const link = await signFileLink(context.env, { key: target.key, spaceId: space, seconds: expiresInSeconds });
        return succeeded({ path: target.path, spaceId: space, ...link });
      },
    }),
  };
}
