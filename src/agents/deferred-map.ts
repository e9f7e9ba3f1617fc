/** Promises keyed by id that can be awaited before or after they are settled. */
export class DeferredMap {
  #entries = new Map<string, { promise: Promise<void>; resolve: () => void }>();

  #entry(id: string) {
    let entry = this.#entries.get(id);
    if (!entry) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      entry = { promise, resolve };
      this.#entries.set(id, entry);
    }
    return entry;
  }

  resolve(id: string): void {
    this.#entry(id).resolve();
  }

  /** Waits for `id`, at most `timeoutMs` (a safety net: never wait forever). */
  wait(id: string, timeoutMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    return Promise.race([this.#entry(id).promise, timeout]).finally(() => {
      if (timer !== undefined) clearTimeout(timer);
    });
  }

  resolveAll(): void {
    for (const entry of this.#entries.values()) entry.resolve();
  }
}
