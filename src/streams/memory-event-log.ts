/**
 * An event log kept in memory only: for the agent's own stream, whose events
 * (every text and argument delta of every cycle) are observability, not
 * records, and would otherwise cost a storage write each while the cycle runs.
 * Replay covers the newest `retain` events since the object last started.
 */
import type { StreamEvent, StreamLog } from "./event-log";

export class MemoryEventLog implements StreamLog {
  #lastSeq = 0;
  #frames: { seq: number; frame: string }[] = [];

  constructor(private readonly retain = 2_000) {}

  get lastSeq(): number {
    return this.#lastSeq;
  }

  append(envelope: Omit<StreamEvent, "seq">): { frame: string; publicFrame: string; seq: number } {
    const seq = this.#lastSeq + 1;
    const frame = JSON.stringify({ seq, ...envelope });
    this.#lastSeq = seq;
    this.#frames.push({ seq, frame });
    if (this.#frames.length > this.retain * 1.25) this.#frames = this.#frames.slice(-this.retain);
    return { frame, publicFrame: frame, seq };
  }

  framesAfter(afterSeq: number): { seq: number; frame: string }[] {
    return this.#frames.filter((entry) => entry.seq > afterSeq);
  }
}
