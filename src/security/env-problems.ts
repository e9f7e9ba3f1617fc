/**
 * What is wrong with the secrets, vars and bindings a deployment gave the
 * Worker, found once per isolate instead of at the first request that needs
 * them (a webhook secret that cannot sign would otherwise show only as a
 * failed push on an agent's stream). `GET /health` reports the problems and
 * `npm run dev` prints them. A problem names the setting and says what is
 * wrong in fixed words: never a value, a part of one, or its length.
 */
import { accountsKeysProblem } from "../accounts/token-cipher";
import { readOtlpConfig } from "../telemetry/otlp-config";

export type EnvProblem = { name: string; problem: string };

/** HS256 wants a key at least as long as its hash: 256 bits. */
export const minimumSigningSecretBytes = 32;

const encoder = new TextEncoder();

function requiredString(value: unknown): string | undefined {
  if (value === undefined || value === null) return "is not set";
  if (typeof value !== "string") return "is not a string";
  if (value === "") return "is empty";
  return undefined;
}

/** A key clients send in a header: HTTP trims header values, so a key with spaces or line breaks around it never matches. */
function headerKeyProblem(value: unknown): string | undefined {
  const missing = requiredString(value);
  if (missing !== undefined) return missing;
  return typeof value === "string" && value.trim() !== value ? "starts or ends with spaces or line breaks, which a request header cannot carry" : undefined;
}

function signingSecretProblem(value: unknown): string | undefined {
  const missing = requiredString(value);
  if (missing !== undefined) return missing;
  return typeof value === "string" && encoder.encode(value).length < minimumSigningSecretBytes
    ? `is shorter than ${minimumSigningSecretBytes} bytes; use a long random value (e.g. 48 random bytes, base64)`
    : undefined;
}

const hasMethods = (value: unknown, names: string[]): boolean =>
  typeof value === "object" && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === "function");

/** Every problem with `env`, in a fixed order (the same env gives the same list). */
export function envProblems(env: Record<string, unknown>): EnvProblem[] {
  const problems: EnvProblem[] = [];
  const add = (name: string, problem: string | undefined) => {
    if (problem !== undefined) problems.push({ name, problem });
  };

  add("GATEWAY_SECRET_KEY", headerKeyProblem(env.GATEWAY_SECRET_KEY));
  add("GATEWAY_PUBLIC_KEY", headerKeyProblem(env.GATEWAY_PUBLIC_KEY));
  const publicKey = typeof env.GATEWAY_PUBLIC_KEY === "string" && env.GATEWAY_PUBLIC_KEY !== "" ? env.GATEWAY_PUBLIC_KEY : undefined;
  if (publicKey !== undefined && publicKey === env.GATEWAY_SECRET_KEY) {
    add("GATEWAY_PUBLIC_KEY", "is the same as GATEWAY_SECRET_KEY; browsers get the public key, so it must not open everything");
  }
  add("JWT_SECRET", signingSecretProblem(env.JWT_SECRET));
  if (publicKey !== undefined && publicKey === env.JWT_SECRET) {
    add("JWT_SECRET", "is the same as GATEWAY_PUBLIC_KEY; browsers get the public key, so anyone could sign tokens");
  }
  // Any non-empty string is a webhook key (the one rule: `keyBytesOf` in webhooks/standard-webhooks.ts).
  add("WEBHOOK_SECRET", requiredString(env.WEBHOOK_SECRET));
  // Optional: file links are signed with a key derived from GATEWAY_SECRET_KEY when it is unset or empty.
  if (env.FILE_LINK_SECRET !== undefined && env.FILE_LINK_SECRET !== "") add("FILE_LINK_SECRET", signingSecretProblem(env.FILE_LINK_SECRET));

  if (!hasMethods(env.DB, ["prepare", "batch"])) add("DB", "is not bound to a D1 database ([[d1_databases]] in wrangler.toml)");
  if (!hasMethods(env.FILES, ["get", "put", "delete", "list"])) add("FILES", "is not bound to an R2 bucket ([[r2_buckets]] in wrangler.toml)");
  if (!hasMethods(env.AGENT, ["idFromName", "get"])) add("AGENT", "is not bound to the AgentDO Durable Object class ([[durable_objects.bindings]] in wrangler.toml)");
  if (!hasMethods(env.SPACE, ["idFromName", "get"])) add("SPACE", "is not bound to the SpaceDO Durable Object class ([[durable_objects.bindings]] in wrangler.toml)");

  const version = requiredString(env.SWITCHBOARD_VERSION);
  add("SWITCHBOARD_VERSION", version && `${version} ([vars] in wrangler.toml)`);
  const allowPrivate = env.ALLOW_PRIVATE_URLS;
  if (allowPrivate !== undefined && !(typeof allowPrivate === "string" && ["", "true", "false"].includes(allowPrivate.trim().toLowerCase()))) {
    add("ALLOW_PRIVATE_URLS", 'must be "true" or "false"; any other value is read as "true" (private hosts allowed)');
  }
  // Optional: without it no account can be connected (a tool that acts as a person says so); set, it must be usable.
  if (env.ACCOUNTS_KEYS !== undefined && env.ACCOUNTS_KEYS !== "") add("ACCOUNTS_KEYS", accountsKeysProblem(env.ACCOUNTS_KEYS));
  const publicUrl = env.PUBLIC_URL;
  if (publicUrl !== undefined && publicUrl !== "" && !isHttpUrl(publicUrl)) add("PUBLIC_URL", "is not an absolute http(s) URL");
  // Optional: OpenTelemetry export. A setting that cannot be used turns tracing off and is named here.
  for (const { name, problem } of readOtlpConfig(env).problems) add(name, problem);
  return problems;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

const checked = new WeakMap<object, EnvProblem[]>();
let logged = false;

/**
 * `envProblems` of this env, worked out once and kept for the isolate's life
 * (a request pays a lookup). The first time problems are found they go to
 * the Worker's log too, so `wrangler tail` shows them without a `/health`.
 */
export function cachedEnvProblems(env: Record<string, unknown>): EnvProblem[] {
  let problems = checked.get(env);
  if (problems === undefined) {
    problems = envProblems(env);
    checked.set(env, problems);
    if (problems.length > 0 && !logged) {
      logged = true;
      for (const { name, problem } of problems) console.error(`configuration problem: ${name} ${problem}`);
    }
  }
  return problems;
}
