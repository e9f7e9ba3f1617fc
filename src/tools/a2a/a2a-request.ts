/**
 * The one way the gateway talks to a remote A2A agent: a bounded request
 * (time and size), sent through the pinned fetch when the provider
 * configures headers (its secrets go only to the origin its `url` names,
 * and a redirect is never followed), else checked by the URL policy. JSON
 * comes back through `parseJsonSafely`, never cast.
 */
import { parseJsonSafely } from "../../json";
import { originOf, pinnedFetch } from "../../security/pinned-request";
import { readLimitedBody } from "../../security/read-limited-body";
import { outboundUrlProblem, urlPolicyOf } from "../../security/url-policy";
import { withGatewayHeaders } from "../config/configured-headers";
import { fillHeaders } from "../gateway/fill-headers";
import type { A2aProviderConfig } from "../config/provider-config";

export type A2aAnswer = { ok: true; value: unknown } | { ok: false; error: string; kind: "timeout" | "upstream" | "permission" | "validation" };

export type A2aRequest = {
  url: string;
  method: "GET" | "POST";
  body?: unknown;
  maxBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
  extraHeaders?: Record<string, string>;
};

/** What the request is about, for messages ("the agent card", "SendMessage"). */
export async function requestA2a(provider: A2aProviderConfig, env: Record<string, unknown>, what: string, request: A2aRequest): Promise<A2aAnswer> {
  const headers = fillHeaders(provider.headers, {}, env);
  if (!headers.ok) return { ok: false, error: headers.error, kind: headers.kind };
  const policy = urlPolicyOf(env);
  const configured = Object.keys(provider.headers ?? {}).length > 0;
  const origin = originOf(provider.url);
  if (origin === undefined) return { ok: false, error: `The provider's url "${provider.url}" is not an absolute http(s) URL`, kind: "validation" };
  // Configured headers (secrets) go only to the origin the config names; without them the URL policy alone decides.
  const problem = configured ? undefined : outboundUrlProblem(request.url, policy);
  if (problem !== undefined) return { ok: false, error: `${what} cannot be requested from ${request.url}: ${problem}`, kind: "permission" };
  const send = configured ? pinnedFetch({ origin, policy }) : (input: string, init?: RequestInit) => fetch(input, { ...init, redirect: "manual" });

  const controller = new AbortController();
  let rejectInterrupted: (reason: Error) => void = () => undefined;
  const interrupted = new Promise<never>((_resolve, reject) => (rejectInterrupted = reject));
  interrupted.catch(() => undefined);
  const stop = (reason: Error) => {
    controller.abort();
    rejectInterrupted(reason);
  };
  const timer = setTimeout(() => stop(new TimeoutError(`no answer within ${request.timeoutMs}ms`)), request.timeoutMs);
  const onAbort = () => stop(new Error("the call was stopped"));
  request.signal?.addEventListener("abort", onAbort);
  try {
    const init: RequestInit = {
      method: request.method,
      headers: {
        accept: "application/json",
        ...(request.body !== undefined && { "content-type": "application/json" }),
        "a2a-version": "1.0",
        // The gateway's own (the call's `traceparent`) yield to the provider's configured ones, as for every tool.
        ...withGatewayHeaders(headers.value, request.extraHeaders),
      },
      ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      signal: controller.signal,
    };
    const response = await Promise.race([send(request.url, init), interrupted]);
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      return { ok: false, error: `${what} answered a redirect (HTTP ${response.status}), which the gateway does not follow`, kind: "upstream" };
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { ok: false, error: `${what} answered HTTP ${response.status}`, kind: response.status === 401 || response.status === 403 ? "permission" : "upstream" };
    }
    const body = await readLimitedBody(response.body, { maxBytes: request.maxBytes, interrupted });
    if (!body.ok) return { ok: false, error: `${what} is larger than ${request.maxBytes} bytes`, kind: "upstream" };
    const parsed = parseJsonSafely(new TextDecoder().decode(body.bytes));
    if (!parsed.ok) return { ok: false, error: `${what} is not JSON (${parsed.message})`, kind: "upstream" };
    return { ok: true, value: parsed.value };
  } catch (error) {
    const timedOut = error instanceof TimeoutError;
    return { ok: false, error: `${what} failed: ${(error as Error).message}`, kind: timedOut ? "timeout" : "upstream" };
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", onAbort);
  }
}

class TimeoutError extends Error {}
