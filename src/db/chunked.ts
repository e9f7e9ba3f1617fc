/**
 * D1 refuses a statement with more than 100 bound parameters ("too many SQL
 * variables"), so a list that comes from a caller (an IN list, the rows of a
 * multi-row insert) is cut into pieces that each fit one statement. Callers
 * send the pieces in one `batch`: one round trip, and all or nothing.
 */
export const maxBoundParameters = 100;

/**
 * Splits `items` into pieces of at most as many items as fit one statement,
 * given each item's bound parameters and the statement's other parameters
 * (e.g. `and(eq(agentId), inArray(ids))` has one other). An empty list gives
 * no pieces.
 */
export function chunked<T>(items: readonly T[], options: { parametersPerItem?: number; otherParameters?: number } = {}): T[][] {
  const { parametersPerItem = 1, otherParameters = 0 } = options;
  const size = Math.floor((maxBoundParameters - otherParameters) / parametersPerItem);
  if (size < 1) throw new Error(`A statement with ${otherParameters} other parameters has no room for items of ${parametersPerItem}`);
  const pieces: T[][] = [];
  for (let start = 0; start < items.length; start += size) pieces.push(items.slice(start, start + size));
  return pieces;
}
