/**
 * A durable, gap-free event log in a Durable Object's SQLite storage. Each
 * appended event gets the next `seq`; the newest `retain` events are kept so a
 * client that reconnects with `afterSeq` gets what it missed.
 *
 * Events may carry a second, redacted form for public-key clients.
 */
export type StreamEvent = {
  seq: number;
  type: string;
  at: string;
  data: unknown;
} & Record<string, unknown>;

/** What the stream routes need of a log: append, the last seq, and replay. */
export type StreamLog = {
  readonly lastSeq: number;
  append(envelope: Omit<StreamEvent, "seq">, publicData?: unknown): { frame: string; publicFrame: string; seq: number };
  framesAfter(afterSeq: number, audience: "secret" | "public"): { seq: number; frame: string }[];
};

type EventRow = { seq: number; frame: string; public_frame: string | null };

/**
 * The tables (`event_log`, `event_meta`) are the owning object's to create
 * (its migrations, run before anything reads them): nothing here touches
 * storage before its first use.
 */
export class EventLog implements StreamLog {
  #known: number | undefined;
  #appendsSinceTrim = 0;

  constructor(
    private readonly sql: SqlStorage,
    private readonly retain = 5_000,
  ) {}

  get #lastSeq(): number {
    if (this.#known === undefined) {
      // The newest row holds the last seq (trimming always keeps the newest
      // `retain` rows); event_meta keeps it too, written only when trimming.
      const meta = this.sql.exec<{ value: number }>("SELECT value FROM event_meta WHERE key = 'last_seq'").toArray()[0];
      const newest = this.sql.exec<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM event_log").toArray()[0];
      this.#known = Math.max(meta?.value ?? 0, newest?.seq ?? 0);
    }
    return this.#known;
  }

  set #lastSeq(seq: number) {
    this.#known = seq;
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** The seq the next append will take. */
  get nextSeq(): number {
    return this.#lastSeq + 1;
  }

  /**
   * Appends an event synchronously (SQLite storage writes are synchronous and
   * atomic within the current turn). Returns the frames to broadcast.
   */
  append(envelope: Omit<StreamEvent, "seq">, publicData?: unknown): { frame: string; publicFrame: string; seq: number } {
    const seq = this.#lastSeq + 1;
    const event = { seq, ...envelope };
    const frame = JSON.stringify(event);
    const publicFrame = publicData === undefined ? frame : JSON.stringify({ ...event, data: publicData });
    this.sql.exec("INSERT INTO event_log (seq, frame, public_frame) VALUES (?, ?, ?)", seq, frame, publicFrame === frame ? null : publicFrame);
    this.#lastSeq = seq;
    this.#appendsSinceTrim += 1;
    if (this.#appendsSinceTrim >= 500) {
      this.#appendsSinceTrim = 0;
      this.sql.exec("INSERT INTO event_meta (key, value) VALUES ('last_seq', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", seq);
      this.sql.exec("DELETE FROM event_log WHERE seq <= ?", seq - this.retain);
    }
    return { frame, publicFrame, seq };
  }

  /** Whether any message was ever logged here (the log was trimmed, or holds a `space.message`). */
  hadMessages(): boolean {
    if (this.sql.exec("SELECT 1 FROM event_meta WHERE key = 'last_seq'").toArray().length > 0) return true;
    return this.sql.exec('SELECT 1 FROM event_log WHERE frame LIKE \'%"type":"space.message"%\' LIMIT 1').toArray().length > 0;
  }

  /** Frames after `afterSeq`, oldest first, for a secret or public audience. */
  framesAfter(afterSeq: number, audience: "secret" | "public"): { seq: number; frame: string }[] {
    const rows = this.sql.exec<EventRow>("SELECT seq, frame, public_frame FROM event_log WHERE seq > ? ORDER BY seq", afterSeq).toArray();
    return rows.map((row) => ({ seq: row.seq, frame: audience === "public" && row.public_frame !== null ? row.public_frame : row.frame }));
  }
}
