/**
 * A REST tool written the orchestrator's way (docs/seeds.md): the
 * request at the top of the tool, not under `execution`, and no execution
 * type. It is a gateway tool here, rewritten before the config is checked and
 * stored (and returned) in the gateway's form:
 *
 * | written | stored | because |
 * |---|---|---|
 * | `url`, `method`, `headers`, `body` at the top (no `executionType`, no `execution`) | `executionType: "gateway"`, `execution: {url, method, headers, body}` | an HTTP request made at once, its answer the result |
 * | `parametersSchema` | `inputSchema` | the schema of the model's arguments |
 * | `${parameters.x}` in the URL, a header or the body | `{{x}}` | the gateway's placeholder: filled the same way, each value encoded in its own slot |
 * | `${NAME}` in a header | `${env.NAME}` | a Worker secret; `${env.NAME}` is left as it is, and a `${parameters.…}` is never a secret |
 *
 * The tool keeps its `name`: the orchestrator names a REST tool by its key in
 * its config; here a tool without one is refused at `tools.N.name` (400).
 * A field given both ways (`parametersSchema` beside `inputSchema`, `url`
 * beside `execution`) is left as written, so the check refuses it rather than
 * one silently winning.
 */

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const parameterReference = /\$\{parameters\.([A-Za-z0-9_.-]+)\}/g;
/** `${NAME}`: a bare environment name, as the orchestrator writes a secret (not `${env.…}`, not `${parameters.…}`). */
const bareSecretReference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The request fields the orchestrator writes at the top of a REST tool. */
const requestFields = ["url", "method", "headers", "body"] as const;

/** `${parameters.x}` → `{{x}}` in every string of a value. */
function withPlaceholders(value: unknown): unknown {
  if (typeof value === "string") return value.replace(parameterReference, "{{$1}}");
  if (Array.isArray(value)) return value.map(withPlaceholders);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, withPlaceholders(entry)]));
  return value;
}

/** Header values with `${parameters.x}` as `{{x}}` and `${NAME}` as `${env.NAME}`. */
function withHeaderSecrets(headers: unknown): unknown {
  if (!isRecord(headers)) return headers;
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      typeof value === "string" ? value.replace(parameterReference, "{{$1}}").replace(bareSecretReference, "${env.$1}") : value,
    ]),
  );
}

/** True for a tool in the orchestrator's REST form: a URL at the top, and neither an execution type nor an execution. */
export function isRestToolForm(raw: unknown): raw is Json {
  return isRecord(raw) && typeof raw.url === "string" && !("executionType" in raw) && !("execution" in raw);
}

/** A tool config with the orchestrator's REST form rewritten to a gateway tool; anything else is returned as it is. */
export function normalizeRestTool(raw: unknown): unknown {
  if (!isRestToolForm(raw)) return raw;
  if ("parametersSchema" in raw && "inputSchema" in raw) return raw;
  const { parametersSchema, ...rest } = raw;
  const execution: Json = {};
  const tool: Json = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === "headers") execution.headers = withHeaderSecrets(value);
    else if ((requestFields as readonly string[]).includes(key)) execution[key] = withPlaceholders(value);
    else tool[key] = value;
  }
  return { ...tool, ...(parametersSchema !== undefined && { inputSchema: parametersSchema }), executionType: "gateway", execution };
}
