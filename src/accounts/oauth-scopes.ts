/**
 * Scopes as OAuth writes them (one string, separated by spaces) and as the
 * gateway keeps them (a list, in order, each once).
 */

/** The scopes of a `scope` string or parameter, each once, in order; none for undefined or blank. */
export function scopeList(text: string | undefined): string[] {
  return [...new Set((text ?? "").split(" ").filter((scope) => scope !== ""))];
}

/** Every scope of `first`, then those of `second` not already there. */
export function unionScopes(first: readonly string[], second: readonly string[]): string[] {
  return [...new Set([...first, ...second])];
}
