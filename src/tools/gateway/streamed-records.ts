/**
 * A gateway tool's answer that streams: NDJSON (`application/x-ndjson`,
 * `application/ndjson`, `application/jsonl`: one JSON value a line) or SSE
 * (`text/event-stream`: an event's `data:` lines joined; comments, other
 * fields and a `[DONE]` sentinel skipped; data that is not JSON kept as
 * text). Records are cut from the bytes as they arrive, so each can be
 * reported (`tool.progress`) before the answer ends; the result is every
 * record, in order.
 */
import { parseJsonSafely } from "../../json";

export type StreamFormat = "ndjson" | "sse";

const ndjsonTypes = new Set(["application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"]);

export function streamFormatOf(mediaType: string | undefined): StreamFormat | undefined {
  if (mediaType === undefined) return undefined;
  if (ndjsonTypes.has(mediaType)) return "ndjson";
  return mediaType === "text/event-stream" ? "sse" : undefined;
}

/** A record as it arrives: its value, and its text (for a progress message). */
export type StreamRecord = { value: unknown; text: string };

export class StreamedRecords {
  readonly format: StreamFormat;
  readonly #decoder = new TextDecoder();
  readonly #onRecord: (record: StreamRecord, count: number) => void;
  readonly values: unknown[] = [];
  #pending = "";
  #data: string[] = [];
  /** The first line that is not a JSON value (NDJSON), with its number. */
  problem: string | undefined;
  #line = 0;

  constructor(format: StreamFormat, onRecord: (record: StreamRecord, count: number) => void) {
    this.format = format;
    this.#onRecord = onRecord;
  }

  push(chunk: Uint8Array): void {
    this.#take(this.#decoder.decode(chunk, { stream: true }));
  }

  /** The stream ended: what is left of its last line (and event) counts too. */
  end(): void {
    this.#take(`${this.#decoder.decode()}\n${this.format === "sse" ? "\n" : ""}`);
  }

  #take(text: string): void {
    const lines = (this.#pending + text).split("\n");
    this.#pending = lines.pop() ?? "";
    for (const raw of lines) this.#lineOf(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
  }

  #lineOf(line: string): void {
    this.#line += 1;
    if (this.format === "ndjson") {
      if (line.trim() === "" || this.problem !== undefined) return;
      const parsed = parseJsonSafely(line);
      if (!parsed.ok) {
        this.problem = `line ${this.#line} is not JSON: ${parsed.message}`;
        return;
      }
      this.#emit({ value: parsed.value, text: line.trim() });
      return;
    }
    if (line === "") {
      if (this.#data.length === 0) return;
      const data = this.#data.join("\n");
      this.#data = [];
      if (data.trim() === "[DONE]") return;
      const parsed = parseJsonSafely(data);
      this.#emit({ value: parsed.ok ? parsed.value : data, text: data });
      return;
    }
    if (line.startsWith("data:")) this.#data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
  }

  #emit(record: StreamRecord): void {
    this.values.push(record.value);
    this.#onRecord(record, this.values.length);
  }
}
