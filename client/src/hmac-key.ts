/**
 * The SDK's one HMAC-SHA256 key import (signing tokens, checking webhook
 * signatures). The Worker's is src/security/hmac-key.ts: the SDK cannot
 * import from src/ (its declarations are emitted with client/src as their root).
 */
const encoder = new TextEncoder();

/** A non-extractable HMAC-SHA256 signing key: a string secret is its UTF-8 bytes, bytes are taken as they are. */
export function importHmacKey(secret: string | Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  const bytes = typeof secret === "string" ? encoder.encode(secret) : secret;
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}
