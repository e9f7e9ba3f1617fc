/**
 * The exact-once patch (`notes_patch` and `edit_file`): a
 * passage is replaced only when it occurs exactly once, so an edit can never
 * land in the wrong place. Overlapping occurrences count ("aa" occurs twice
 * in "aaa"): the passage must pick one place, unambiguously.
 */
export type Patch = { ok: true; text: string } | { ok: false; error: string };

export function countOccurrences(text: string, passage: string): number {
  if (passage === "") return 0;
  let count = 0;
  for (let index = text.indexOf(passage); index !== -1; index = text.indexOf(passage, index + 1)) count += 1;
  return count;
}

export function replaceExactlyOnce(text: string, oldText: string, newText: string): Patch {
  if (oldText === "") return { ok: false, error: "oldText is empty: give the exact passage to replace" };
  const count = countOccurrences(text, oldText);
  if (count === 0) return { ok: false, error: "oldText was not found: it must match the current text exactly (read it first; whitespace and line breaks count)" };
  if (count > 1) return { ok: false, error: `oldText occurs ${count} times: include more of the surrounding text so it occurs exactly once` };
  const index = text.indexOf(oldText);
  return { ok: true, text: text.slice(0, index) + newText + text.slice(index + oldText.length) };
}
