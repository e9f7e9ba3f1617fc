/**
 * Progress notifications for a tool call that waits: sent on the request's
 * own stream when the client asked for them (a `progressToken` in the
 * call's `_meta`), nothing otherwise. A notification that cannot be sent
 * (the client went away) never fails the call.
 */
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export function progressReporter(extra: ToolExtra): (message: string) => Promise<void> {
  const progressToken = extra._meta?.progressToken;
  let progress = 0;
  return async (message) => {
    if (progressToken === undefined) return;
    progress += 1;
    try {
      await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress, message } });
    } catch (error) {
      console.warn("a progress notification could not be sent", error);
    }
  };
}

/**
 * The caller's trace context for what a tool call starts: `_meta.traceparent`
 * of the MCP request (where MCP carries it), else the HTTP request's
 * `traceparent` header; checked where it is used (`traceparentOf`).
 */
export function callerTraceparent(extra: ToolExtra, header: string | undefined): string | undefined {
  const fromMeta = extra._meta?.traceparent;
  return typeof fromMeta === "string" ? fromMeta : header;
}
