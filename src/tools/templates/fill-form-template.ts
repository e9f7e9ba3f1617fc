/**
 * Fills a form body (`application/x-www-form-urlencoded`) such as
 * `amount={{a}}&currency=EUR`: each value is form-encoded into its slot, so
 * `&`, `=`, `%` or `+` from an argument stay data and cannot add a field.
 */
import { argumentText, lookupArgument, placeholderPattern } from "./template-arguments";
import type { TextFillResult } from "./fill-json-text-template";

export function fillFormTemplate(template: string, args: unknown): TextFillResult {
  let error: string | undefined;
  const value = template.replace(placeholderPattern, (_placeholder, name: string) => {
    const argument = lookupArgument(args, name);
    if (!argument.found) {
      error ??= `Missing argument "${name}" for the body`;
      return "";
    }
    try {
      return formEncode(argumentText(argument.value));
    } catch {
      error ??= `Argument "${name}" cannot be put in a form body (it is not valid Unicode text)`;
      return "";
    }
  });
  return error === undefined ? { ok: true, value } : { ok: false, error };
}

/** The form serializer's encoding of one value (space as `+`, everything but `*-._` and alphanumerics percent-encoded). */
function formEncode(text: string): string {
  encodeURIComponent(text); // throws on a lone surrogate, which the form encoder would silently replace
  return new URLSearchParams([["", text]]).toString().slice(1);
}
