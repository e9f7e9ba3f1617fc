/**
 * The one HTTP error class. `app.onError` turns it into the contract's envelope:
 * `{"error": {"code": "snake_case_code", "message": "…"}}`.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export type ErrorEnvelope = { error: { code: string; message: string; details?: unknown } };

export function errorEnvelope(code: string, message: string, details?: unknown): ErrorEnvelope {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

export const notFound = (what: string, id: string) => new ApiError(404, "not_found", `${what} "${id}" not found`);
export const forbidden = (message: string) => new ApiError(403, "forbidden", message);
export const unauthorized = (message: string) => new ApiError(401, "unauthorized", message);
