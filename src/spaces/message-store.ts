/**
 * The space's messages in the SpaceDO's own SQLite: written there, in the
 * same storage transaction as their event in the log, before they are
 * broadcast; copied to D1 afterwards in batches (write-behind, `dirty` rows).
 *
 * The **window** is the newest part of the space's history, held here whole:
 * every message with `seq >= windowStart` is a row here (flushed to D1 or
 * not), and every message below it is in D1. Reads take the window from here
 * and what lies below it from D1, so there is no gap at the seam. Trimming
 * drops only flushed rows from the bottom of the window, so the invariant
 * holds. A message below the window that changes (a card settled days later)
 * is kept here as an `outside` row until D1 has the change; readers lay it
 * over what D1 returns.
 *
 * Message ids are deduplicated against this table: a message posted again
 * with the same id (a retried request, a reply done again after a restart)
 * within the retention (the newest `retainRows`, and anything younger than
 * `retainMs`) returns the stored message.
 */
import { parseStoredJson } from "../db/parse-stored-json";
import { Message } from "../protocol/message";

type Row = { id: string; seq: number; body: string; dirty: number; version: number; outside: number };

export type DirtyRow = { id: string; version: number; message: Message };

export class MessageStore {
  /** Read from `message_meta` on first use (the tables are the object's migrations', run before anything reads them). */
  #window: { start: number | undefined } | undefined;

  constructor(
    private readonly sql: SqlStorage,
    private readonly retainRows = 1_000,
    private readonly retainMs = 24 * 3600 * 1000,
  ) {}

  get #windowStart(): number | undefined {
    this.#window ??= { start: this.#meta("window_start") };
    return this.#window.start;
  }

  set #windowStart(start: number | undefined) {
    this.#window = { start };
  }

  /**
   * Where the window starts; `undefined` before the first message written
   * here (then everything is in D1). `hadMessagesBefore` says whether the
   * space had messages before this store existed (they are in D1 only).
   */
  windowStart(): number | undefined {
    return this.#windowStart;
  }

  /** Opens the window at the first message written here: at seq 0 for a space with no older messages, else at this message. */
  #openWindow(seq: number, hadMessagesBefore: boolean): void {
    if (this.#windowStart !== undefined) return;
    this.#windowStart = hadMessagesBefore ? seq : 0;
    this.#setMeta("window_start", this.#windowStart);
  }

  get(id: string): Message | undefined {
    const row = this.sql.exec<Row>("SELECT * FROM messages WHERE id = ?", id).toArray()[0];
    return row ? storedMessage(row) : undefined;
  }

  /** A new message, at the top of the window (dirty until D1 has it). */
  insert(message: Message, hadMessagesBefore: () => boolean): void {
    if (this.#windowStart === undefined) this.#openWindow(message.seq, hadMessagesBefore());
    this.sql.exec(
      "INSERT INTO messages (id, seq, body, dirty, version, created_ms, outside) VALUES (?, ?, ?, 1, 1, ?, 0)",
      message.id,
      message.seq,
      JSON.stringify(message),
      Date.parse(message.createdAt) || Date.now(),
    );
  }

  /** A changed message: its row (or, for one below the window, an `outside` row) is rewritten and dirty again. */
  update(message: Message): void {
    const outside = this.#windowStart === undefined || message.seq < this.#windowStart ? 1 : 0;
    this.sql.exec(
      "INSERT INTO messages (id, seq, body, dirty, version, created_ms, outside) VALUES (?, ?, ?, 1, 1, ?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body, dirty = 1, version = messages.version + 1",
      message.id,
      message.seq,
      JSON.stringify(message),
      Date.parse(message.createdAt) || Date.now(),
      outside,
    );
  }

  /** Messages of the window after `afterSeq`, oldest first. */
  after(afterSeq: number, limit: number): Message[] {
    return this.sql.exec<Row>("SELECT id, body FROM messages WHERE outside = 0 AND seq > ? ORDER BY seq LIMIT ?", afterSeq, limit).toArray().map(storedMessage);
  }

  /** The newest messages of the window, newest first. */
  newest(limit: number): Message[] {
    return this.sql.exec<Row>("SELECT id, body FROM messages WHERE outside = 0 ORDER BY seq DESC LIMIT ?", limit).toArray().map(storedMessage);
  }

  /** Rows below the window that changed and are not in D1 yet, by id (laid over D1's copies). */
  outsideChanges(ids: readonly string[]): Map<string, Message> {
    const changes = new Map<string, Message>();
    if (ids.length === 0) return changes;
    for (const row of this.sql.exec<Row>("SELECT id, body FROM messages WHERE outside = 1").toArray()) {
      if (ids.includes(row.id)) changes.set(row.id, storedMessage(row));
    }
    return changes;
  }

  /** Rows D1 does not have yet (or not as they are), oldest first. */
  dirty(limit: number): DirtyRow[] {
    return this.sql
      .exec<Row>("SELECT id, body, version FROM messages WHERE dirty = 1 ORDER BY seq LIMIT ?", limit)
      .toArray()
      .map((row) => ({ id: row.id, version: row.version, message: storedMessage(row) }));
  }

  dirtyCount(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE dirty = 1").one().n;
  }

  /** D1 has these rows as they were read: clean, unless they changed again since. Flushed outside rows go. */
  markFlushed(rows: readonly { id: string; version: number }[]): void {
    for (const row of rows) {
      this.sql.exec("UPDATE messages SET dirty = 0 WHERE id = ? AND version = ?", row.id, row.version);
    }
    this.sql.exec("DELETE FROM messages WHERE outside = 1 AND dirty = 0");
  }

  /**
   * Drops flushed rows from the bottom of the window beyond the newest
   * `retainRows` and older than `retainMs`; never a dirty row, nor anything
   * above one. The window then starts at the oldest row left.
   */
  trim(now = Date.now()): number {
    if (this.#windowStart === undefined) return 0;
    const keepFrom = this.sql.exec<{ seq: number | null }>("SELECT seq FROM messages WHERE outside = 0 ORDER BY seq DESC LIMIT 1 OFFSET ?", this.retainRows - 1).toArray()[0]?.seq;
    if (keepFrom === undefined || keepFrom === null) return 0;
    const firstDirty = this.sql.exec<{ seq: number | null }>("SELECT MIN(seq) AS seq FROM messages WHERE outside = 0 AND dirty = 1").one().seq;
    const below = Math.min(keepFrom, firstDirty ?? Number.MAX_SAFE_INTEGER);
    const cursor = this.sql.exec("DELETE FROM messages WHERE outside = 0 AND dirty = 0 AND seq < ? AND created_ms < ?", below, now - this.retainMs);
    if (cursor.rowsWritten === 0) return 0;
    const oldest = this.sql.exec<{ seq: number | null }>("SELECT MIN(seq) AS seq FROM messages WHERE outside = 0").one().seq;
    // Rows younger than retainMs may remain below `below`: the window starts at the oldest row still here.
    this.#windowStart = oldest ?? this.#windowStart;
    this.#setMeta("window_start", this.#windowStart);
    return cursor.rowsWritten;
  }

  #meta(key: string): number | undefined {
    return this.sql.exec<{ value: number }>("SELECT value FROM message_meta WHERE key = ?", key).toArray()[0]?.value;
  }

  #setMeta(key: string, value: number): void {
    this.sql.exec("INSERT INTO message_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value);
  }

  /** A flag kept with the messages (e.g. the one-time check of D1 for a message the old code wrote). */
  flag(key: string): boolean {
    return this.#meta(key) === 1;
  }

  setFlag(key: string): void {
    this.#setMeta(key, 1);
  }
}

/** A stored message, parsed. One that does not parse fails the read, loudly: a history with a message missing or mis-read is worse. */
function storedMessage(row: Pick<Row, "id" | "body">): Message {
  const parsed = parseStoredJson(Message, row.body);
  if (!parsed.ok) throw new Error(`Message ${row.id} is stored in the space object but cannot be read (${parsed.reason})`);
  return parsed.value;
}
