/**
 * Where spans go, read from the three standard OpenTelemetry variables:
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (the OTLP/HTTP base; traces go to
 * `<endpoint>/v1/traces`), `OTEL_EXPORTER_OTLP_HEADERS` (a secret:
 * `key=value,key2=value2`, values URL-decoded) and
 * `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or
 * `http/json`). Without an endpoint tracing is off. A setting that cannot be
 * used is a problem named in fixed words (never its value) and turns tracing
 * off rather than send half of what was meant.
 */

export type OtlpProtocol = "http/protobuf" | "http/json";

export type OtlpConfig = { tracesUrl: string; headers: Record<string, string>; protocol: OtlpProtocol };

export type OtlpSettingProblem = { name: "OTEL_EXPORTER_OTLP_ENDPOINT" | "OTEL_EXPORTER_OTLP_HEADERS" | "OTEL_EXPORTER_OTLP_PROTOCOL"; problem: string };

const protocols: readonly OtlpProtocol[] = ["http/protobuf", "http/json"];
const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The exporter's settings (undefined: tracing is off), and what is wrong with them. */
export function readOtlpConfig(env: Record<string, unknown>): { config: OtlpConfig | undefined; problems: OtlpSettingProblem[] } {
  const problems: OtlpSettingProblem[] = [];
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracesUrl = endpoint === undefined || endpoint === "" ? undefined : tracesUrlOf(endpoint);
  if (tracesUrl === null) problems.push({ name: "OTEL_EXPORTER_OTLP_ENDPOINT", problem: "is not an absolute http(s) URL (the OTLP/HTTP base, e.g. http://localhost:4318)" });

  const protocolSetting = env.OTEL_EXPORTER_OTLP_PROTOCOL;
  let protocol: OtlpProtocol = "http/protobuf";
  if (protocolSetting !== undefined && protocolSetting !== "") {
    const named = protocols.find((known) => typeof protocolSetting === "string" && known === protocolSetting.trim().toLowerCase());
    if (named) protocol = named;
    else problems.push({ name: "OTEL_EXPORTER_OTLP_PROTOCOL", problem: 'must be "http/protobuf" or "http/json" (gRPC cannot be sent from a Worker)' });
  }

  const headerSetting = env.OTEL_EXPORTER_OTLP_HEADERS;
  let headers: Record<string, string> = {};
  if (headerSetting !== undefined && headerSetting !== "") {
    const parsed = typeof headerSetting === "string" ? parseOtlpHeaders(headerSetting) : { ok: false as const, problem: "is not a string" };
    if (parsed.ok) headers = parsed.headers;
    else problems.push({ name: "OTEL_EXPORTER_OTLP_HEADERS", problem: parsed.problem });
  }

  if (typeof tracesUrl !== "string" || problems.length > 0) return { config: undefined, problems };
  return { config: { tracesUrl, headers, protocol }, problems };
}

/** `<endpoint>/v1/traces`, or null when the endpoint is not an absolute http(s) URL. */
function tracesUrlOf(endpoint: unknown): string | null {
  if (typeof endpoint !== "string") return null;
  let url: URL;
  try {
    url = new URL(endpoint.trim());
  } catch {
    return null;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "" || url.username !== "" || url.password !== "") return null;
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/traces`;
  return url.toString();
}

/**
 * `OTEL_EXPORTER_OTLP_HEADERS`: comma-separated `key=value` pairs, spaces
 * around each trimmed, each value percent-decoded. A problem says which pair
 * (by its place) and what is wrong, never what it holds.
 */
export function parseOtlpHeaders(text: string): { ok: true; headers: Record<string, string> } | { ok: false; problem: string } {
  const headers: Record<string, string> = {};
  const pairs = text.split(",");
  for (const [index, pair] of pairs.entries()) {
    const place = `pair ${index + 1} of ${pairs.length}`;
    if (pair.trim() === "") continue;
    const equals = pair.indexOf("=");
    if (equals < 0) return { ok: false, problem: `${place} has no "=" (the form is key=value,key2=value2)` };
    const name = pair.slice(0, equals).trim();
    if (!tokenPattern.test(name)) return { ok: false, problem: `${place} has a name that is not an HTTP header name` };
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      return { ok: false, problem: `${place} has a value that is not validly percent-encoded` };
    }
    if (/[^\t\u0020-\u007e]/.test(value)) return { ok: false, problem: `${place} has a value a request header cannot carry (a control or non-ASCII character)` };
    headers[name.toLowerCase()] = value;
  }
  return { ok: true, headers };
}
