/**
 * Standard Webhooks signing (the spec the `standardwebhooks` libraries
 * verify, as OpenAI, Svix and others send them): every push carries
 *
 *   webhook-id: <the message's id, the same on every attempt>
 *   webhook-timestamp: <unix seconds of this attempt>
 *   webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">
 *
 * The key is the secret's bytes: a `whsec_<base64>` secret is decoded (a
 * subscription's own secret has that form); any other string (the gateway's
 * `WEBHOOK_SECRET`) is taken as its UTF-8 bytes, which is the same key as the
 * secret `whsec_` + base64(UTF-8 of it) (`standardSecretOf`).
 */
const encoder = new TextEncoder();
const prefix = "whsec_";

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The signing key's bytes; `undefined` for an empty secret or a `whsec_` secret that is not base64. */
export function keyBytesOf(secret: string): Uint8Array<ArrayBuffer> | undefined {
  if (!secret) return undefined;
  if (!secret.startsWith(prefix)) return new Uint8Array(encoder.encode(secret));
  try {
    const bytes = Uint8Array.from(atob(secret.slice(prefix.length)), (character) => character.charCodeAt(0));
    return bytes.length > 0 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** The same secret in the `whsec_` form receivers' libraries take. */
export function standardSecretOf(secret: string): string {
  const bytes = keyBytesOf(secret);
  if (!bytes) throw new TypeError("A webhook secret is required");
  return `${prefix}${base64(bytes)}`;
}

/** A new subscription secret: 32 random bytes. */
export function newWebhookSecret(): string {
  return `${prefix}${base64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** `v1,<base64 signature>` of one message. */
export async function signStandardWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): Promise<string> {
  const bytes = keyBytesOf(secret);
  if (!bytes) throw new TypeError("A webhook secret is required to sign a webhook");
  const key = await crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(`${messageId}.${timestampSeconds}.${body}`));
  return `v1,${base64(new Uint8Array(signature))}`;
}

/** The three Standard Webhooks headers for one attempt. */
export async function standardWebhookHeaders(secret: string, messageId: string, body: string, now = Date.now()): Promise<Record<string, string>> {
  const timestamp = Math.floor(now / 1000);
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signStandardWebhook(secret, messageId, timestamp, body),
  };
}
