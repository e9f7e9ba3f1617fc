/**
 * In-memory waiters for sync tool calls without a URL: the cycle awaits one;
 * the result route hands the result to it through the agent object (pushed,
 * not polled). The deadline is also stored in the alarm table, so a timeout
 * still takes effect if the object restarts.
 */
export type WaitOutcome = { kind: "result"; result: unknown } | { kind: "expired"; error: string } | { kind: "timeout" };

export class ToolWaiters {
  #waiters = new Map<string, (outcome: WaitOutcome) => void>();

  /** Waits for the call's result, at most `timeoutMs`. */
  wait(toolCallId: string, timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    return new Promise((resolve) => {
      const finish = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#waiters.delete(toolCallId);
        resolve(outcome);
      };
      const onAbort = () => finish({ kind: "timeout" });
      const timer = setTimeout(() => finish({ kind: "timeout" }), timeoutMs);
      signal?.addEventListener("abort", onAbort);
      this.#waiters.set(toolCallId, finish);
    });
  }

  /** Hands an outcome to a live waiter; false when nobody is waiting here. */
  settle(toolCallId: string, outcome: WaitOutcome): boolean {
    const waiter = this.#waiters.get(toolCallId);
    if (!waiter) return false;
    waiter(outcome);
    return true;
  }

  has(toolCallId: string): boolean {
    return this.#waiters.has(toolCallId);
  }
}
