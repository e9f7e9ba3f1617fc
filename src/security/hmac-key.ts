/**
 * HMAC keys for everything the gateway signs (callback tokens, file links,
 * webhook signatures, the `hash` tool's HMACs), imported one way. A string
 * secret is its UTF-8 bytes; bytes are taken as they are.
 */
export type HmacHash = "SHA-256" | "SHA-1" | "SHA-384" | "SHA-512";
export type HmacUsage = "sign" | "verify";

const encoder = new TextEncoder();

/** A non-extractable HMAC key for `secret`, for `usages` (signing only by default), over SHA-256 unless told. */
export function importHmacKey(secret: string | Uint8Array<ArrayBuffer>, usages: HmacUsage[] = ["sign"], hash: HmacHash = "SHA-256"): Promise<CryptoKey> {
  const bytes = typeof secret === "string" ? encoder.encode(secret) : secret;
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash }, false, usages);
}

/**
 * A key for one purpose only, derived from a root secret: HMAC-SHA256 of the
 * purpose's label under the root. What is signed with it cannot be passed
 * off as anything signed for another purpose, and the root never signs
 * anything itself.
 */
export async function derivePurposeKey(rootSecret: string, purpose: string, usages: HmacUsage[] = ["sign"]): Promise<CryptoKey> {
  const root = await importHmacKey(rootSecret);
  const derived = new Uint8Array(await crypto.subtle.sign("HMAC", root, encoder.encode(purpose)));
  return importHmacKey(derived, usages);
}
