/**
 * One HTTP request a built-in makes on the model's behalf (`http_request`,
 * `fetch_page`): the URL policy checked right before each request (and each
 * redirect it follows), a timeout over the whole exchange, the body read as a
 * stream up to a cap. The model's own headers go only to the origin it named
 * (a redirect elsewhere goes without them). Never throws: a failure is a
 * message for the model.
 */
import { originOf, pinUrl } from "../../security/pinned-request";
import { readLimitedBody } from "../../security/read-limited-body";
import { outboundUrlProblem, urlPolicyOf } from "../../security/url-policy";

export type OutboundRequest = {
  url: string;
  method: string;
  /** The gateway's own headers, sent on every request and redirect. */
  headers?: Record<string, string>;
  /**
   * The caller's headers (the model's): sent to the origin it named, and to a
   * redirect on that same origin, never to another one (`pinUrl`).
   */
  originHeaders?: Record<string, string>;
  /** Headers only the gateway sets (the call's `traceparent`): sent on every request and redirect, replacing a caller's of the same name. */
  ownedHeaders?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Bytes of the answer kept; past it the body is cut (`truncated`). */
  maxBytes: number;
  /** Redirects followed (GET and HEAD only), each checked by the URL policy. */
  maxRedirects: number;
  env: Record<string, unknown>;
  signal?: AbortSignal;
};

export type OutboundResponse = {
  ok: true;
  status: number;
  statusText: string;
  url: string;
  headers: Record<string, string>;
  contentType: string | undefined;
  bytes: Uint8Array;
  truncated: boolean;
  redirects: number;
};

export type OutboundResult = OutboundResponse | { ok: false; error: string };

/** Headers a caller may not set: the runtime owns them, or the gateway does. */
const reservedHeaders = new Set(["host", "content-length", "transfer-encoding", "connection", "upgrade", "x-switchboard-hop", "cf-connecting-ip", "cf-worker"]);

export function refusedHeader(headers: Record<string, string> | undefined): string | undefined {
  return Object.keys(headers ?? {}).find((name) => reservedHeaders.has(name.toLowerCase()));
}

export async function sendOutboundRequest(request: OutboundRequest): Promise<OutboundResult> {
  const policy = urlPolicyOf(request.env);
  const controller = new AbortController();
  let rejectInterrupted: (reason: Error) => void = () => undefined;
  const interrupted = new Promise<never>((_resolve, reject) => (rejectInterrupted = reject));
  interrupted.catch(() => undefined);
  let reason: string | undefined;
  const interrupt = (why: string) => {
    reason ??= why;
    controller.abort(new Error(why));
    rejectInterrupted(new Error(why));
  };
  const timer = setTimeout(() => interrupt(`The request timed out after ${request.timeoutMs}ms`), request.timeoutMs);
  const onAbort = () => interrupt("The request was cancelled");
  request.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    let url = request.url;
    const follow = request.method === "GET" || request.method === "HEAD";
    const named = originOf(url);
    for (let redirects = 0; ; redirects += 1) {
      const problem = outboundUrlProblem(url, policy);
      if (problem !== undefined) return { ok: false, error: `Cannot call ${url}: ${problem}` };
      const sameOrigin = named !== undefined && pinUrl(url, { origin: named, policy }).ok;
      const headers = withOwnedHeaders({ ...request.headers, ...(sameOrigin && request.originHeaders) }, request.ownedHeaders);
      const response = await Promise.race([fetch(url, { method: request.method, headers, body: request.body, redirect: "manual", signal: controller.signal }), interrupted]);
      const location = response.headers.get("location");
      if (follow && response.status >= 300 && response.status < 400 && location) {
        void response.body?.cancel().catch(() => undefined);
        if (redirects >= request.maxRedirects) return { ok: false, error: `Too many redirects (more than ${request.maxRedirects})` };
        url = new URL(location, url).toString();
        continue;
      }
      const body = await readLimitedBody(response.body, { maxBytes: request.maxBytes + 1, interrupted, overflow: "truncate" });
      const bytes = body.ok ? body.bytes : new Uint8Array();
      const truncated = bytes.byteLength > request.maxBytes;
      return {
        ok: true,
        status: response.status,
        statusText: response.statusText,
        url,
        headers: Object.fromEntries(response.headers),
        contentType: response.headers.get("content-type") ?? undefined,
        bytes: truncated ? bytes.subarray(0, request.maxBytes) : bytes,
        truncated,
        redirects,
      };
    }
  } catch (error) {
    if (reason !== undefined) return { ok: false, error: reason };
    return { ok: false, error: `The request to ${safeHost(request.url)} failed: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", onAbort);
  }
}

/** `headers` with each of `owned` in place of any header of the same name, in any case. */
function withOwnedHeaders(headers: Record<string, string>, owned: Record<string, string> | undefined): Record<string, string> {
  if (owned === undefined) return headers;
  const names = new Set(Object.keys(owned).map((name) => name.toLowerCase()));
  return { ...Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(name.toLowerCase()))), ...owned };
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The media type of a content-type header, lowercased. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(";")[0].trim().toLowerCase() || undefined;
}

export function isJsonType(mediaType: string | undefined): boolean {
  return mediaType === "application/json" || (mediaType?.endsWith("+json") ?? false);
}

export function isTextType(mediaType: string | undefined): boolean {
  if (mediaType === undefined) return true;
  return mediaType.startsWith("text/") || isJsonType(mediaType) || /(?:xml|javascript|ecmascript|x-www-form-urlencoded|yaml|csv)/.test(mediaType);
}
