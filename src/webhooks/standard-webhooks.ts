/**
 * Standard Webhooks signing (the spec the `standardwebhooks` libraries
 * verify, as OpenAI, Svix and others send them): every push carries
 *
 *   webhook-id: <the message's id, the same on every attempt>
 *   webhook-timestamp: <unix seconds of this attempt>
 *   webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">
 *
 * The one rule for a webhook secret's key (every signature the gateway makes
 * with `WEBHOOK_SECRET` or a subscription's secret, both headers): any
 * non-empty string is a key. A `whsec_` secret whose rest is base64 (the
 * standard alphabet, padded, at least one byte, nothing left over: what every
 * Standard Webhooks library decodes the same way) is those decoded bytes, as
 * receivers read it; any other string is its UTF-8 bytes, which is the same
 * key as the secret `whsec_` + base64(UTF-8 of it) (`standardSecretOf`). The
 * client SDK's `webhooks.ts` follows the same rule.
 */
import { base64ToBytes, bytesToBase64 } from "../base64";
import { importHmacKey } from "../security/hmac-key";

const encoder = new TextEncoder();
const prefix = "whsec_";
const canonicalBase64 = /^(?:[A-Za-z0-9+/]{4})+$|^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$/;

/** The bytes after `whsec_` when they are base64 as a receiver's library decodes it; otherwise undefined. */
function decodedStandardSecret(secret: string): Uint8Array<ArrayBuffer> | undefined {
  if (!secret.startsWith(prefix)) return undefined;
  const rest = secret.slice(prefix.length);
  if (!canonicalBase64.test(rest)) return undefined;
  const bytes = base64ToBytes(rest);
  // Unused bits that are not zero decode differently from one library to the next: such a text is not taken as base64.
  return bytes && bytesToBase64(bytes) === rest ? bytes : undefined;
}

/** The signing key's bytes (the rule above); `undefined` only for an empty secret. */
export function keyBytesOf(secret: string): Uint8Array<ArrayBuffer> | undefined {
  if (!secret) return undefined;
  return decodedStandardSecret(secret) ?? new Uint8Array(encoder.encode(secret));
}

/** The same key in the `whsec_<base64>` form receivers' libraries take (a secret already in that form is returned as it is). */
export function standardSecretOf(secret: string): string {
  const bytes = keyBytesOf(secret);
  if (!bytes) throw new TypeError("A webhook secret is required");
  return `${prefix}${bytesToBase64(bytes)}`;
}

/** A new subscription secret: 32 random bytes. */
export function newWebhookSecret(): string {
  return `${prefix}${bytesToBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** `v1,<base64 signature>` of one message. */
export async function signStandardWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): Promise<string> {
  const bytes = keyBytesOf(secret);
  if (!bytes) throw new TypeError("A webhook secret is required to sign a webhook");
  const signature = await crypto.subtle.sign("HMAC", await importHmacKey(bytes), encoder.encode(`${messageId}.${timestampSeconds}.${body}`));
  return `v1,${bytesToBase64(new Uint8Array(signature))}`;
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
