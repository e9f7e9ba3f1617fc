/**
 * The fetch every SDK request goes through: retries what is safe to retry
 * (reads, `PUT`, and the writes the gateway lets a client retry, which get an
 * `Idempotency-Key` that stays the same across the retries of one call), on
 * network errors and on 408/429/502/503/504, with backoff.
 */
import { backoffDelay, sleep, type BackoffOptions } from "./backoff.js";

/** `POST`s the gateway lets a client retry with an `Idempotency-Key` (docs/api.md, "Retries and Idempotency-Key"). */
const idempotentPosts = [
  /^\/api\/entities$/,
  /^\/api\/spaces$/,
  /^\/api\/agents$/,
  /^\/api\/agents\/import$/,
  /^\/api\/spaces\/[^/]+\/messages$/,
  /^\/api\/agents\/[^/]+\/inbox$/,
  /^\/api\/runs\/[^/]+\/tool-results$/,
  /^\/api\/webhooks$/,
  /^\/api\/pending-tool-calls\/[^/]+\/redeliver$/,
  /^\/api\/webhooks\/dead-letters\/[^/]+\/redeliver$/,
  // Answering a callback is idempotent by design: the same body again is a duplicate.
  /^\/api\/callbacks\/[^/]+$/,
];

const retryStatuses = new Set([408, 429, 502, 503, 504]);

export type RetryOptions = BackoffOptions & { retries?: number };

export function isIdempotentPost(pathname: string): boolean {
  return idempotentPosts.some((pattern) => pattern.test(pathname));
}

function newIdempotencyKey(): string {
  return `idem_${crypto.randomUUID().replaceAll("-", "")}`;
}

export function retryingFetch(baseFetch: (request: Request) => Promise<Response>, options: RetryOptions = {}) {
  const retries = options.retries ?? 3;
  return async function fetchWithRetries(request: Request): Promise<Response> {
    const method = request.method.toUpperCase();
    const pathname = new URL(request.url).pathname;
    let retryable = method === "GET" || method === "HEAD" || method === "PUT";
    if (method === "POST" && isIdempotentPost(pathname)) {
      retryable = true;
      if (!request.headers.has("idempotency-key")) {
        const headers = new Headers(request.headers);
        headers.set("idempotency-key", newIdempotencyKey());
        request = new Request(request, { headers });
      }
    }
    for (let attempt = 0; ; attempt += 1) {
      const last = !retryable || attempt >= retries || request.signal?.aborted;
      try {
        const response = await baseFetch(last ? request : request.clone());
        if (last || !retryStatuses.has(response.status)) return response;
        await response.body?.cancel();
        const retryAfter = Number(response.headers.get("retry-after"));
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 30_000) : backoffDelay(attempt, options), request.signal);
      } catch (error) {
        if (last || (error instanceof Error && error.name === "AbortError")) throw error;
        await sleep(backoffDelay(attempt, options), request.signal);
      }
    }
  };
}
