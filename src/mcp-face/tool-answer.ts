/**
 * How a face tool answers: structured content plus the same value as text
 * (clients that only read text see everything), or a tool error. An
 * `ApiError` a REST helper threw becomes a tool error carrying its code and
 * message (the same words the route would answer with); anything else is
 * logged and answered as an internal error, never shown raw.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError, type ErrorCode } from "../errors";

export function toolAnswer(value: Record<string, unknown>, summary?: string): CallToolResult {
  const text = JSON.stringify(value, null, 2);
  return { structuredContent: value, content: [{ type: "text", text: summary ? `${summary}\n${text}` : text }] };
}

/**
 * A tool error's code: one the REST routes answer with, or one only a face
 * tool gives (`ask_agent`: the deadline passed, the run failed, the wait was
 * cancelled or its stream closed; the run itself goes on in each case).
 */
export type FaceErrorCode = ErrorCode | "deadline_exceeded" | "run_failed" | "cancelled" | "stream_closed";

export function toolError(code: FaceErrorCode, message: string, details?: Record<string, unknown>): CallToolResult {
  const error = { code, message, ...details };
  return { isError: true, structuredContent: { error }, content: [{ type: "text", text: `${code}: ${message}` }] };
}

/** Runs a tool's work; an `ApiError` is the tool error it describes. */
export async function answering(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) return toolError(error.code, error.message);
    console.error("an MCP face tool failed", error);
    return toolError("internal_error", "Something went wrong on our side");
  }
}
