/**
 * The one HTTP error class and every code the gateway answers with.
 * `app.onError` turns an `ApiError` into the error envelope
 * `{"error": {"code": "snake_case_code", "message": "…"}}`; streams, the
 * health route and the objects' answers build the same envelope with
 * `errorEnvelope`. `errorCodes` is the one list: the OpenAPI document's
 * `ErrorCode` enum, the client SDK's `GatewayErrorCode` and docs/api.md's
 * table come from it (tests hold the last two to it).
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";

export const errorCodes = [
  // 400: the request itself
  "validation_error",
  "invalid_json",
  "invalid_body",
  "forbidden_key",
  "too_deep",
  "invalid_query",
  "after_seq_out_of_range",
  "invalid_result",
  "invalid_idempotency_key",
  "invalid_hop",
  // 400: an OAuth callback the authorization server sent wrong (docs/accounts.md)
  "missing_code",
  "issuer_mismatch",
  "authorization_error",
  // 401, 403: who is asking
  "unauthorized",
  "forbidden",
  "invalid_link",
  "authorization_denied",
  "wrong_browser",
  // 404
  "not_found",
  "route_not_found",
  // 409, 410: the state of what is asked about
  "conflict",
  "limit_reached",
  "idempotency_key_in_use",
  "gone",
  "callback_expired",
  "link_expired",
  "flow_used",
  "flow_expired",
  // 413, 415, 422, 426
  "payload_too_large",
  "unsupported_media_type",
  "invalid_answer",
  "idempotency_key_reused",
  "export_too_large",
  "export_refused",
  "upgrade_required",
  // 5xx
  "internal_error",
  "http_error",
  "stream_failed",
  "agent_unavailable",
  "import_failed",
  "misconfigured",
  "loop_detected",
  "token_request_failed",
  // Stream frames (an open WebSocket or SSE stream, not an HTTP status)
  "invalid_frame",
  "frame_too_large",
  "token_expired",
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export type ErrorEnvelope<Code extends ErrorCode = ErrorCode> = { error: { code: Code; message: string; details?: unknown } };

export function errorEnvelope<Code extends ErrorCode>(code: Code, message: string, details?: unknown): ErrorEnvelope<Code> {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

export const notFound = (what: string, id: string) => new ApiError(404, "not_found", `${what} "${id}" not found`);
export const forbidden = (message: string) => new ApiError(403, "forbidden", message);
export const unauthorized = (message: string) => new ApiError(401, "unauthorized", message);
