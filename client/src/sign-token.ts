/**
 * HS256 JWTs for the gateway (docs/api.md, "Auth details"): `sub` = the entity
 * id, `exp` required. For servers that hold `JWT_SECRET` and hand tokens to
 * their people and services. Web Crypto only, so it runs in Node 20+, Workers
 * and Deno.
 */
import { base64ToBytes, bytesToBase64Url } from "./base64.js";
import { importHmacKey } from "./hmac-key.js";

const encoder = new TextEncoder();

export type SignTokenOptions = {
  /** The gateway's `JWT_SECRET`. */
  secret: string;
  /** Seconds, or a duration like `"15m"`, `"12h"`, `"7d"`. Default one hour. */
  expiresIn?: number | string;
  /** Extra claims (never `sub` or `exp`). */
  claims?: Record<string, unknown>;
  /** Unix seconds to count from (tests). */
  now?: number;
};

const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration in seconds from a number or `"<n><s|m|h|d>"`. */
export function parseDuration(value: number | string): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value <= 0) throw new RangeError(`expiresIn must be a positive number of seconds, got ${value}`);
    return Math.floor(value);
  }
  const match = /^(\d+)\s*([smhd])?$/.exec(value.trim());
  if (!match) throw new RangeError(`expiresIn must look like 3600, "15m", "12h" or "7d", got "${value}"`);
  const seconds = Number(match[1]) * units[match[2] ?? "s"];
  if (seconds <= 0) throw new RangeError(`expiresIn must be positive, got "${value}"`);
  return seconds;
}

/** Signs a token that lets `entityId` act in its spaces until it expires. */
export async function signToken(entityId: string, options: SignTokenOptions): Promise<string> {
  if (!entityId) throw new TypeError("signToken needs the entity id (ent_…) the token acts as");
  if (!options?.secret) throw new TypeError("signToken needs the gateway's JWT_SECRET as `secret`");
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const payload = { ...options.claims, sub: entityId, iat: now, exp: now + parseDuration(options.expiresIn ?? 3600) };
  const header = bytesToBase64Url(encoder.encode(JSON.stringify({ alg: "HS256", typ: "JWT" })));
  const body = bytesToBase64Url(encoder.encode(JSON.stringify(payload)));
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", await importHmacKey(options.secret), encoder.encode(`${header}.${body}`)));
  return `${header}.${body}.${bytesToBase64Url(signature)}`;
}

/** The claims of a token, unverified (to show who it is for and when it expires). */
export function readTokenClaims(token: string): { sub?: string; exp?: number; [claim: string]: unknown } {
  const part = token.split(".")[1];
  if (!part) throw new TypeError("Not a JWT: expected three dot-separated parts");
  const bytes = base64ToBytes(part.replaceAll("-", "+").replaceAll("_", "/"));
  if (!bytes) throw new TypeError("Not a JWT: the payload is not base64url");
  const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
  if (typeof claims !== "object" || claims === null) throw new TypeError("Not a JWT: the payload is not an object");
  return claims as { sub?: string; exp?: number };
}
