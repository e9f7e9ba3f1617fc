/**
 * In-memory waiters for sync tool calls without a URL: the cycle awaits one;
 * the pending-call owner records the call's outcome in the cycle's journal and
 * wakes the waiter (pushed, not polled). A waiter only says "look now": the
 * outcome itself is in the journal, so a wake and a timeout racing each other
 * cannot deliver two different things. The deadline is also stored in the
 * alarm table, so a timeout still takes effect if the object restarts.
 */
export class ToolWaiters {
  #waiters = new Map<string, () => void>();

  /** Resolves when the call is woken, after `timeoutMs`, or on abort, whichever comes first. */
  wait(toolCallId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", finish);
        if (this.#waiters.get(toolCallId) === finish) this.#waiters.delete(toolCallId);
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      signal?.addEventListener("abort", finish);
      this.#waiters.set(toolCallId, finish);
    });
  }

  /** Wakes a live waiter; false when nobody is waiting here. */
  wake(toolCallId: string): boolean {
    const waiter = this.#waiters.get(toolCallId);
    if (!waiter) return false;
    waiter();
    return true;
  }

  has(toolCallId: string): boolean {
    return this.#waiters.has(toolCallId);
  }

  /** Wakes everyone (the object is going away). */
  wakeAll(): void {
    for (const waiter of [...this.#waiters.values()]) waiter();
  }
}
