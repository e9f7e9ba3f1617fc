/**
 * Fills a JSON body written as text with placeholders where values go, e.g.
 * `'{"amount": {{a}}, "currency": "EUR"}'`. Each value is encoded for where
 * its placeholder stands, so no argument can close a string or add a key:
 * inside a JSON string it becomes string content (quotes, backslashes and
 * line breaks escaped); anywhere else it becomes one JSON value
 * (`JSON.stringify`: `1, "admin": true` arrives as a string, not as syntax).
 * The filled text must parse, within the depth limit, or the call fails.
 */
import { parseJsonSafely } from "../../json";
import { argumentText, lookupArgument, placeholderPattern } from "./template-arguments";

export type TextFillResult = { ok: true; value: string } | { ok: false; error: string };

export function fillJsonTextTemplate(template: string, args: unknown): TextFillResult {
  let filled = "";
  let inString = false;
  let escaped = false;
  let position = 0;
  for (const match of template.matchAll(placeholderPattern)) {
    const literal = template.slice(position, match.index);
    for (const character of literal) {
      if (escaped) escaped = false;
      else if (inString && character === "\\") escaped = true;
      else if (character === '"') inString = !inString;
    }
    filled += literal;
    position = match.index + match[0].length;
    if (escaped) return { ok: false, error: "A placeholder in a JSON body cannot follow a backslash" };
    const argument = lookupArgument(args, match[1]);
    if (!argument.found) return { ok: false, error: `Missing argument "${match[1]}" for the body` };
    filled += inString ? JSON.stringify(argumentText(argument.value)).slice(1, -1) : (JSON.stringify(argument.value) ?? "null");
  }
  filled += template.slice(position);
  const parsed = parseJsonSafely(filled);
  if (!parsed.ok) {
    return {
      ok: false,
      error: parsed.code === "too_deep" ? `The filled-in body is refused: ${parsed.message}` : "The body template is not valid JSON once its placeholders are filled",
    };
  }
  return { ok: true, value: filled };
}
