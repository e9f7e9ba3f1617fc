/**
 * JSON-RPC 2.0 as the A2A face speaks it: requests read from a body, results
 * and errors written, and the error codes the protocol gives its own
 * failures (task not found, not cancelable, push notifications, version).
 */
import { z } from "zod";

export const rpcErrorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  extendedCardNotConfigured: -32007,
  versionNotSupported: -32009,
} as const;

/** A failure the face answers as a JSON-RPC error (never thrown past the dispatcher). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type RpcId = string | number | null;

export const RpcRequest = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string().max(200), z.number(), z.null()]).optional(),
  method: z.string().min(1).max(100),
  params: z.unknown().optional(),
});
export type RpcRequest = z.infer<typeof RpcRequest>;

export function rpcResult(id: RpcId, result: unknown) {
  return { jsonrpc: "2.0" as const, id, result };
}

export function rpcError(id: RpcId, error: RpcError) {
  return { jsonrpc: "2.0" as const, id, error: { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) } };
}

/** Zod's issues as the protocol's invalid-params error: each path and what is wrong there. */
export function invalidParams(issues: readonly z.core.$ZodIssue[]): RpcError {
  const violations = issues.slice(0, 20).map((issue) => ({ field: issue.path.join("."), description: issue.message }));
  const summary = violations.map((violation) => `${violation.field || "params"}: ${violation.description}`).join("; ");
  return new RpcError(rpcErrorCodes.invalidParams, `Invalid parameters: ${summary}`, [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: violations }]);
}

export function taskNotFound(taskId: string): RpcError {
  return new RpcError(rpcErrorCodes.taskNotFound, `Task "${taskId}" not found`);
}
