/**
 * Serves a stream request inside a Durable Object: a WebSocket upgrade, or SSE
 * when the client accepts `text/event-stream`; replays events after
 * `?afterSeq=N` and continues live.
 */
import { errorEnvelope } from "../errors";
import type { Audience, ConnectionHub } from "./connection-hub";
import type { StreamLog } from "./event-log";

export const subscriberHeaders = {
  audience: "x-switchboard-audience",
  entityId: "x-switchboard-entity-id",
} as const;

function errorResponse(status: number, code: string, message: string): Response {
  return Response.json(errorEnvelope(code, message), { status });
}

/** `afterSeq` as given in a query string: absent, or a non-negative integer. */
export function parseAfterSeq(value: string | null): { ok: true; value: number | undefined } | { ok: false; message: string } {
  if (value === null || value === "") return { ok: true, value: undefined };
  if (!/^\d{1,15}$/.test(value)) return { ok: false, message: "afterSeq must be a non-negative integer" };
  return { ok: true, value: Number(value) };
}

export function openStream(request: Request, log: StreamLog, hub: ConnectionHub): Response {
  const url = new URL(request.url);
  const audience: Audience = request.headers.get(subscriberHeaders.audience) === "public" ? "public" : "secret";
  const entityId = request.headers.get(subscriberHeaders.entityId) ?? undefined;
  // EventSource reconnects send Last-Event-ID: resume from there.
  const afterSeq = parseAfterSeq(url.searchParams.get("afterSeq") ?? request.headers.get("last-event-id"));
  if (!afterSeq.ok) return errorResponse(400, "invalid_query", afterSeq.message);
  if (afterSeq.value !== undefined && afterSeq.value > log.lastSeq) {
    return errorResponse(
      400,
      "after_seq_out_of_range",
      `afterSeq ${afterSeq.value} is beyond the last event (seq ${log.lastSeq})`,
    );
  }
  const replay = afterSeq.value === undefined ? [] : log.framesAfter(afterSeq.value, audience);
  const subscriber = { audience, entityId };
  if (request.headers.get("upgrade")?.toLowerCase() === "websocket") return hub.acceptWebSocket(subscriber, replay);
  if (request.headers.get("accept")?.includes("text/event-stream")) return hub.openSse(subscriber, replay);
  return errorResponse(426, "upgrade_required", "Open this route as a WebSocket, or with Accept: text/event-stream for SSE");
}
