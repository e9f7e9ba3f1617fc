/**
 * The one rule for paths a model (or a config) names inside R2: relative,
 * `/`-separated, each segment made of letters, digits and a few plain
 * punctuation marks. Nothing that could mean "go up" or "start over" gets
 * through: no `.`/`..` segments, no empty segments, no leading `/`, no
 * backslash, no `%` (so no percent-encoded form of any of these), no control,
 * format or look-alike characters (a fullwidth solidus is punctuation, not a
 * letter). R2 keys are flat, so this is not about a filesystem: it keeps each
 * path inside the prefix it is joined to, as any reader of the key would
 * understand it. Paths are compared after NFC normalisation.
 */
export const maxPathLength = 512;
const maxSegmentLength = 255;
const maxDepth = 32;
const segmentPattern = /^[\p{L}\p{M}\p{N} ._\-+=,@()~]+$/u;

export type PathCheck = { ok: true; path: string } | { ok: false; error: string };

/** A file path (no trailing `/`), normalised; or why it is refused. */
export function checkFilePath(raw: unknown): PathCheck {
  return checkPath(raw, false);
}

/** A folder path: like a file path, a trailing `/` allowed (and dropped); empty means "the top". */
export function checkFolderPath(raw: unknown): PathCheck {
  if (raw === "" || raw === undefined) return { ok: true, path: "" };
  return checkPath(raw, true);
}

function checkPath(raw: unknown, folder: boolean): PathCheck {
  if (typeof raw !== "string" || raw.length === 0) return refuse("a path must be a non-empty string");
  const path = raw.normalize("NFC");
  if (path.length > maxPathLength) return refuse(`a path has at most ${maxPathLength} characters`);
  if (path.startsWith("/")) return refuse("absolute paths are not allowed; give a path relative to your folder");
  if (path.includes("\\")) return refuse("use / to separate folders (no backslashes)");
  if (path.includes("%")) return refuse("percent-encoded paths are not allowed; write the characters themselves");
  const trimmed = folder ? path.replace(/\/$/, "") : path;
  if (!folder && path.endsWith("/")) return refuse("this path names a folder; give a file path");
  const segments = trimmed.split("/");
  if (segments.length > maxDepth) return refuse(`a path has at most ${maxDepth} levels`);
  for (const segment of segments) {
    if (segment === "") return refuse("empty path segments (//) are not allowed");
    if (/^\.+$/.test(segment)) return refuse(`"${segment}" segments are not allowed`);
    if (segment.length > maxSegmentLength) return refuse(`a path segment has at most ${maxSegmentLength} characters`);
    if (segment !== segment.trim()) return refuse("path segments may not start or end with a space");
    if (!segmentPattern.test(segment)) return refuse(`"${printable(segment)}" has characters paths may not use (letters, digits, space and . _ - + = , @ ( ) ~ only)`);
  }
  return { ok: true, path: trimmed };
}

/** Whether `path` is `prefix` itself or inside it (`reports` holds `reports/a`, never `reports-old/a`). */
export function isInside(path: string, prefix: string): boolean {
  return prefix === "" || path === prefix || path.startsWith(`${prefix}/`);
}

function refuse(reason: string): PathCheck {
  return { ok: false, error: `Invalid path: ${reason}` };
}

function printable(segment: string): string {
  return JSON.stringify(segment).slice(1, -1);
}
