/**
 * The one way the gateway runs a pattern that a model, a person, a config or
 * an upstream document supplies: `read_output` and `grep_files` greps, JSON
 * Schema `pattern` and `patternProperties` in tool input schemas, the page's
 * schema forms. Patterns run on a linear-time engine (parse-pattern.ts for
 * the syntax, compile-program.ts, pattern-matcher.ts), never on the
 * JavaScript engine's backtracking one, where `(a+)+$` over thirty `a`s
 * takes seconds and holds the whole isolate. A search's cost is at most
 * (characters × program size) and is counted against a `PatternBudget`, so
 * every call returns or stops within a bound that does not depend on the
 * pattern.
 */
import { compileProgram, type Program } from "./compile-program";
import { parsePattern, type PatternRefusalKind } from "./parse-pattern";
import { type MatchResult, PatternBudget, PatternMatcher } from "./pattern-matcher";

export { type MatchResult, PatternBudget, PatternMatcher };
export type { PatternRefusalKind } from "./parse-pattern";

/**
 * The work one search call (a grep over a whole output or a folder of files)
 * may spend: about 5 MB of text through known transitions; the worst
 * patterns spend it in 25–50 ms on a 2-core machine under load (`npm run
 * bench -- --only patterns`). Past it the call answers with what it found
 * and where it stopped.
 */
export const searchBudgetUnits = 6_000_000;

/** `unicode`: escapes as JavaScript's `u` flag allows them (JSON Schema's patterns); `literal`: plain text. */
export type SafePatternOptions = { ignoreCase?: boolean; literal?: boolean; unicode?: boolean };

export type SafePattern = {
  source: string;
  ignoreCase: boolean;
  /** A matcher keeps the automaton states it builds: use one per call and reuse it for that call's texts. */
  matcher(): PatternMatcher;
};

/** A refusal's `kind`: `invalid` (not a regular expression) or `unsupported` (one this engine does not run). */
export type CompiledPattern = { ok: true; pattern: SafePattern } | { ok: false; kind: PatternRefusalKind; message: string };

/**
 * Compiles `source` (a regular expression in the supported subset, or plain
 * text with `literal`), or says in one sentence why it is refused.
 */
export function compileSafePattern(source: string, options: SafePatternOptions = {}): CompiledPattern {
  const parsed = parsePattern(options.literal ? escapeLiteral(source) : source, options.unicode === true);
  if (!parsed.ok) return parsed;
  const compiled = compileProgram(parsed.node);
  if (!compiled.ok) return compiled;
  const program: Program = compiled.program;
  const ignoreCase = options.ignoreCase === true;
  return { ok: true, pattern: { source, ignoreCase, matcher: () => new PatternMatcher(program, ignoreCase) } };
}

function escapeLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
