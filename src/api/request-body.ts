/**
 * Reads JSON bodies for every write route before validation: a documented size
 * limit (413), a JSON content type (415), valid JSON (400) and no
 * prototype-polluting keys (400). The text is cached on the request so the
 * route's zod validator parses the same bytes.
 */
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors";
import { byteLength, parseJsonSafely } from "../json";
import type { ApiEnv } from "./context";

/** Bodies above this many bytes are refused with 413 (agent configs are the largest). */
export const maxBodyBytes = 256 * 1024;

export const requestBody: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const method = c.req.method;
  if (method !== "POST" && method !== "PUT" && method !== "PATCH") return next();
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > maxBodyBytes) throw tooLarge();
  const contentType = c.req.header("content-type") ?? "";
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    throw new ApiError(415, "unsupported_media_type", "Send the body as JSON with Content-Type: application/json");
  }
  const text = await c.req.text();
  if (byteLength(text) > maxBodyBytes) throw tooLarge();
  if (text.trim() === "") throw new ApiError(400, "invalid_json", "The body is empty; send a JSON object");
  const parsed = parseJsonSafely(text);
  if (!parsed.ok) throw new ApiError(400, parsed.code, parsed.message);
  if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
    throw new ApiError(400, "invalid_body", "The body must be a JSON object");
  }
  return next();
};

function tooLarge(): ApiError {
  return new ApiError(413, "payload_too_large", `Bodies are limited to ${maxBodyBytes} bytes`);
}
