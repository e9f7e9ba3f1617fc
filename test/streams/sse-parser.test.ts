/**
 * The SSE parser, written once in the SDK (client/src/sse-parser.ts) and used
 * by its event streams and by the tests' stream client: frames split across
 * chunks anywhere, any of the three line endings (a CRLF split between two
 * chunks too), comments, multi-line data, named events, ids.
 */
import { describe, expect, it } from "vitest";
import { SseParser, type SseFrame } from "../../client/src/sse-parser";

function parse(chunks: string[]): SseFrame[] {
  const frames: SseFrame[] = [];
  const parser = new SseParser((frame) => frames.push(frame));
  for (const chunk of chunks) parser.push(chunk);
  return frames;
}

const stream = 'id: 1\ndata: {"seq":1}\n\n: ping\n\nid: 2\nevent: error\ndata: {"error":{}}\n\n';
const expected: SseFrame[] = [
  { id: "1", event: undefined, data: '{"seq":1}' },
  { id: "2", event: "error", data: '{"error":{}}' },
];

describe("SseParser", () => {
  it("reads a stream given whole", () => {
    expect(parse([stream])).toEqual(expected);
  });

  it("reads the same frames whatever the chunks: one character at a time, or cut at every point", () => {
    expect(parse([...stream])).toEqual(expected);
    for (let cut = 1; cut < stream.length; cut += 1) expect(parse([stream.slice(0, cut), stream.slice(cut)])).toEqual(expected);
  });

  it("takes CRLF and lone CR as line ends, a CRLF split between chunks as one", () => {
    expect(parse([stream.replaceAll("\n", "\r\n")])).toEqual(expected);
    // A CR that ends what has arrived may be half of a CRLF: its line waits for the next chunk.
    expect(parse([stream.replaceAll("\n", "\r")])).toEqual(expected.slice(0, 1));
    expect(parse([stream.replaceAll("\n", "\r"), ": ping\r"])).toEqual(expected);
    expect(parse(["data: a\r", "\ndata: b\r\n\r", "\n"])).toEqual([{ id: undefined, event: undefined, data: "a\nb" }]);
  });

  it("joins multi-line data with line feeds, and keeps the id for the frames after it", () => {
    expect(parse(["id: 7\ndata: one\ndata:two\ndata\n\ndata: three\n\n"])).toEqual([
      { id: "7", event: undefined, data: "one\ntwo\n" },
      { id: "7", event: undefined, data: "three" },
    ]);
  });

  it("gives comments and frames without data nothing, and holds a frame until its blank line", () => {
    expect(parse([": connected\n\n: ping\n\nevent: lonely\n\n"])).toEqual([]);
    expect(parse(["data: not yet\n"])).toEqual([]);
  });
});
