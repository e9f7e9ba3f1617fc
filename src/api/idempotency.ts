/**
 * `Idempotency-Key` on the writes a client may retry (docs/api.md; the IETF
 * httpapi draft's semantics): the first answer to a key is kept for 24 hours
 * and replayed for the same key and body; the same key with a different body
 * is 422; a retry while the first request is still being answered is 409.
 * Records a write creates take ids derived from the key, so a first request
 * that died half-way (its answer never recorded) is taken over by the retry
 * after a short while, and the retry finds what the first one wrote instead
 * of writing it twice.
 */
import { and, eq, isNull, lt } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { getDatabase } from "../db/client";
import { idempotencyKeys } from "../db/schema";
import { ApiError } from "../errors";
import type { ApiEnv } from "./context";

export const idempotencyKeyHeader = "idempotency-key";
/** Printable ASCII without spaces, as the draft recommends for opaque keys. */
const keyPattern = /^[\x21-\x7e]{1,255}$/;
export const idempotencyRetentionMs = 24 * 3600 * 1000;
/**
 * A first request silent this long is taken to have died; a retry takes its
 * key over. Taking over one that is merely slow is safe too: both write under
 * the same derived ids, and the second finds what the first wrote.
 */
export const inFlightTakeoverMs = 5_000;

const encoder = new TextEncoder();

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

export const idempotency: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const key = c.req.header(idempotencyKeyHeader);
  if (key === undefined) return next();
  if (!keyPattern.test(key)) {
    throw new ApiError(400, "invalid_idempotency_key", "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces");
  }
  const principal = c.get("principal");
  const scope = `${principal.kind === "entity" ? principal.entityId : principal.kind} ${c.req.method} ${c.req.path}`;
  const fingerprint = await sha256Hex(await c.req.raw.clone().text());
  const database = getDatabase(c.env.DB);
  const now = Date.now();
  const [, claimed] = await database.batch([
    database.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, now - idempotencyRetentionMs)),
    database
      .insert(idempotencyKeys)
      .values({ scope, key, fingerprint, status: null, response: null, createdAt: now })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key }),
  ]);
  if (claimed.length === 0) {
    const existing = await database
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)))
      .get();
    if (existing && existing.fingerprint !== fingerprint) {
      throw new ApiError(422, "idempotency_key_reused", "This Idempotency-Key was used with a different body; use a new key for a new request");
    }
    if (existing?.status != null) {
      return new Response(existing.response, { status: existing.status, headers: { "content-type": "application/json", "idempotent-replayed": "true" } });
    }
    const taken =
      existing &&
      now - existing.createdAt >= inFlightTakeoverMs &&
      (await database
        .update(idempotencyKeys)
        .set({ createdAt: now })
        .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), eq(idempotencyKeys.createdAt, existing.createdAt), isNull(idempotencyKeys.status)))
        .returning({ key: idempotencyKeys.key })
        .get());
    if (!taken) {
      c.header("retry-after", "1");
      throw new ApiError(409, "idempotency_key_in_use", "A request with this Idempotency-Key is still being answered; retry in a moment");
    }
  }

  const derived = await sha256Hex(`${scope}\n${key}`);
  c.set("idempotency", { deriveId: (prefix) => `${prefix}_${derived.slice(0, 32)}` });
  await next();
  const ok = c.res.status >= 200 && c.res.status < 300;
  const where = and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));
  try {
    if (ok)
      await database
        .update(idempotencyKeys)
        .set({ status: c.res.status, response: await c.res.clone().text() })
        .where(where);
    // A failed request leaves nothing to replay: the client may fix it and send it again with the same key.
    else await database.delete(idempotencyKeys).where(where);
  } catch (error) {
    // The write itself succeeded; a retry with this key will take the record over and find what it wrote.
    console.error("could not record an idempotent answer", error);
  }
};
