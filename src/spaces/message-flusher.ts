/**
 * The space's write-behind to D1: messages written in the object's SQLite
 * (`message-store.ts`, marked dirty) reach D1 in batches of multi-row
 * upserts, idempotent by message id. A short timer sends a batch soon after
 * a write; the object's alarm is armed as the backstop in case the object
 * dies first, and a failed batch is tried again from the alarm with backoff.
 * Once nothing is left to send the alarm stays as it is and fires once for
 * nothing, instead of being cleared after every batch and set again at the
 * next write (two storage operations a message on a busy space).
 */
import { getDatabase } from "../db/client";
import { upsertMessages } from "../db/messages";
import type { AppEnv } from "../env";
import type { MessageStore } from "./message-store";

/** How long a written message waits for others before the batch goes to D1. */
export const flushDelayMs = 50;
/** Rows per flush (each batch is one D1 round trip of multi-row statements). */
const flushBatch = 90;
/** The alarm flushes whatever the timer did not, this long after a write (then with backoff). */
const flushBackstopMs = 5_000;
const maxBackoffMs = 60_000;

export class MessageFlusher {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> | undefined;
  #failures = 0;
  /** The alarm is set to flush what the timer may not (it stays set until it fires). */
  #backstopArmed = false;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly env: AppEnv,
    private readonly messages: MessageStore,
    private readonly spaceId: () => string,
  ) {}

  /** After a write: a timer sends the batch soon, and the alarm is armed as the backstop. */
  schedule(): void {
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.flush();
      }, flushDelayMs);
    }
    if (!this.#backstopArmed) {
      this.#backstopArmed = true;
      void this.storage.setAlarm(Date.now() + flushBackstopMs);
    }
  }

  /** The alarm fired (and is gone): the next write arms it again; then whatever is dirty is sent. */
  onAlarm(): Promise<void> {
    this.#backstopArmed = false;
    return this.flush();
  }

  /** Sends dirty rows to D1 until none is left (one flush at a time); on failure, tries again from the alarm with backoff. */
  flush(): Promise<void> {
    this.#flushing ??= this.#flushAll().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flushAll(): Promise<void> {
    const database = getDatabase(this.env.DB);
    try {
      for (;;) {
        const rows = this.messages.dirty(flushBatch);
        if (rows.length === 0) break;
        await upsertMessages(
          database,
          rows.map((row) => row.message),
        );
        this.messages.markFlushed(rows);
      }
      this.#failures = 0;
      this.messages.trim();
    } catch (error) {
      this.#failures += 1;
      const backoff = Math.min(maxBackoffMs, 1_000 * 2 ** (this.#failures - 1));
      console.error(`could not write space ${this.spaceId()}'s messages to D1 (attempt ${this.#failures}); again in ${backoff} ms`, error);
      this.#backstopArmed = true;
      await this.storage.setAlarm(Date.now() + backoff);
    }
  }
}
