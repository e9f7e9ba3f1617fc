/** What the stream transports share: one connection attempt's inputs, and the error that ends a subscription. */
import type { SwitchboardError } from "./switchboard-error.js";

export type ConnectionAttempt = {
  /** The full stream URL, with `afterSeq` (and for a WebSocket, the credentials). */
  url: string;
  /** Aborted when the subscription closes. */
  signal: AbortSignal;
  /** A connection that shows nothing for this long is given up (and replaced). */
  idleTimeoutMs: number;
  onOpen(): void;
  /** Each parsed JSON frame (events, and anything else the server sends). */
  onFrame(frame: unknown): void;
};

/** An answer retrying cannot fix (401, 403, 404, a final close code): the subscription ends with it. */
export class FinalStreamError extends Error {
  constructor(readonly error: SwitchboardError) {
    super(error.message);
  }
}

/** Statuses that retrying cannot fix. */
export function isFinalStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}
