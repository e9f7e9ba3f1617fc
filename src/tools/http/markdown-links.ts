/**
 * Link markup over a page's text in one pass each. The regular expressions
 * these replace (`/\[([^\]]*)\]\([^)]*\)/g` and the like) rescan to the end
 * of the text from every "[" that never closes, so five megabytes of "["
 * held the isolate for hours; here each scan starts where the last one
 * stopped, so the work is linear in the text.
 */

/**
 * `[label](target)` → `label` (`opener` "[") or `![alt](src)` → `alt`
 * (`opener` "!["), exactly as `/!?\[([^\]]*)\]\([^)]*\)/g` with "$1" would.
 */
export function unwrapLinks(text: string, opener: "[" | "!["): string {
  let out = "";
  let copied = 0;
  let from = 0;
  // The first "]" and ")" at or after where they were last looked for: both only move forward.
  let close = -1;
  let paren = -1;
  for (;;) {
    const open = text.indexOf(opener, from);
    if (open === -1) break;
    const labelStart = open + opener.length;
    if (close < labelStart) close = text.indexOf("]", labelStart);
    // No "]" after this opener: none after any later one either.
    if (close === -1) break;
    if (text[close + 1] !== "(") {
      from = open + 1;
      continue;
    }
    if (paren < close + 2) paren = text.indexOf(")", close + 2);
    if (paren === -1) break;
    out += text.slice(copied, open) + text.slice(labelStart, close);
    copied = from = paren + 1;
  }
  return out + text.slice(copied);
}

/** Drops empty links `[](target)`, as `/\[\]\([^)]*\)/g` with "" would. */
export function dropEmptyLinks(text: string): string {
  let out = "";
  let copied = 0;
  let paren = -1;
  for (let open = text.indexOf("[](", 0); open !== -1; open = text.indexOf("[](", copied)) {
    if (paren < open + 3) paren = text.indexOf(")", open + 3);
    if (paren === -1) break;
    out += text.slice(copied, open);
    copied = paren + 1;
  }
  return out + text.slice(copied);
}

/**
 * Drops spaces and tabs before each line break and after each, as
 * `.replace(/[ \t]+\n/g, "\n").replace(/\n[ \t]+/g, "\n")` would; the first
 * of those retries a long run of spaces from each of its characters.
 */
export function trimAroundLineBreaks(text: string): string {
  const lines = text.split("\n");
  const last = lines.length - 1;
  return lines
    .map((line, index) => {
      let start = 0;
      let end = line.length;
      if (index > 0) while (start < end && (line[start] === " " || line[start] === "\t")) start += 1;
      if (index < last) while (end > start && (line[end - 1] === " " || line[end - 1] === "\t")) end -= 1;
      return start === 0 && end === line.length ? line : line.slice(start, end);
    })
    .join("\n");
}
