/**
 * Serves a stream request inside a Durable Object: a WebSocket upgrade, or SSE
 * when the client accepts `text/event-stream`; replays events after
 * `?afterSeq=N` and continues live. Who the stream is for comes from headers
 * the Worker sets after authenticating; anything but a known audience is
 * refused (fails closed), and a public stream must carry its token's expiry.
 */
import { type ErrorCode, errorEnvelope } from "../errors";
import type { ConnectionHub, Subscriber } from "./connection-hub";
import type { StreamLog } from "./event-log";

export const subscriberHeaders = {
  audience: "x-switchboard-audience",
  entityId: "x-switchboard-entity-id",
  /** The token's expiry in ms since the epoch (public streams only). */
  expiresAt: "x-switchboard-expires-at",
} as const;

function errorResponse(status: number, code: ErrorCode, message: string): Response {
  return Response.json(errorEnvelope(code, message), { status });
}

/** `afterSeq` as given in a query string (or `Last-Event-ID`): absent, or a whole number from 0 to the largest safe integer. */
export function parseAfterSeq(value: string | null): { ok: true; value: number | undefined } | { ok: false; message: string } {
  if (value === null || value === "") return { ok: true, value: undefined };
  const seq = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(seq)) return { ok: false, message: `afterSeq must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}` };
  return { ok: true, value: seq };
}

/** The subscriber the Worker vouched for, or why the request is refused. */
export function readSubscriber(headers: Headers, now: number): { ok: true; subscriber: Subscriber } | { ok: false; response: Response } {
  const audience = headers.get(subscriberHeaders.audience);
  if (audience !== "secret" && audience !== "public") {
    return { ok: false, response: errorResponse(403, "forbidden", "This stream request does not say who it is for") };
  }
  const entityId = headers.get(subscriberHeaders.entityId) ?? undefined;
  if (audience === "secret") return { ok: true, subscriber: { audience, ...(entityId && { entityId }) } };
  const expiresAt = Number(headers.get(subscriberHeaders.expiresAt) ?? "");
  if (entityId === undefined || !Number.isSafeInteger(expiresAt) || expiresAt <= 0) {
    return { ok: false, response: errorResponse(403, "forbidden", "A public stream needs the entity and the expiry of its token") };
  }
  if (expiresAt <= now) return { ok: false, response: errorResponse(401, "unauthorized", "The token has expired") };
  return { ok: true, subscriber: { audience, entityId, expiresAt } };
}

export function openStream(request: Request, log: StreamLog, hub: ConnectionHub): Response {
  const url = new URL(request.url);
  const who = readSubscriber(request.headers, Date.now());
  if (!who.ok) return who.response;
  const { subscriber } = who;
  // EventSource reconnects send Last-Event-ID: resume from there.
  const afterSeq = parseAfterSeq(url.searchParams.get("afterSeq") ?? request.headers.get("last-event-id"));
  if (!afterSeq.ok) return errorResponse(400, "invalid_query", afterSeq.message);
  if (afterSeq.value !== undefined && afterSeq.value > log.lastSeq) {
    return errorResponse(400, "after_seq_out_of_range", `afterSeq ${afterSeq.value} is beyond the last event (seq ${log.lastSeq})`);
  }
  const replay = afterSeq.value === undefined ? [] : log.framesAfter(afterSeq.value, subscriber.audience);
  if (request.headers.get("upgrade")?.toLowerCase() === "websocket") return hub.acceptWebSocket(subscriber, replay);
  if (request.headers.get("accept")?.includes("text/event-stream")) return hub.openSse(subscriber, replay);
  return errorResponse(426, "upgrade_required", "Open this route as a WebSocket, or with Accept: text/event-stream for SSE");
}
