/**
 * The one rule for Worker bindings a config may name (`model.apiKeyEnv`,
 * `${env.NAME}` in gateway tool and MCP server headers): the gateway's own
 * keys never leave it, and neither does a binding that is not a string secret
 * (D1, Durable Object namespaces, the AI binding…). Checked when a config is
 * saved and again whenever a value is read, so a config stored before this
 * rule cannot leak either.
 */

/** The gateway's own keys: they authenticate callers, sign tokens, webhooks and file links, and seal connected accounts' tokens. */
export const reservedSecretNames: ReadonlySet<string> = new Set(["GATEWAY_SECRET_KEY", "GATEWAY_PUBLIC_KEY", "JWT_SECRET", "WEBHOOK_SECRET", "FILE_LINK_SECRET", "ACCOUNTS_KEYS"]);

/** Why a name cannot be used: one of the gateway's keys, a binding that is not a string, or nothing set. */
export type SecretRefusal = "reserved" | "binding" | "unset";

const refusalText: Record<SecretRefusal, string> = {
  reserved: "is one of the gateway's own keys (they never leave it)",
  binding: "is a binding of this Worker, not a secret",
  unset: "is not set",
};

/** `the secret "NAME", which is not set` and the like, to end a sentence about who uses it. */
export function describeSecretRefusal(name: string, refusal: SecretRefusal): string {
  return `the secret "${name}", which ${refusalText[refusal]}`;
}

/**
 * Why a config may not name `name` when it is saved, or undefined. Without
 * `env` (zod, at parse time) only the reserved names are known. With it,
 * bindings that are not strings are refused, and unset names when
 * `mustBeSet` (header secrets: never sent literally; a model key may be set
 * after the agent is saved).
 */
export function secretNameProblem(name: string, env?: Record<string, unknown>, options: { mustBeSet: boolean } = { mustBeSet: true }): string | undefined {
  const refusal = secretRefusal(name, env);
  if (refusal === undefined || (refusal === "unset" && !options.mustBeSet)) return undefined;
  const message = `Names ${describeSecretRefusal(name, refusal)}`;
  return refusal === "unset" ? `${message} (wrangler secret put ${name}, or add it to .dev.vars)` : message;
}

export type SecretValue = { ok: true; value: string } | { ok: false; refusal: SecretRefusal };

/** A secret's value for sending: never a reserved key, a non-string binding, or an empty string. */
export function readSecret(env: Record<string, unknown>, name: string): SecretValue {
  const refusal = secretRefusal(name, env) ?? (env[name] === "" ? "unset" : undefined);
  return refusal === undefined ? { ok: true, value: env[name] as string } : { ok: false, refusal };
}

function secretRefusal(name: string, env: Record<string, unknown> | undefined): SecretRefusal | undefined {
  if (reservedSecretNames.has(name)) return "reserved";
  if (env === undefined) return undefined;
  const value = env[name];
  if (value === undefined || value === "") return "unset";
  return typeof value === "string" ? undefined : "binding";
}
