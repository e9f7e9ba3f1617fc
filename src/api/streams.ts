/**
 * `GET /api/spaces/:spaceId/stream`: WebSocket upgrade, or SSE with
 * `Accept: text/event-stream`. The Worker authenticates and checks
 * membership; the SpaceDO serves the connection.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Principal } from "../auth/principal";
import { getDatabase } from "../db/client";
import { getSpace } from "../db/spaces";
import { ApiError, notFound } from "../errors";
import { spaceStub } from "../spaces/space-stub";
import { parseAfterSeq, subscriberHeaders } from "../streams/open-stream";
import { requireSpaceAccess } from "./authorize";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { SpaceEvent } from "./event-schemas";
import { errorResponses, jsonContent, ErrorResponse, SpaceIdParam } from "./schemas";

/** `?afterSeq=`: parsed by `parseAfterSeq` (a malformed one is `invalid_query`), so the schema only describes it. */
export const AfterSeqParam = z
  .string()
  .optional()
  .openapi({
    param: { name: "afterSeq", in: "query" },
    type: "integer",
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: "Replay events after this seq (past the last event: 400 after_seq_out_of_range)",
  });

const StreamQuery = z.object({
  afterSeq: AfterSeqParam,
});

/** Builds the request a Durable Object serves a stream from, with the caller's audience. */
export function streamRequest(request: Request, principal: Principal, extraHeaders: Record<string, string>): Request {
  const headers = new Headers();
  for (const name of ["upgrade", "connection", "accept", "last-event-id", "sec-websocket-key", "sec-websocket-version", "sec-websocket-protocol", "sec-websocket-extensions"]) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  headers.set(subscriberHeaders.audience, principal.kind === "secret" ? "secret" : "public");
  if (principal.kind === "entity") {
    headers.set(subscriberHeaders.entityId, principal.entityId);
    headers.set(subscriberHeaders.expiresAt, String(principal.expiresAt));
  }
  for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
  return new Request(request.url, { method: "GET", headers });
}

export function checkStreamRequest(request: Request): void {
  const afterSeq = parseAfterSeq(new URL(request.url).searchParams.get("afterSeq"));
  if (!afterSeq.ok) throw new ApiError(400, "invalid_query", afterSeq.message);
  const isWebSocket = request.headers.get("upgrade")?.toLowerCase() === "websocket";
  if (!isWebSocket && !request.headers.get("accept")?.includes("text/event-stream")) {
    throw new ApiError(426, "upgrade_required", "Open this route as a WebSocket, or with Accept: text/event-stream for SSE");
  }
}

export const streamRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/api/spaces/{spaceId}/stream",
    tags: ["streams"],
    ...routeAccess("secret-or-member", { queryCredentials: true }),
    description:
      "Live space events (each one a SpaceEvent). WebSocket upgrade, or SSE when Accept: text/event-stream. Replays events after afterSeq (the newest 5,000 are kept), then live.",
    request: { params: SpaceIdParam, query: StreamQuery },
    responses: {
      101: { description: "WebSocket: one JSON event per text frame" },
      200: { description: "SSE: `id: <seq>` and `data: <event JSON>` per event", content: { "text/event-stream": { schema: SpaceEvent } } },
      426: jsonContent(ErrorResponse, "Neither a WebSocket upgrade nor an SSE request"),
      ...errorResponses,
    },
  }),
  async (c) => {
    const { spaceId } = c.req.valid("param");
    const principal = c.get("caller");
    await requireSpaceAccess(c.env, principal, spaceId);
    if (!(await getSpace(getDatabase(c.env.DB), spaceId))) throw notFound("Space", spaceId);
    checkStreamRequest(c.req.raw);
    // The Durable Object answers with a 101 or an SSE body; hand it through untouched.
    return spaceStub(c.env, spaceId).fetch(streamRequest(c.req.raw, principal, {})) as unknown as ReturnType<typeof c.json>;
  },
);
