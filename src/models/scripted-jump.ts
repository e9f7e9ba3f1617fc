/**
 * Where a scripted model's `jumps` send its script: a cycle woken by a space
 * message that says a jump's words plays from that jump's turn. Words are
 * compared without case or punctuation, in order, as whole words ("form"
 * matches "Form, please" but not "platform"), by a linear scan: a message is
 * never run through a pattern.
 */

/** The words of a text, lower-cased: runs of letters and digits. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Whether `text` holds the words of `phrase`, next to each other and in order. */
export function says(text: string, phrase: string): boolean {
  const wanted = wordsOf(phrase);
  if (wanted.length === 0) return false;
  const words = wordsOf(text);
  for (let start = 0; start + wanted.length <= words.length; start++) {
    if (wanted.every((word, offset) => words[start + offset] === word)) return true;
  }
  return false;
}

/** The turn the first jump whose words one of `messages` says goes to (jumps in their order), or undefined. */
export function jumpTurn(jumps: readonly { whenMessageSays: string; toTurn: number }[] | undefined, messages: readonly string[]): number | undefined {
  return jumps?.find((jump) => messages.some((text) => says(text, jump.whenMessageSays)))?.toTurn;
}
