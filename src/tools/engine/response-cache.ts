/**
 * The response cache (`cache: {ttlMs}` on a tool or provider): an `ok`
 * outcome kept for `ttlMs`, keyed on the tool and its canonical arguments
 * (key order never matters). Held in the agent object's memory, so it spans
 * cycles and is gone after an eviction; emptied when the config changes.
 * Bounded in bytes: the oldest entries go first, and an entry larger than
 * `maxEntryBytes` is not kept.
 */
import { canonicalJson } from "../../canonical-json";
import type { ToolOutcome } from "./tool-outcome";

type Entry = { outcome: ToolOutcome; expiresAt: number; bytes: number };

export class ResponseCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(
    readonly maxBytes = 8 * 1024 * 1024,
    readonly maxEntryBytes = 1024 * 1024,
  ) {}

  static key(toolName: string, args: unknown): string {
    return `${toolName}\u0000${canonicalJson(args ?? null)}`;
  }

  get(key: string, now = Date.now()): ToolOutcome | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.#delete(key, entry);
      return undefined;
    }
    return entry.outcome;
  }

  set(key: string, outcome: ToolOutcome, ttlMs: number, now = Date.now()): void {
    if (outcome.type !== "ok") return;
    const bytes = JSON.stringify(outcome).length * 2;
    if (bytes > this.maxEntryBytes) return;
    const previous = this.#entries.get(key);
    if (previous) this.#delete(key, previous);
    this.#entries.set(key, { outcome, expiresAt: now + ttlMs, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#delete(oldest, entry);
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  #delete(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
