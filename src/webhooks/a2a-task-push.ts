/**
 * A2A push notifications: when a task (a run an agent's A2A face started)
 * changes state, each of its push notification configs gets the task POSTed
 * to its URL, as the protocol's `StreamResponse` (`{"task": {…}}`) with the
 * config's credentials (`Authorization: <scheme> <credentials>`, and its
 * token as `X-A2A-Notification-Token`). The changes are the agent's own
 * webhook events (a call waits on someone: `input-required`, or
 * `auth-required` for an account to connect; the run completed, failed, or
 * was canceled), so a push rides the notifier's durable fan-out and the
 * sender's retries like a subscription's event does.
 *
 * The task pushed carries its id, its conversation and its new status (the
 * question a waiting call asks, a failure's error); the whole task (the
 * answer artifact, the history) is read with `GetTask`.
 */
import type { Database } from "../db/client";
import { listPushConfigs } from "./a2a-push-configs";
import type { WebhookEvent } from "./webhook-event";

/** The reason a cancellation over A2A gives the run; a failed run with it reads as `canceled`. */
export const a2aCancelReason = "canceled by its A2A caller";

/** The header a config's `token` is sent in (the A2A SDKs' name for it). */
export const notificationTokenHeader = "x-a2a-notification-token";

export const a2aContentType = "application/a2a+json";

/** A push's target: the config is read again before each attempt (deleted: nothing more is sent). */
export type A2aPushTarget = { taskId: string; configId: string };

type Delivery = { messageId: string; url: string; body: string; attempt: number; a2aPush: A2aPushTarget };

/** The state an event puts a task in; undefined when it is not a change a push reports (an expiry: the run goes on). */
function stateOf(event: WebhookEvent): string | undefined {
  switch (event.type) {
    case "call.awaiting_input":
      return event.data.kind === "account" ? "TASK_STATE_AUTH_REQUIRED" : "TASK_STATE_INPUT_REQUIRED";
    case "run.completed":
      return "TASK_STATE_COMPLETED";
    case "run.failed":
      return typeof event.data.error === "string" && event.data.error.includes(a2aCancelReason) ? "TASK_STATE_CANCELED" : "TASK_STATE_FAILED";
    default:
      return undefined;
  }
}

/** What the status says besides its state: the question of a waiting call, the error of a failed run. */
function messageOf(event: WebhookEvent, taskId: string, contextId: string, state: string) {
  const { data } = event;
  const base = { contextId, taskId, role: "ROLE_AGENT" };
  if (event.type === "call.awaiting_input") {
    const toolName = String(data.toolName ?? "");
    const text =
      state === "TASK_STATE_AUTH_REQUIRED"
        ? `"${toolName}" waits for its person to connect their account; it goes on once they have.`
        : data.kind === "approval"
          ? `"${toolName}" needs an approval: answer on this task with a data part {"approved": true} or {"approved": false, "reason": "…"}.`
          : `"${toolName}" needs an answer: reply on this task with a data part (or text) that is its result.`;
    const question = { toolCallId: data.toolCallId, toolName, kind: data.kind, args: data.args, ...(typeof data.expiresAt === "string" && { expiresAt: data.expiresAt }) };
    return { ...base, messageId: `${String(data.toolCallId)}-asked`, parts: [{ text }, { data: question }] };
  }
  if (event.type === "run.failed" && typeof data.error === "string") return { ...base, messageId: `${taskId}-error`, parts: [{ text: data.error }] };
  return undefined;
}

/** The deliveries an event makes to the push configs of its task (none when it concerns no task, or the task has none). */
export async function a2aTaskPushes(database: Database, event: WebhookEvent): Promise<Delivery[]> {
  const taskId = event.data.runId;
  const state = stateOf(event);
  if (typeof taskId !== "string" || state === undefined) return [];
  const configs = await listPushConfigs(database, taskId);
  return configs.map((config) => {
    const message = messageOf(event, taskId, config.contextId, state);
    const task = { id: taskId, contextId: config.contextId, status: { state, ...(message && { message }), timestamp: event.timestamp } };
    return { messageId: event.id, url: config.url, body: JSON.stringify({ task }), attempt: 1, a2aPush: { taskId, configId: config.id } };
  });
}

/** The headers a config's credentials give a push. */
export function a2aPushHeaders(config: { token: string | null; authScheme: string | null; authCredentials: string | null }): Record<string, string> {
  return {
    "content-type": a2aContentType,
    ...(config.authScheme !== null && { authorization: config.authCredentials ? `${config.authScheme} ${config.authCredentials}` : config.authScheme }),
    ...(config.token !== null && { [notificationTokenHeader]: config.token }),
  };
}
