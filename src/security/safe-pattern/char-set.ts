/**
 * Sets of code points for the safe pattern engine: sorted, disjoint,
 * inclusive ranges, tested by binary search. Negation and union are resolved
 * when a pattern is parsed, so matching a character is one lookup (plus its
 * case variants under the ignore-case flag).
 */
export type CharSet = readonly (readonly [number, number])[];

export const maxCodePoint = 0x10ffff;

/** Sorts and merges ranges into a canonical set. */
export function normalizeSet(ranges: (readonly [number, number])[]): CharSet {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [low, high] of sorted) {
    const last = merged.at(-1);
    if (last && low <= last[1] + 1) last[1] = Math.max(last[1], high);
    else merged.push([low, high]);
  }
  return merged;
}

export function negateSet(set: CharSet): CharSet {
  const result: [number, number][] = [];
  let next = 0;
  for (const [low, high] of set) {
    if (low > next) result.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= maxCodePoint) result.push([next, maxCodePoint]);
  return result;
}

export function setHas(set: CharSet, code: number): boolean {
  let low = 0;
  let high = set.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [from, to] = set[middle];
    if (code < from) high = middle - 1;
    else if (code > to) low = middle + 1;
    else return true;
  }
  return false;
}

/** The character's simple lower- and upper-case forms (one code point each), for the ignore-case flag. */
export function caseVariants(code: number): number[] {
  const text = String.fromCodePoint(code);
  const variants: number[] = [];
  for (const changed of [text.toLowerCase(), text.toUpperCase()]) {
    const variant = changed.codePointAt(0);
    if (variant !== undefined && variant !== code && String.fromCodePoint(variant) === changed) variants.push(variant);
  }
  return variants;
}

export function setHasFolded(set: CharSet, code: number, ignoreCase: boolean): boolean {
  if (setHas(set, code)) return true;
  return ignoreCase && caseVariants(code).some((variant) => setHas(set, variant));
}

export const digitSet: CharSet = [[0x30, 0x39]];
export const wordSet: CharSet = normalizeSet([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);
/** ECMAScript's white space and line terminators (what `\s` matches). */
export const spaceSet: CharSet = normalizeSet([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
/** What `.` matches: everything but line terminators. */
export const dotSet: CharSet = negateSet(
  normalizeSet([
    [0x0a, 0x0a],
    [0x0d, 0x0d],
    [0x2028, 0x2029],
  ]),
);

export function isWordCode(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || code === 0x5f || (code >= 0x61 && code <= 0x7a);
}
