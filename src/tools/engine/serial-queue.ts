/** Runs tasks one at a time in the order they were submitted. */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => T | PromiseLike<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves when every task submitted so far has finished. */
  idle(): Promise<void> {
    return this.#tail.then(() => undefined);
  }
}
