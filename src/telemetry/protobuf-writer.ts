/**
 * Just enough of the protobuf wire format to write an OTLP trace export:
 * varints, fixed 32/64-bit numbers, doubles, and length-delimited strings,
 * bytes and nested messages. Written here rather than bundling a protobuf
 * library (or the OpenTelemetry SDK) into the Worker for one small message.
 * Fields at their default value are left out, as protobuf encoders do,
 * except when `always` says the field must show (a oneof member: an
 * attribute whose value is 0, false or "" keeps its type).
 */

const varintType = 0;
const fixed64Type = 1;
const lengthType = 2;
const fixed32Type = 5;

const encoder = new TextEncoder();

export class ProtobufWriter {
  #buffer = new Uint8Array(256);
  #length = 0;

  #reserve(bytes: number): void {
    if (this.#length + bytes <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < this.#length + bytes) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = grown;
  }

  #byte(value: number): void {
    this.#reserve(1);
    this.#buffer[this.#length++] = value;
  }

  /** An unsigned varint; a negative int64 is written as its 64-bit two's complement. */
  #varint(value: number | bigint): void {
    let rest = BigInt.asUintN(64, BigInt(value));
    while (rest > 0x7fn) {
      this.#byte(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    this.#byte(Number(rest));
  }

  #tag(field: number, wireType: number): void {
    this.#varint((field << 3) | wireType);
  }

  #raw(bytes: Uint8Array): void {
    this.#reserve(bytes.length);
    this.#buffer.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  /** uint32, int64, an enum or a bool. */
  varint(field: number, value: number | bigint | boolean, always = false): this {
    const number = typeof value === "boolean" ? Number(value) : value;
    if (!always && (number === 0 || number === 0n)) return this;
    this.#tag(field, varintType);
    this.#varint(number);
    return this;
  }

  fixed32(field: number, value: number): this {
    if (value === 0) return this;
    this.#tag(field, fixed32Type);
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, value >>> 0, true);
    this.#raw(bytes);
    return this;
  }

  fixed64(field: number, value: bigint): this {
    if (value === 0n) return this;
    this.#tag(field, fixed64Type);
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setBigUint64(0, BigInt.asUintN(64, value), true);
    this.#raw(bytes);
    return this;
  }

  double(field: number, value: number, always = false): this {
    if (!always && value === 0 && !Object.is(value, -0)) return this;
    this.#tag(field, fixed64Type);
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value, true);
    this.#raw(bytes);
    return this;
  }

  bytes(field: number, value: Uint8Array, always = false): this {
    if (!always && value.length === 0) return this;
    this.#tag(field, lengthType);
    this.#varint(value.length);
    this.#raw(value);
    return this;
  }

  string(field: number, value: string, always = false): this {
    return this.bytes(field, encoder.encode(value), always);
  }

  /** A nested message, written by `write` (always present, even when empty: a oneof or a repeated entry must show). */
  message(field: number, write: (writer: ProtobufWriter) => void): this {
    const nested = new ProtobufWriter();
    write(nested);
    const bytes = nested.finish();
    this.#tag(field, lengthType);
    this.#varint(bytes.length);
    this.#raw(bytes);
    return this;
  }

  finish(): Uint8Array {
    return this.#buffer.slice(0, this.#length);
  }
}

/** Lowercase hex (a trace or span id) as bytes. */
export function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++) bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}
