/**
 * Signs the webhooks the gateway pushes (pending tool calls with
 * `execution.webhook`) so a receiver can tell they are genuine and fresh:
 * `x-switchboard-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`,
 * keyed by the secret's key bytes as every push is (`keyBytesOf`: a
 * `whsec_<base64>` secret decoded, any other string as UTF-8).
 */
import { constantTimeEqual } from "../auth/constant-time-equal";
import { importHmacKey } from "../security/hmac-key";
import { keyBytesOf } from "./standard-webhooks";

export const webhookSignatureHeader = "x-switchboard-signature";
export const defaultWebhookToleranceSeconds = 300;

const encoder = new TextEncoder();

/** Hex HMAC-SHA256 of `${timestamp}.${body}` with `secret`. Rejects an empty secret. */
export async function signWebhook(secret: string, timestamp: number, body: string): Promise<string> {
  const bytes = keyBytesOf(secret);
  if (!bytes) throw new TypeError("A webhook secret is required to sign a webhook");
  const signature = await crypto.subtle.sign("HMAC", await importHmacKey(bytes), encoder.encode(`${timestamp}.${body}`));
  return [...new Uint8Array(signature)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The full header value, `t=<timestamp>,v1=<hex>`; `timestamp` defaults to now. */
export async function webhookSignatureHeaderValue(secret: string, body: string, timestamp: number = Math.floor(Date.now() / 1000)): Promise<string> {
  return `t=${timestamp},v1=${await signWebhook(secret, timestamp, body)}`;
}

/**
 * Checks a `t=…,v1=…` header against `body`: true when one `v1` matches and the
 * timestamp is within `toleranceSeconds` of `now` (unix seconds).
 */
export async function verifyWebhookSignature(
  secret: string,
  header: string | null | undefined,
  body: string,
  toleranceSeconds: number = defaultWebhookToleranceSeconds,
  now: number = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  if (!secret || !header) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const separator = part.indexOf("=");
    if (separator === -1) continue;
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (name === "t" && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    else if (name === "v1" && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  if (Math.abs(now - timestamp) > toleranceSeconds) return false;
  const expected = await signWebhook(secret, timestamp, body);
  let matched = false;
  for (const signature of signatures) {
    if (await constantTimeEqual(signature, expected)) matched = true;
  }
  return matched;
}
