/**
 * Signed, expiring links to files the gateway keeps in R2 (what file tools
 * wrote, generated images): `/api/files/download?key=…&space=…&expires=…&signature=…`.
 * The signature is an HMAC-SHA256 over the key, the space the link was made
 * for and its expiry, with `FILE_LINK_SECRET` (or, when that is not set, a
 * key derived from `GATEWAY_SECRET_KEY` for this one purpose). The link names
 * no credential: the route still wants the secret key or a member of the
 * space, and a link that was tampered with or has expired is refused.
 */
import { constantTimeEqual } from "../auth/constant-time-equal";
import { derivePurposeKey, importHmacKey } from "./hmac-key";

export const fileLinkPath = "/api/files/download";
/** Longest a link may live (images posted in a space get this). */
export const maxFileLinkSeconds = 30 * 24 * 3600;

const encoder = new TextEncoder();

/** `FILE_LINK_SECRET`, or else a key derived from `GATEWAY_SECRET_KEY` for file links only. */
async function signingKey(env: Record<string, unknown>): Promise<CryptoKey> {
  const own = env.FILE_LINK_SECRET;
  if (typeof own === "string" && own !== "") return importHmacKey(own);
  const root = env.GATEWAY_SECRET_KEY;
  if (typeof root !== "string" || root === "") throw new Error("No secret to sign file links with (set FILE_LINK_SECRET or GATEWAY_SECRET_KEY)");
  return derivePurposeKey(root, "switchboard/file-links/v1");
}

async function signature(env: Record<string, unknown>, key: string, spaceId: string, expires: number): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await signingKey(env), encoder.encode(`v1\n${key}\n${spaceId}\n${expires}`));
  return [...new Uint8Array(mac)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

export type FileLink = { url: string; expiresAt: string };

/** A link (path and query, relative to the gateway) to `key` for the members of `spaceId`, valid `seconds`. */
export async function signFileLink(env: Record<string, unknown>, input: { key: string; spaceId: string; seconds: number; now?: number }): Promise<FileLink> {
  const expires = Math.floor((input.now ?? Date.now()) / 1000) + Math.min(Math.max(1, Math.floor(input.seconds)), maxFileLinkSeconds);
  const query = new URLSearchParams({ key: input.key, space: input.spaceId, expires: String(expires), signature: await signature(env, input.key, input.spaceId, expires) });
  return { url: `${fileLinkPath}?${query.toString()}`, expiresAt: new Date(expires * 1000).toISOString() };
}

export type LinkCheck = { ok: true; key: string; spaceId: string } | { ok: false; reason: "expired" | "invalid" };

export async function verifyFileLink(env: Record<string, unknown>, input: { key: string; space: string; expires: number; signature: string; now?: number }): Promise<LinkCheck> {
  if (!/^[0-9a-f]{64}$/.test(input.signature)) return { ok: false, reason: "invalid" };
  const expected = await signature(env, input.key, input.space, input.expires);
  if (!(await constantTimeEqual(input.signature, expected))) return { ok: false, reason: "invalid" };
  if (input.expires * 1000 < (input.now ?? Date.now())) return { ok: false, reason: "expired" };
  return { ok: true, key: input.key, spaceId: input.space };
}
