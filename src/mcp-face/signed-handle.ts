/**
 * A handle the face gives a client and reads back on a later request (its
 * session id, a task id): the claims it carries, signed with HMAC-SHA256
 * under a key derived from `WEBHOOK_SECRET` for one purpose only. The face
 * keeps nothing between requests, so what a later request needs to know
 * rides in the handle, and a handle that was changed, made for another
 * purpose, or has expired reads as nothing.
 */
import { z } from "zod";
import { base64UrlToBytes, bytesToBase64Url } from "../base64";
import { parseJsonSafely } from "../json";
import { derivePurposeKey } from "../security/hmac-key";

const encoder = new TextEncoder();
/** No handle the face makes is longer; a longer one is refused before any work. */
export const maxHandleLength = 1_000;

const Claims = z.looseObject({ exp: z.number() });
const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(secret: string, purpose: string): Promise<CryptoKey> {
  const id = `${purpose}\n${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = derivePurposeKey(secret, purpose, ["sign", "verify"]);
    keys.set(id, key);
  }
  return key;
}

/** `claims` (a JSON object) with an expiry (ms since the epoch), signed for `purpose`. */
export async function signHandle(secret: string, purpose: string, claims: Record<string, unknown>, expiresAt: number): Promise<string> {
  const payload = bytesToBase64Url(encoder.encode(JSON.stringify({ ...claims, exp: Math.floor(expiresAt / 1000) })));
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", await keyFor(secret, purpose), encoder.encode(payload)));
  return `${payload}.${bytesToBase64Url(signature)}`;
}

/** The claims of a handle signed for `purpose` that has not expired; `undefined` for anything else. */
export async function readHandle(secret: string, purpose: string, handle: string, now = Date.now()): Promise<Record<string, unknown> | undefined> {
  if (handle.length > maxHandleLength) return undefined;
  const [payload, signature, extra] = handle.split(".");
  if (extra !== undefined || !payload || !signature) return undefined;
  const signatureBytes = base64UrlToBytes(signature);
  const payloadBytes = base64UrlToBytes(payload);
  if (!signatureBytes || !payloadBytes) return undefined;
  if (!(await crypto.subtle.verify("HMAC", await keyFor(secret, purpose), signatureBytes, encoder.encode(payload)))) return undefined;
  const parsed = parseJsonSafely(new TextDecoder().decode(payloadBytes));
  const claims = parsed.ok ? Claims.safeParse(parsed.value) : undefined;
  if (!claims?.success || claims.data.exp * 1000 <= now) return undefined;
  return claims.data;
}
