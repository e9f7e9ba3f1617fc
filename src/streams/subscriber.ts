/**
 * Who a live connection is for: the audience (what it may see), the entity
 * behind a JWT, and when that token expires. Kept in a WebSocket's attachment
 * so it survives hibernation, and parsed when read back, like anything stored.
 */
import { z } from "zod";

export const Subscriber = z.object({
  audience: z.enum(["secret", "public"]),
  entityId: z.string().optional(),
  /** ms since the epoch; the connection closes then (public connections always have one). */
  expiresAt: z.number().int().positive().optional(),
});

export type Subscriber = z.infer<typeof Subscriber>;
export type Audience = Subscriber["audience"];

/** The WebSocket close code for a connection whose token expired (4001, like HTTP 401). */
export const tokenExpiredCloseCode = 4001;

/**
 * True when the connection may no longer receive anything: its token has
 * expired, or it is public and carries no expiry (an attachment from before
 * expiries were kept: fail closed, the client reconnects with a fresh token).
 */
export function isExpired(subscriber: Subscriber, now: number): boolean {
  if (subscriber.expiresAt !== undefined) return subscriber.expiresAt <= now;
  return subscriber.audience === "public";
}

/**
 * When to look for expired connections next, if a timer is worth setting: the
 * earliest expiry, but only within `horizonMs`. A pending timer keeps a Durable
 * Object from hibernating, so a far-off expiry gets no timer; after the object
 * wakes, every send checks the expiry first.
 */
export function nextExpiryCheckAt(subscribers: Iterable<Subscriber>, now: number, horizonMs: number): number | undefined {
  let earliest: number | undefined;
  for (const subscriber of subscribers) {
    if (subscriber.expiresAt !== undefined && (earliest === undefined || subscriber.expiresAt < earliest)) earliest = subscriber.expiresAt;
  }
  return earliest !== undefined && earliest - now <= horizonMs ? earliest : undefined;
}
