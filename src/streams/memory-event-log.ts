/**
 * An event log kept in memory only: for the agent's own stream, whose events
 * (every text and argument delta of every cycle) are observability, not
 * records, and would otherwise cost a storage write each while the cycle runs.
 * Replay covers the newest `retain` events since the object last started.
 *
 * Seqs stay monotonic across restarts without a write per event: the log
 * reserves blocks of seqs in storage ahead of use, and a new instance starts
 * after the last reserved block (a restart leaves a gap, never a reuse).
 */
import type { StreamEvent, StreamLog } from "./event-log";

/** Where the reservation is kept (the owning object's storage). */
export type SeqReservation = { read(): number; write(upTo: number): void };

const reserveBlock = 1_000;

export class MemoryEventLog implements StreamLog {
  /** Read from the reservation on first use, not in the constructor: the owner's storage may not be ready then. */
  #seqs: { last: number; reservedUpTo: number } | undefined;
  #frames: { seq: number; frame: string }[] = [];

  constructor(
    private readonly reservation: SeqReservation,
    private readonly retain = 2_000,
  ) {}

  get #started(): { last: number; reservedUpTo: number } {
    if (!this.#seqs) {
      const last = this.reservation.read();
      this.#seqs = { last, reservedUpTo: last };
    }
    return this.#seqs;
  }

  get lastSeq(): number {
    return this.#started.last;
  }

  append(envelope: Omit<StreamEvent, "seq">): { frame: string; publicFrame: string; seq: number } {
    const seqs = this.#started;
    const seq = seqs.last + 1;
    if (seq > seqs.reservedUpTo) {
      seqs.reservedUpTo = seq + reserveBlock - 1;
      this.reservation.write(seqs.reservedUpTo);
    }
    const frame = JSON.stringify({ seq, ...envelope });
    seqs.last = seq;
    this.#frames.push({ seq, frame });
    if (this.#frames.length > this.retain * 1.25) this.#frames = this.#frames.slice(-this.retain);
    return { frame, publicFrame: frame, seq };
  }

  framesAfter(afterSeq: number): { seq: number; frame: string }[] {
    return this.#frames.filter((entry) => entry.seq > afterSeq);
  }
}
