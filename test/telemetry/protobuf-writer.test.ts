/**
 * The hand-written protobuf writer against bytes the wire format fixes (the
 * protobuf encoding guide's own examples where it has them). The whole
 * export request is decoded with protobufjs and the official OTLP .proto
 * files in the node project (test/node/otel.test.ts).
 */
import { describe, expect, it } from "vitest";
import { hexBytes, ProtobufWriter } from "../../src/telemetry/protobuf-writer";

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join(" ");

describe("ProtobufWriter", () => {
  it("writes varints as the encoding guide shows them", () => {
    expect(hex(new ProtobufWriter().varint(1, 150).finish())).toBe("08 96 01");
    expect(hex(new ProtobufWriter().varint(1, 1).finish())).toBe("08 01");
    expect(hex(new ProtobufWriter().varint(1, true).finish())).toBe("08 01");
  });

  it("writes a negative int64 as ten bytes of two's complement", () => {
    expect(hex(new ProtobufWriter().varint(3, -1).finish())).toBe("18 ff ff ff ff ff ff ff ff ff 01");
  });

  it("writes strings, bytes and nested messages length-delimited", () => {
    expect(hex(new ProtobufWriter().string(2, "testing").finish())).toBe("12 07 74 65 73 74 69 6e 67");
    expect(hex(new ProtobufWriter().message(3, (inner) => inner.varint(1, 150)).finish())).toBe("1a 03 08 96 01");
    expect(hex(new ProtobufWriter().bytes(1, hexBytes("0af7651916cd43dd")).finish())).toBe("0a 08 0a f7 65 19 16 cd 43 dd");
  });

  it("writes fixed-width numbers little-endian", () => {
    expect(hex(new ProtobufWriter().fixed32(16, 1).finish())).toBe("85 01 01 00 00 00");
    expect(hex(new ProtobufWriter().fixed64(7, 1_700_000_000_000_000_000n).finish())).toBe("39 00 00 2a 36 fe 9c 97 17");
    expect(hex(new ProtobufWriter().double(4, 0.5).finish())).toBe("21 00 00 00 00 00 00 e0 3f");
  });

  it("leaves fields at their default out, unless told they must show", () => {
    const defaults = new ProtobufWriter().varint(1, 0).varint(2, false).string(3, "").fixed64(4, 0n).double(5, 0).fixed32(6, 0).finish();
    expect(defaults.length).toBe(0);
    expect(hex(new ProtobufWriter().string(1, "", true).varint(2, false, true).varint(3, 0, true).finish())).toBe("0a 00 10 00 18 00");
    // An empty nested message still shows: a repeated entry or a oneof member must be there.
    expect(hex(new ProtobufWriter().message(1, () => undefined).finish())).toBe("0a 00");
  });

  it("grows past its first buffer", () => {
    const long = "x".repeat(1_000);
    const bytes = new ProtobufWriter().string(1, long).string(2, long).finish();
    expect(bytes.length).toBe(2 * (1 + 2 + 1_000));
    expect(hex(bytes.slice(0, 3))).toBe("0a e8 07");
  });
});
