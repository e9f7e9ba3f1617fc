/**
 * Fills a gateway tool's header values: `${env.NAME}` from the Worker's string
 * secrets and `{{param}}` from the arguments, in one pass so that an argument
 * can never smuggle in a `${env.…}` reference. An unknown secret is an error,
 * never sent literally; a value with a line break is refused.
 */
import { describeSecretRefusal, readSecret } from "../../security/secret-policy";
import { argumentText, lookupArgument, placeholderPattern, secretReferencePattern } from "./template-arguments";

export type HeadersResult = { ok: true; value: Record<string, string> } | { ok: false; error: string };

const slotPattern = new RegExp(`${secretReferencePattern.source}|${placeholderPattern.source}`, "g");
const forbiddenCharacters = /[\r\n\0]/;

export function fillHeaders(
  headers: Record<string, string> | undefined,
  args: unknown,
  env: Record<string, unknown>,
): HeadersResult {
  const filled: Record<string, string> = {};
  for (const [name, template] of Object.entries(headers ?? {})) {
    let error: string | undefined;
    const value = template.replace(slotPattern, (_slot, secretName: string | undefined, argumentName: string | undefined) => {
      if (secretName !== undefined) {
        const secret = readSecret(env, secretName);
        if (!secret.ok) {
          error ??= `Header "${name}" uses ${describeSecretRefusal(secretName, secret.refusal)}`;
          return "";
        }
        if (forbiddenCharacters.test(secret.value)) error ??= `The secret "${secretName}" contains a line break`;
        return secret.value;
      }
      const argument = lookupArgument(args, argumentName ?? "");
      if (!argument.found) {
        error ??= `Missing argument "${argumentName}" for header "${name}"`;
        return "";
      }
      const text = argumentText(argument.value);
      if (forbiddenCharacters.test(text)) error ??= `Argument "${argumentName}" cannot be used in header "${name}": it contains a line break`;
      return text;
    });
    if (error !== undefined) return { ok: false, error };
    try {
      new Headers().set(name, value);
    } catch {
      return { ok: false, error: `Header "${name}" is not a valid HTTP header` };
    }
    filled[name] = value;
  }
  return { ok: true, value: filled };
}
