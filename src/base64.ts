/**
 * Base64 for the Worker, the one copy: hono's encoders (`hono/utils/encode`)
 * with what they leave to each caller said once here. They take whole
 * buffers, so a view into part of one is copied first; tokens, cursors and
 * JWT-style parts are base64url without padding; and a text that is not
 * base64 decodes to `undefined` instead of throwing.
 */
import { decodeBase64, encodeBase64 } from "hono/utils/encode";

/** The bytes a view covers, as a buffer of their own (hono reads the whole buffer). */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return bytes.slice().buffer;
}

/** Standard base64 (`+`, `/`), padded with `=`. */
export function bytesToBase64(bytes: Uint8Array): string {
  return encodeBase64(ownBuffer(bytes));
}

/** base64url (`-`, `_`) without padding: tokens, cursors, JWT parts. */
export function bytesToBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Standard base64 as `atob` reads it (padding optional, white space skipped); undefined when it is not base64. */
export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return decodeBase64(text);
  } catch {
    return undefined;
  }
}

/** base64url without padding, the form `bytesToBase64Url` writes, and nothing else; undefined otherwise. */
export function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  return base64ToBytes(text.replaceAll("-", "+").replaceAll("_", "/"));
}

/**
 * Whatever a person pastes as base64: either alphabet (even mixed), padding
 * or none, white space anywhere. For tools that decode what they are given,
 * never for anything signed.
 */
export function anyBase64ToBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  const normal = text.replace(/\s+/g, "").replaceAll("-", "+").replaceAll("_", "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal)) return undefined;
  return base64ToBytes(normal.padEnd(Math.ceil(normal.length / 4) * 4, "="));
}
