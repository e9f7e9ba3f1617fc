/**
 * The one rule for headers a config sets (a gateway tool's
 * `execution.headers`, an OpenAPI provider's and an MCP server's `headers`),
 * checked when the config is saved and again on the filled values as each
 * request is sent:
 *
 * - a name is an HTTP token (letters, digits and ``!#$%&'*+-.^_`|~``);
 * - a value is visible ASCII, spaces and tabs: no line break or NUL (which
 *   would end the header, or the request, early), no other control
 *   character, nothing past ASCII (the runtime would send it mangled);
 * - the headers the gateway owns are never a config's: the hop count
 *   (`x-switchboard-hop`) is how the gateway bounds agents and tools that
 *   call it back, so a configured one would turn the loop guard off.
 *
 * `idempotency-key` is not the gateway's in that sense: the gateway sends the
 * call's id there, and a tool that configures its own key (for an API whose
 * keys have a format of their own) keeps it. It only affects how that API
 * deduplicates its own requests.
 */
import { z } from "@hono/zod-openapi";
import { hopHeader } from "../../protocol/hop";

/** Headers only the gateway sets on its requests: refused in configs, and the gateway's value wins at send. */
export const gatewayOwnedHeaders: readonly string[] = [hopHeader];

const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Why `name` cannot be sent as a header name, or undefined. */
export function headerNameProblem(name: string): string | undefined {
  return tokenPattern.test(name) ? undefined : `"${name}" is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_\`|~ only)`;
}

/** Why a config may not set `name` because the gateway sets it, or undefined. */
function ownedHeaderProblem(name: string): string | undefined {
  if (!gatewayOwnedHeaders.includes(name.toLowerCase())) return undefined;
  return `"${name}" is set by the gateway itself (it counts agent hops so that tools calling the gateway back cannot loop); a config cannot set it`;
}

/** Why `value` cannot be sent as a header value, or undefined. */
export function headerValueProblem(value: string): string | undefined {
  if (/[\r\n]/.test(value)) return "A header value cannot contain a line break";
  if (value.includes("\0")) return "A header value cannot contain a NUL character";
  if (/[\u0001-\u0008\u000b-\u001f\u007f]/.test(value)) return "A header value cannot contain control characters";
  if (/[^\t\u0020-\u007e]/.test(value)) return "A header value must be ASCII (non-ASCII characters would be sent mangled)";
  return undefined;
}

/** `headers` in a config: a name → value record, each checked by the rule above (the path names the header). */
export const ConfiguredHeaders = z.record(z.string().max(256), z.string().max(8192)).superRefine((headers, context) => {
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerNameProblem(name) ?? ownedHeaderProblem(name) ?? headerValueProblem(value);
    if (problem !== undefined) context.addIssue({ code: "custom", path: [name], message: problem });
  }
});

/**
 * The headers a request is sent with: the configured ones, plus the
 * gateway's `extra` headers. A header the gateway owns replaces a configured
 * one of the same name (in any case); any other extra (`idempotency-key`)
 * yields to a configured one.
 */
export function withGatewayHeaders(configured: Record<string, string>, extra: Record<string, string> | undefined): Record<string, string> {
  const headers = { ...configured };
  for (const [name, value] of Object.entries(extra ?? {})) {
    const same = Object.keys(headers).filter((key) => key.toLowerCase() === name.toLowerCase());
    if (same.length > 0 && !gatewayOwnedHeaders.includes(name.toLowerCase())) continue;
    for (const key of same) delete headers[key];
    headers[name] = value;
  }
  return headers;
}
