/** Exponential backoff with jitter, and a sleep that an AbortSignal cuts short. */
export type BackoffOptions = { initialDelayMs?: number; maxDelayMs?: number; factor?: number };

/** The delay before retry number `attempt` (0-based): `initial · factor^attempt`, capped, with ±25 % jitter. */
export function backoffDelay(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const { initialDelayMs = 250, maxDelayMs = 10_000, factor = 2 } = options;
  const base = Math.min(maxDelayMs, initialDelayMs * factor ** attempt);
  return Math.round(base * (0.75 + random() * 0.5));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
