/**
 * `POST /a2a/callbacks/:token`: where a remote A2A agent pushes updates
 * about a task one of the gateway's calls follows (the `a2a` tool provider
 * hands this URL out as the task's push notification config). The signed,
 * expiring token names the call, as a callback URL's does; the body is not
 * read (an update rarely carries the answer): the push only makes the
 * agent object look at the task now, and a finished task settles the call.
 * Not in the OpenAPI document: it is for remote agents, not API clients.
 */
import { agentStub } from "../agents/agent-stub";
import type { ApiContext } from "../api/context";
import { getDatabase } from "../db/client";
import { ApiError, unauthorized } from "../errors";
import { verifyCallbackToken } from "../security/callback-token";
import { getPendingCall } from "../tools";

export async function receiveRemotePush(c: ApiContext): Promise<Response> {
  const verified = await verifyCallbackToken(c.env.WEBHOOK_SECRET, c.req.param("token") ?? "");
  if (!verified.ok && verified.reason === "expired") throw new ApiError(410, "callback_expired", "This push URL has expired");
  if (!verified.ok) throw unauthorized("Not a valid push URL");
  const call = await getPendingCall(getDatabase(c.env.DB), verified.callId);
  if (call === undefined || call.executionType !== "a2a") throw new ApiError(404, "not_found", "The call this push URL follows no longer exists");
  await c.req.raw.body?.cancel();
  const { followed } = await agentStub(c.env, call.agentId).a2aPushed(call.toolCallId, new URL(c.req.url).origin);
  return c.json({ received: true, followed }, 200);
}
