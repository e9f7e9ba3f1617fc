/**
 * The one fetch every OAuth request of the gateway goes through (metadata,
 * registration, token and refresh requests), handed to the MCP SDK's auth
 * functions as their `fetchFn`:
 *
 * - the URL passes the gateway's outbound URL policy (`security/url-policy.ts`:
 *   no private hosts where `ALLOW_PRIVATE_URLS` is `"false"`), and must be
 *   https, except for a loopback host where private hosts are allowed (a local
 *   authorization server under `npm run dev`);
 * - one time bound over the whole exchange, the body included, and a size
 *   bound on the body, read as a stream and cancelled past it;
 * - no redirect is followed here: a redirect comes back as it is. The SDK's
 *   functions follow one only within the request's origin, and each hop comes
 *   through this fetch again, so every hop is checked;
 * - only the headers the caller gave are sent: nothing configured (no
 *   `${env.NAME}` header, no cookie) is ever added.
 *
 * It throws, as a fetch does; the functions that use it turn what it throws
 * into data.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import { readLimitedBody } from "../security/read-limited-body";
import { isPrivateHost, outboundUrlProblem, type UrlPolicy } from "../security/url-policy";

/** What every OAuth step needs to make requests: the policy it decides URLs by, and the bounded fetch that applies it. */
export type OAuthHttp = { policy: UrlPolicy; fetch: FetchLike };

export type OAuthFetchOptions = {
  policy: UrlPolicy;
  /** Over the whole exchange: connection, answer and body. */
  timeoutMs?: number;
  /** Bytes of body accepted; one more and the answer is refused. */
  maxBytes?: number;
  /** The fetch underneath (the runtime's by default). */
  send?: FetchLike;
  /** Aborts every request from outside. */
  signal?: AbortSignal;
};

/** Metadata documents and token answers are a few kilobytes; these bounds leave room and no more. */
export const oauthFetchDefaults = { timeoutMs: 10_000, maxBytes: 256 * 1024 };

/** The bounded fetch and its policy, together, for the OAuth steps. */
export function oauthHttp(options: OAuthFetchOptions): OAuthHttp {
  return { policy: options.policy, fetch: oauthFetch(options) };
}

/**
 * Why the gateway may not use `url` for OAuth (to fetch it, or to send a
 * person to it), or undefined: the outbound URL policy, then https, with
 * plain http only for a loopback host and only where private hosts are
 * allowed.
 */
export function oauthUrlProblem(url: string, policy: UrlPolicy): string | undefined {
  const problem = outboundUrlProblem(url, policy);
  if (problem !== undefined) return problem;
  const parsed = new URL(url);
  if (parsed.hash !== "") return "Must not have a fragment";
  if (parsed.protocol === "https:") return undefined;
  if (policy.allowPrivateHosts && isLoopbackHost(parsed.hostname)) return undefined;
  return "Must be an https URL (plain http only for localhost, where private hosts are allowed)";
}

/**
 * A zod string for a URL the gateway uses for OAuth: checked as
 * `oauthUrlProblem` says where private hosts are allowed (the deployment's
 * policy is not known at parse time); checked again with it at use.
 */
export const OAuthUrl = z
  .string()
  .max(4096)
  .superRefine((value, context) => {
    const problem = oauthUrlProblem(value, { allowPrivateHosts: true });
    if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
  });

/** `localhost`, `*.localhost`, 127.0.0.0/8 and `[::1]`: hosts that never leave the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.+$/, "");
  if (host === "localhost" || host.endsWith(".localhost") || host === "[::1]") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) && isPrivateHost(host);
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const nullBodyStatuses = new Set([204, 205, 304]);
/** Headers that describe the body as it came over the wire, not the bytes handed on. */
const wireHeaders = ["content-encoding", "content-length", "transfer-encoding"];

/** A fetch bounded as this module says. */
export function oauthFetch(options: OAuthFetchOptions): FetchLike {
  const timeoutMs = options.timeoutMs ?? oauthFetchDefaults.timeoutMs;
  const maxBytes = options.maxBytes ?? oauthFetchDefaults.maxBytes;
  const send: FetchLike = options.send ?? ((url, init) => fetch(url, init));
  return async (input, init) => {
    const url = String(input);
    const host = hostOf(url);
    const problem = oauthUrlProblem(url, options.policy);
    if (problem !== undefined) throw new Error(`The gateway does not call ${host} for OAuth: ${problem}`);

    const controller = new AbortController();
    let reason: string | undefined;
    let rejectInterrupted: (error: Error) => void = () => undefined;
    const interrupted = new Promise<never>((_resolve, reject) => (rejectInterrupted = reject));
    interrupted.catch(() => undefined);
    const interrupt = (why: string) => {
      reason ??= why;
      controller.abort(new Error(why));
      rejectInterrupted(new Error(why));
    };
    const timer = setTimeout(() => interrupt(`The request to ${host} timed out after ${timeoutMs}ms`), timeoutMs);
    const onAbort = () => interrupt(`The request to ${host} was cancelled`);
    const signals = [options.signal, init?.signal].filter((signal): signal is AbortSignal => signal !== undefined && signal !== null);
    for (const signal of signals) {
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    }
    try {
      // Only what the caller gave: method, headers, body. Nothing else of `init` (credentials, mode) and nothing configured.
      const response = await Promise.race([
        send(url, { method: init?.method ?? "GET", headers: new Headers(init?.headers), body: init?.body, redirect: "manual", signal: controller.signal }),
        interrupted,
      ]);
      const headers = new Headers(response.headers);
      for (const name of wireHeaders) headers.delete(name);
      if (redirectStatuses.has(response.status)) {
        void response.body?.cancel().catch(() => undefined);
        return new Response(null, { status: response.status, statusText: response.statusText, headers });
      }
      const body = await readLimitedBody(response.body, { maxBytes, interrupted });
      if (!body.ok) throw new RefusedAnswer(`The answer from ${host} is larger than ${maxBytes} bytes`);
      return new Response(nullBodyStatuses.has(response.status) ? null : body.bytes, { status: response.status, statusText: response.statusText, headers });
    } catch (error) {
      if (reason !== undefined) throw new Error(reason);
      if (error instanceof RefusedAnswer) throw error;
      // A plain Error, never a TypeError: the SDK takes a TypeError for a browser's CORS refusal and retries without headers.
      throw new Error(`The request to ${host} failed: ${messageOf(error)}`);
    } finally {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener("abort", onAbort);
    }
  };
}

/** An answer this fetch will not hand on (too large). */
class RefusedAnswer extends Error {}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url.slice(0, 100);
  } catch {
    return url.slice(0, 100);
  }
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // Node's fetch says only "fetch failed" and keeps why in `cause`.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
