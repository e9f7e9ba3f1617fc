/**
 * Base64 for the SDK, the one copy in client/src (tokens, webhook secrets).
 * The Worker has its own in src/base64.ts: the SDK cannot import from src/,
 * since its declarations are emitted with client/src as their root and its
 * bundle carries none of the Worker's code or dependencies.
 */

/** Standard base64 (`+`, `/`), padded with `=`. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** base64url (`-`, `_`) without padding, as JWT parts are written. */
export function bytesToBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Standard base64 as `atob` reads it (padding optional, white space skipped); undefined when it is not base64. */
export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}
