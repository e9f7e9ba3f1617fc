/**
 * Callback URLs: a signed, expiring capability to answer one pending call
 * with one POST, no API key needed. The token carries the call id and an
 * expiry, signed with HMAC-SHA256 under a key derived from `WEBHOOK_SECRET`
 * (never the secret itself); it names nothing else, so it opens nothing
 * else. Answering is idempotent like the result route: the same body again
 * is a duplicate, a different one a conflict.
 */
import { base64UrlToBytes, bytesToBase64Url } from "../base64";
import { derivePurposeKey } from "./hmac-key";

export const callbackPath = "/api/callbacks/";
/** A callback URL without an expiry of its own lives this long. */
export const callbackLifetimeMs = 7 * 24 * 3600 * 1000;

const encoder = new TextEncoder();

const signingKey = (secret: string) => derivePurposeKey(secret, "switchboard callback tokens v1", ["sign", "verify"]);

export async function signCallbackToken(secret: string, callId: string, expiresAt: number): Promise<string> {
  const payload = bytesToBase64Url(encoder.encode(JSON.stringify({ c: callId, e: Math.floor(expiresAt / 1000) })));
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", await signingKey(secret), encoder.encode(payload)));
  return `${payload}.${bytesToBase64Url(signature)}`;
}

export type CallbackToken = { ok: true; callId: string; expiresAt: number } | { ok: false; reason: "malformed" | "expired" };

/** Checks a token (in constant time, by the HMAC verify). A forged or damaged token is `malformed`, whatever was changed. */
export async function verifyCallbackToken(secret: string, token: string, now = Date.now()): Promise<CallbackToken> {
  const [payload, signature, extra] = token.split(".");
  const signatureBytes = signature === undefined ? undefined : base64UrlToBytes(signature);
  const payloadBytes = payload === undefined ? undefined : base64UrlToBytes(payload);
  if (extra !== undefined || !payload || !signatureBytes || !payloadBytes || token.length > 1_000) return { ok: false, reason: "malformed" };
  const valid = await crypto.subtle.verify("HMAC", await signingKey(secret), signatureBytes, encoder.encode(payload));
  if (!valid) return { ok: false, reason: "malformed" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(payloadBytes));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const claims = parsed as { c?: unknown; e?: unknown };
  if (typeof claims.c !== "string" || typeof claims.e !== "number") return { ok: false, reason: "malformed" };
  if (claims.e * 1000 <= now) return { ok: false, reason: "expired" };
  return { ok: true, callId: claims.c, expiresAt: claims.e * 1000 };
}

/** The URL for a call: absolute when the gateway knows its public origin, else the path. */
/**
 * The callback URL of a call: it expires with the call (`expiresAt`, ISO), or
 * `callbackLifetimeMs` after it is issued when the call has no expiry.
 */
export async function callbackUrl(secret: string, origin: string | undefined, callId: string, expiresAt: string | null | undefined): Promise<string> {
  const until = expiresAt ? Date.parse(expiresAt) : Date.now() + callbackLifetimeMs;
  const path = `${callbackPath}${await signCallbackToken(secret, callId, until)}`;
  return origin ? `${origin.replace(/\/+$/, "")}${path}` : path;
}
