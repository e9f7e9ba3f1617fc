/**
 * Named queues (the config's `queues`): a queue lets at most `concurrency`
 * calls run at once, and with `minIntervalMs` starts them at least that far
 * apart (a rate limited API). The agent object holds one `ToolQueues` for its
 * lifetime, so a queue spans all of the agent's cycles; it sits on top of
 * `limits.maxConcurrentTools`, which bounds one step's parallel calls. Waiters
 * are served first come, first served; an aborted wait leaves the line.
 */
export type QueueSettings = { concurrency: number; minIntervalMs?: number };

type Waiter = { resolve: () => void; reject: (reason: unknown) => void };

class Queue {
  running = 0;
  lastStartAt = 0;
  readonly waiting: Waiter[] = [];

  constructor(readonly settings: QueueSettings) {}

  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0;
  }
}

export class ToolQueues {
  readonly #queues = new Map<string, Queue>();

  /**
   * Waits for a slot in `name`; resolves a release function (call it exactly
   * once when the call ends). Rejects if `signal` aborts while waiting.
   */
  async acquire(name: string, settings: QueueSettings, signal?: AbortSignal): Promise<() => void> {
    const queue = this.#queue(name, settings);
    if (queue.running >= queue.settings.concurrency || queue.waiting.length > 0) {
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { resolve, reject };
        queue.waiting.push(waiter);
        signal?.addEventListener(
          "abort",
          () => {
            const index = queue.waiting.indexOf(waiter);
            if (index === -1) return;
            queue.waiting.splice(index, 1);
            reject(signal.reason ?? new Error("aborted"));
          },
          { once: true },
        );
      });
    } else queue.running += 1;
    const wait = (queue.settings.minIntervalMs ?? 0) - (Date.now() - queue.lastStartAt);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    queue.lastStartAt = Date.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#release(name, queue);
    };
  }

  /** How many calls run and wait in a queue (for tests and the bench). */
  state(name: string): { running: number; waiting: number } {
    const queue = this.#queues.get(name);
    return { running: queue?.running ?? 0, waiting: queue?.waiting.length ?? 0 };
  }

  #queue(name: string, settings: QueueSettings): Queue {
    let queue = this.#queues.get(name);
    // New settings (the config changed) take effect once the old queue drained.
    if (!queue || (queue.idle && (queue.settings.concurrency !== settings.concurrency || queue.settings.minIntervalMs !== settings.minIntervalMs))) {
      queue = new Queue(settings);
      this.#queues.set(name, queue);
    }
    return queue;
  }

  #release(name: string, queue: Queue): void {
    const next = queue.waiting.shift();
    // The slot passes straight to the next waiter; `running` stays the same.
    if (next) next.resolve();
    else queue.running -= 1;
    if (queue.idle && this.#queues.get(name) === queue) this.#queues.delete(name);
  }
}
