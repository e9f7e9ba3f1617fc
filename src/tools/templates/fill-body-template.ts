/**
 * Fills `{{param}}` placeholders inside a configured JSON body. A string that
 * is exactly one placeholder becomes the argument's typed value (a number stays
 * a number); placeholders inside longer strings become text. Values are placed
 * into the structure, never spliced into JSON text, so they cannot add keys.
 */
import { argumentText, lookupArgument, placeholderPattern, wholePlaceholderPattern } from "./template-arguments";

export type BodyResult = { ok: true; value: unknown } | { ok: false; error: string };

export function fillBodyTemplate(template: unknown, args: unknown): BodyResult {
  if (typeof template === "string") return fillString(template, args);
  if (Array.isArray(template)) {
    const items: unknown[] = [];
    for (const item of template) {
      const filled = fillBodyTemplate(item, args);
      if (!filled.ok) return filled;
      items.push(filled.value);
    }
    return { ok: true, value: items };
  }
  if (typeof template === "object" && template !== null) {
    const entries: [string, unknown][] = [];
    for (const [key, item] of Object.entries(template)) {
      const filled = fillBodyTemplate(item, args);
      if (!filled.ok) return filled;
      entries.push([key, filled.value]);
    }
    return { ok: true, value: Object.fromEntries(entries) };
  }
  return { ok: true, value: template };
}

/** Fills a plain-text template (neither JSON nor a form: see `textBodyKind`); each value is inserted as text. */
export function fillTextTemplate(template: string, args: unknown): { ok: true; value: string } | { ok: false; error: string } {
  let error: string | undefined;
  const value = template.replace(placeholderPattern, (_placeholder, name: string) => {
    const argument = lookupArgument(args, name);
    if (argument.found) return argumentText(argument.value);
    error ??= `Missing argument "${name}" for the body`;
    return "";
  });
  return error === undefined ? { ok: true, value } : { ok: false, error };
}

function fillString(template: string, args: unknown): BodyResult {
  const whole = template.match(wholePlaceholderPattern);
  if (!whole) return fillTextTemplate(template, args);
  const argument = lookupArgument(args, whole[1]);
  return argument.found ? { ok: true, value: argument.value } : { ok: false, error: `Missing argument "${whole[1]}" for the body` };
}
