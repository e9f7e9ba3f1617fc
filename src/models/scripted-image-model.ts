/**
 * A `scripted` image model: a small PNG drawn here from the prompt (a
 * checkerboard in two colours derived from it), the same picture for the same
 * prompt. For tests, demos and offline development: no network, no key.
 */
import type { ImageModelV4 } from "@ai-sdk/provider";

const side = 32;
const square = 4;

export function createScriptedImageModel(modelId = "scripted-image"): ImageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "scripted",
    modelId,
    maxImagesPerCall: 4,
    async doGenerate({ prompt, n }) {
      return {
        images: Array.from({ length: n }, (_, index) => scriptedPng(`${prompt ?? ""}#${index}`)),
        warnings: [],
        response: { timestamp: new Date(), modelId, headers: undefined },
      };
    },
  };
}

/** A `side`×`side` RGB PNG: a checkerboard in two colours picked from `seed`. */
export function scriptedPng(seed: string): Uint8Array {
  const hash = fnv1a(seed);
  const first = [hash & 0xff, (hash >>> 8) & 0xff, (hash >>> 16) & 0xff];
  const second = first.map((channel) => 255 - channel);
  const raw = new Uint8Array(side * (1 + side * 3));
  for (let y = 0; y < side; y += 1) {
    const row = y * (1 + side * 3);
    raw[row] = 0; // filter: none
    for (let x = 0; x < side; x += 1) {
      const colour = (Math.floor(x / square) + Math.floor(y / square)) % 2 === 0 ? first : second;
      raw.set(colour, row + 1 + x * 3);
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, side);
  view.setUint32(4, side);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method, no interlace
  return concat([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", storedZlib(raw)), chunk("IEND", new Uint8Array())]);
}

/** zlib data in one stored (uncompressed) deflate block: enough for a picture this small. */
function storedZlib(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(2 + 5 + data.length + 4);
  out.set([0x78, 0x01, 0x01, data.length & 0xff, data.length >>> 8, ~data.length & 0xff, (~data.length >>> 8) & 0xff]);
  out.set(data, 7);
  new DataView(out.buffer).setUint32(7 + data.length, adler32(data));
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  const typed = new TextEncoder().encode(type);
  out.set(typed, 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function crc32(data: Uint8Array): number {
  let crc = ~0;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
