/**
 * Reads Server-Sent Events from a fetch body (works where EventSource cannot
 * send headers, and in Node 20, which has neither EventSource nor WebSocket).
 */
export type SseFrame = { id?: string; event?: string; data: string };

/** Splits a text stream into SSE frames; comments (`: ping`) come out as `onActivity` calls only. */
export class SseParser {
  #buffer = "";
  #data: string[] = [];
  #id: string | undefined;
  #event: string | undefined;

  constructor(private readonly onFrame: (frame: SseFrame) => void) {}

  push(chunk: string): void {
    this.#buffer += chunk;
    for (;;) {
      const newline = this.#buffer.search(/\r\n|\r|\n/);
      if (newline === -1) return;
      // A CR at the very end may be half of a CRLF split across chunks: wait for the next one.
      if (newline === this.#buffer.length - 1 && this.#buffer.endsWith("\r")) return;
      const line = this.#buffer.slice(0, newline);
      const width = this.#buffer.startsWith("\r\n", newline) ? 2 : 1;
      this.#buffer = this.#buffer.slice(newline + width);
      this.#line(line);
    }
  }

  #line(line: string): void {
    if (line === "") {
      if (this.#data.length > 0) this.onFrame({ id: this.#id, event: this.#event, data: this.#data.join("\n") });
      this.#data = [];
      this.#event = undefined;
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "id") this.#id = value;
    else if (field === "event") this.#event = value;
  }
}
