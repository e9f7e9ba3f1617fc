/**
 * Reads JSON bodies for every write route before validation: a documented size
 * limit (413), a JSON content type (415), valid JSON (400) and no
 * prototype-polluting keys (400). The body is read with a running byte count,
 * so an oversized body (whatever its declared length) is refused without being
 * buffered whole; the bytes read are handed on to the route's zod validator.
 */
import type { MiddlewareHandler } from "hono";
import { maxDocumentBytes } from "../agents/portable/agent-document";
import { ApiError } from "../errors";
import { parseJsonSafely } from "../json";
import { type LimitedBody, readLimitedBody } from "../security/read-limited-body";
import type { ApiEnv } from "./context";

/** Bodies above this many bytes are refused with 413 (agent configs are the largest). */
export const maxBodyBytes = 256 * 1024;

/** An imported agent document carries notes too: that one route reads more. */
function bodyLimitOf(method: string, path: string): number {
  return method === "POST" && path === "/api/agents/import" ? maxDocumentBytes : maxBodyBytes;
}

/** The media types the routes' validators accept (the same rule as @hono/zod-openapi's). */
const jsonMediaType = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

export const requestBody: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const method = c.req.method;
  if (method !== "POST" && method !== "PUT" && method !== "PATCH") return next();
  const limit = bodyLimitOf(method, c.req.path);
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  if (!jsonMediaType.test(c.req.header("content-type") ?? "")) {
    throw new ApiError(415, "unsupported_media_type", "Send the body as JSON with Content-Type: application/json");
  }
  const text = await readLimitedText(c.req.raw.body, limit);
  if (text.trim() === "") throw new ApiError(400, "invalid_json", "The body is empty; send a JSON object");
  const parsed = parseJsonSafely(text);
  if (!parsed.ok) throw new ApiError(400, parsed.code, parsed.message);
  if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
    throw new ApiError(400, "invalid_body", "The body must be a JSON object");
  }
  c.req.raw = new Request(c.req.raw, { body: text });
  return next();
};

async function readLimitedText(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  let read: LimitedBody;
  try {
    read = await readLimitedBody(body, { maxBytes: limit });
  } catch {
    throw new ApiError(400, "invalid_body", "The body could not be read to the end");
  }
  if (!read.ok) throw tooLarge(limit);
  return new TextDecoder().decode(read.bytes);
}

function tooLarge(limit: number): ApiError {
  return new ApiError(413, "payload_too_large", `Bodies are limited to ${limit} bytes`);
}
