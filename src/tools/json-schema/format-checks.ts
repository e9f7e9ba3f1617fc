/**
 * The `format` checks tool schemas get, each bounded in time whatever the
 * string. `@cfworker/json-schema` asserts formats with the JavaScript
 * engine's backtracking regular expressions, and one of them (`url`) takes
 * seconds on a 28-character string, longer than that exponentially. Here:
 *
 * - the URI family (`uri`, `uri-reference`, `uri-template`, the JSON
 *   pointers) is written from its RFC grammar and runs on the linear-time
 *   pattern engine;
 * - `url` is an absolute http, https or ftp URL the WHATWG parser accepts,
 *   whose host is a DNS name (letters, digits, hyphens, dots) or an IP;
 * - the formats of short, fixed structure (`date`, `time`, `date-time`,
 *   `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`, `regex`) use the
 *   library's own check on strings up to the longest such a value can be;
 *   a longer string is not one (so the library's expressions only ever
 *   see a short input: they hold no nested unbounded repetition, and at
 *   these lengths they answer in microseconds).
 */
import { format as libraryFormats } from "@cfworker/json-schema";
import { compileSafePattern, type PatternBudget, type PatternMatcher } from "../../security/safe-pattern/safe-pattern";

/** The longest string each short format can be (`regex`: a pattern is only compiled, never run). */
const maxLengths: Record<string, number> = {
  date: 10,
  time: 128,
  "date-time": 128,
  duration: 128,
  email: 320,
  hostname: 253,
  ipv4: 15,
  ipv6: 45,
  uuid: 36,
  regex: 10_000,
};

const pct = "%[0-9a-f]{2}";
const pchar = `(?:[a-z0-9\\-._~!$&'()*+,;=:@]|${pct})`;
const userinfo = `(?:[a-z0-9\\-._~!$&'()*+,;=:]|${pct})*`;
const host = `(?:\\[[0-9a-f:.]+\\]|\\[v[0-9a-f]+\\.[a-z0-9\\-._~!$&'()*+,;=:]+\\]|(?:[a-z0-9\\-._~!$&'()*+,;=]|${pct})*)`;
const authority = `(?:${userinfo}@)?${host}(?::[0-9]*)?`;
const pathAbempty = `(?:/${pchar}*)*`;
const pathAbsolute = `/(?:${pchar}+(?:/${pchar}*)*)?`;
const pathRootless = `${pchar}+(?:/${pchar}*)*`;
const pathNoScheme = `(?:[a-z0-9\\-._~!$&'()*+,;=@]|${pct})+(?:/${pchar}*)*`;
const query = `(?:\\?(?:${pchar}|[/?])*)?`;
const fragment = `(?:#(?:${pchar}|[/?])*)?`;
const uri = `[a-z][a-z0-9+\\-.]*:(?://${authority}${pathAbempty}|${pathAbsolute}|${pathRootless}|)${query}${fragment}`;
const relativeReference = `(?://${authority}${pathAbempty}|${pathAbsolute}|${pathNoScheme}|)${query}${fragment}`;
const varchar = `(?:[a-z0-9_]|${pct})`;
const varspec = `${varchar}(?:\\.?${varchar})*(?::[1-9][0-9]{0,3}|\\*)?`;
const templateExpression = `\\{[+#./;?&=,!@|]?${varspec}(?:,${varspec})*\\}`;
const jsonPointer = "(?:/(?:[^~/]|~0|~1)*)*";

/** RFC 3986 (URIs), RFC 6570 (templates), RFC 6901 and the relative JSON pointer draft, as the linear engine's patterns. */
const grammarSources: Record<string, { source: string; ignoreCase: boolean }> = {
  uri: { source: `^${uri}$`, ignoreCase: true },
  "uri-reference": { source: `^(?:${uri}|${relativeReference})$`, ignoreCase: true },
  "uri-template": { source: `^(?:[^\\x00-\\x20\\x7f"'%<>\\\\^\`{|}]|${pct}|${templateExpression})*$`, ignoreCase: true },
  "json-pointer": { source: `^${jsonPointer}$`, ignoreCase: false },
  "json-pointer-uri-fragment": { source: `^#(?:/(?:[a-z0-9_\\-.!$&'()*+,;:=@]|${pct}|~0|~1)*)*$`, ignoreCase: true },
  "relative-json-pointer": { source: `^(?:0|[1-9][0-9]*)(?:#|${jsonPointer})$`, ignoreCase: false },
  /** Not a format name: the host of a `url`, as the WHATWG parser leaves it (ASCII, punycode). */
  "url host": { source: "^(?:(?:[a-z0-9-]+\\.)*[a-z0-9-]+|\\[[0-9a-f:.]+\\])$", ignoreCase: true },
};

/** One matcher per grammar for the isolate: its states are bounded, and searches never overlap (they are synchronous). */
const grammars = new Map<string, PatternMatcher>();

function grammar(name: string): PatternMatcher | undefined {
  const known = grammars.get(name);
  if (known !== undefined) return known;
  const definition = grammarSources[name];
  if (definition === undefined) return undefined;
  const compiled = compileSafePattern(definition.source, { ignoreCase: definition.ignoreCase });
  if (!compiled.ok) throw new Error(`The ${name} format's grammar does not compile: ${compiled.message}`);
  const matcher = compiled.pattern.matcher();
  grammars.set(name, matcher);
  return matcher;
}

/** The formats the validator asserts (others are annotations), as the library names them. */
export const assertedFormats: ReadonlySet<string> = new Set(
  ["url", ...Object.keys(maxLengths), ...Object.keys(grammarSources)].filter((name) => Object.hasOwn(libraryFormats, name)),
);

/**
 * Whether `value` has format `name` (a name in `assertedFormats`). Work is
 * spent from `budget`: the string's length through the pattern engine, or a
 * unit a character for the library's short checks and the URL parser.
 */
export function checkFormat(name: string, value: string, budget: PatternBudget): boolean | "over-budget" {
  const matcher = grammar(name);
  if (matcher !== undefined) {
    const result = matcher.search(value, budget);
    return result === "over-budget" ? result : result === "match";
  }
  budget.remaining -= value.length + 1;
  if (budget.remaining < 0) return "over-budget";
  if (name === "url") return isWebUrl(value, budget);
  const maxLength = maxLengths[name];
  if (maxLength === undefined || value.length > maxLength) return false;
  return libraryFormats[name](value);
}

function isWebUrl(value: string, budget: PatternBudget): boolean | "over-budget" {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:" && url.protocol !== "ftp:") return false;
  const host = (grammar("url host") as PatternMatcher).search(url.hostname, budget);
  return host === "over-budget" ? host : host === "match";
}
