/**
 * Fills a gateway tool's header values: `${env.NAME}` from the Worker's string
 * secrets and `{{param}}` from the arguments, in one pass so that an argument
 * can never smuggle in a `${env.…}` reference. An unknown secret is an error,
 * never sent literally; a value with a line break is refused, and so is
 * any filled value the header rule of `config/configured-headers.ts` refuses.
 */
import { describeSecretRefusal, readSecret } from "../../security/secret-policy";
import { headerNameProblem, headerValueProblem } from "../config/configured-headers";
import { argumentText, lookupArgument, placeholderPattern, secretReferencePattern } from "../templates/template-arguments";

/** `permission`: a secret the policy refuses or that is not set; `validation`: an argument or a value that cannot go in a header. */
export type HeadersResult = { ok: true; value: Record<string, string> } | { ok: false; error: string; kind: "permission" | "validation" };

const slotPattern = new RegExp(`${secretReferencePattern.source}|${placeholderPattern.source}`, "g");
const forbiddenCharacters = /[\r\n\0]/;

export function fillHeaders(headers: Record<string, string> | undefined, args: unknown, env: Record<string, unknown>): HeadersResult {
  const filled: Record<string, string> = {};
  for (const [name, template] of Object.entries(headers ?? {})) {
    let error: string | undefined;
    let kind: "permission" | "validation" = "validation";
    const value = template.replace(slotPattern, (_slot, secretName: string | undefined, argumentName: string | undefined) => {
      if (secretName !== undefined) {
        const secret = readSecret(env, secretName);
        if (!secret.ok) {
          if (error === undefined) kind = "permission";
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
    if (error !== undefined) return { ok: false, error, kind };
    if (headerNameProblem(name) !== undefined) return { ok: false, error: `Header "${name}" is not a valid HTTP header`, kind: "validation" };
    // The filled value, by the rule its literal text met at save (a secret may bring what the config could not).
    const problem = headerValueProblem(value);
    if (problem !== undefined) return { ok: false, error: `Header "${name}" cannot be sent: ${problem}`, kind: "validation" };
    filled[name] = value;
  }
  return { ok: true, value: filled };
}
