/**
 * The one error the SDK throws: the gateway's error envelope
 * (`{"error": {"code", "message", "details?"}}`) with the HTTP status, or a
 * client-side failure (`network_error`, `timeout`, `aborted`) with status 0.
 */
import type { components } from "./generated/openapi.js";

/**
 * Every code the gateway answers with: its OpenAPI document's `ErrorCode`
 * enum, generated from the gateway's one list (docs/api.md says when each
 * comes).
 */
export type GatewayErrorCode = components["schemas"]["ErrorCode"];

/** The SDK's own: no answer came (status 0), or the answer was not the error envelope (`http_<status>`). */
export type ClientErrorCode = "network_error" | "timeout" | "aborted" | `http_${number}`;

/** A gateway's code or the SDK's own. A gateway newer than this SDK may send a code it does not list yet, so any string may come. */
export type ErrorCode = GatewayErrorCode | ClientErrorCode | (string & {});

export class SwitchboardError extends Error {
  override readonly name = "SwitchboardError";
  /** The HTTP status; 0 when no answer came (network, timeout, abort). */
  readonly status: number;
  readonly code: ErrorCode;
  /** For `validation_error`: `{path, message}` per problem. */
  readonly details?: unknown;
  /** What was asked, e.g. `POST /api/spaces`. */
  readonly request?: string;

  constructor(options: { status: number; code: ErrorCode; message: string; details?: unknown; request?: string; cause?: unknown }) {
    super(options.request ? `${options.message} (${options.request} → ${options.status || options.code})` : options.message, { cause: options.cause });
    this.status = options.status;
    this.code = options.code;
    this.details = options.details;
    this.request = options.request;
  }

  /** The error for a non-2xx answer whose body may or may not be the envelope. */
  static fromResponse(status: number, body: unknown, request?: string): SwitchboardError {
    if (isErrorEnvelope(body)) {
      return new SwitchboardError({ status, code: body.error.code, message: body.error.message, details: body.error.details, request });
    }
    const text = typeof body === "string" && body.length > 0 ? `: ${body.slice(0, 200)}` : "";
    return new SwitchboardError({ status, code: `http_${status}`, message: `HTTP ${status} without an error envelope${text}`, request });
  }

  static network(cause: unknown, request?: string): SwitchboardError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    if (cause instanceof Error && cause.name === "AbortError") return new SwitchboardError({ status: 0, code: "aborted", message: "The request was aborted", request, cause });
    if (cause instanceof Error && cause.name === "TimeoutError") return new SwitchboardError({ status: 0, code: "timeout", message: "The request timed out", request, cause });
    return new SwitchboardError({ status: 0, code: "network_error", message: `Could not reach the gateway: ${reason}`, request, cause });
  }
}

/** An error envelope as it comes over the wire: its code checked to be a string, which may be one this SDK does not list. */
export type ReceivedErrorEnvelope = { error: { code: ErrorCode; message: string; details?: unknown } };

export function isErrorEnvelope(value: unknown): value is ReceivedErrorEnvelope {
  if (typeof value !== "object" || value === null || !("error" in value)) return false;
  const error = (value as { error: unknown }).error;
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string" && typeof (error as { message?: unknown }).message === "string";
}
