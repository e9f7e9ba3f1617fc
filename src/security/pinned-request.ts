/**
 * The one rule for every request that carries configured headers (a gateway
 * tool's or a provider's `${env.NAME}` secrets, an MCP server's headers, a
 * model's API key, a webhook's signature): it goes only to the origin
 * (scheme, host and port) its config names, and nowhere else. Each such
 * request's URL is checked here as it will be sent, parsed the way `fetch`
 * parses it: no user name or password, exactly the configured origin, and the
 * URL policy. Redirects are never followed with the headers (`pinnedFetch`).
 *
 * A path that comes from somewhere else (an OpenAPI document's operation path)
 * is joined onto the configured base URL only if it is a plain path
 * (`joinPathToBase`): strings such as `:4444/x`, `@host/x`, `.evil.net/x` or
 * `//host/x` would otherwise move the request, secrets and all, to another
 * port or host.
 */
import { outboundUrlProblem, type UrlPolicy } from "./url-policy";

/** Where a request with configured headers may go. */
export type Pin = { origin: string; policy: UrlPolicy };

export type PinnedUrl = { ok: true; url: URL } | { ok: false; error: string };

/** The origin a configured URL names (`https://api.example.com:8443`), or undefined when it is not an absolute http(s) URL. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The URL as `fetch` will send it, if it stays on the pinned origin; else why not. */
export function pinUrl(url: string | URL, pin: Pin): PinnedUrl {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return { ok: false, error: "The request URL is not a valid absolute URL" };
  }
  if (parsed.username !== "" || parsed.password !== "") return { ok: false, error: "The request URL may not carry a user name or password" };
  if (parsed.origin !== pin.origin) {
    return {
      ok: false,
      error: `The request would go to ${parsed.origin === "null" ? "a URL without an origin" : parsed.origin}, not to ${pin.origin}, where its configured headers belong`,
    };
  }
  const problem = outboundUrlProblem(parsed.href, pin.policy);
  return problem === undefined ? { ok: true, url: parsed } : { ok: false, error: problem };
}

export type JoinedUrl = { ok: true; value: string } | { ok: false; error: string };

/** What a path joined onto a base URL may not contain: control characters, spaces, backslashes (a slash to the URL parser). */
const unsafePathCharacter = /[\u0000-\u0020\u007f\\]/;
/** A `.` or `..` segment, spelled plainly or percent-encoded. */
const dotSegment = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * `base` + `path`, where `path` must be a plain absolute path (`/pets/{petId}`):
 * one leading `/`, no backslash, no dot segments, no control characters, and
 * the result on the base's origin and under the base's path.
 */
export function joinPathToBase(base: string, path: string): JoinedUrl {
  if (!path.startsWith("/") || path.startsWith("//")) return { ok: false, error: `The path "${path.slice(0, 100)}" must begin with a single "/"` };
  if (unsafePathCharacter.test(path)) return { ok: false, error: `The path "${path.slice(0, 100)}" has a backslash, a space or a control character` };
  if (dotSegment.test(path.split(/[?#]/)[0])) return { ok: false, error: `The path "${path.slice(0, 100)}" has a "." or ".." segment` };
  const origin = originOf(base);
  if (origin === undefined) return { ok: false, error: `The base URL "${base.slice(0, 200)}" is not an absolute http(s) URL` };
  const trimmed = base.replace(/\/+$/, "");
  const joined = `${trimmed}${path}`;
  let parsed: URL;
  try {
    parsed = new URL(joined.replace(/\{[^}]*\}/g, "x"));
  } catch {
    return { ok: false, error: `The path "${path.slice(0, 100)}" does not make a valid URL` };
  }
  const basePath = new URL(trimmed).pathname.replace(/\/+$/, "");
  if (parsed.origin !== origin || !parsed.pathname.startsWith(`${basePath}/`)) {
    return { ok: false, error: `The path "${path.slice(0, 100)}" would leave ${trimmed}` };
  }
  return { ok: true, value: joined };
}

/**
 * A `fetch` for requests that carry configured headers: each request (an MCP
 * transport makes several, and an SSE server names its own endpoint) must stay
 * on the pinned origin, and a redirect is handed back, never followed.
 */
export function pinnedFetch(pin: Pin, send: typeof fetch = (input, init) => fetch(input, init)): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return (input, init) => {
    const url = input instanceof Request ? input.url : input;
    const pinned = pinUrl(url, pin);
    if (!pinned.ok) return Promise.reject(new Error(pinned.error));
    return send(input instanceof Request ? input : pinned.url, { ...init, redirect: "manual" });
  };
}
