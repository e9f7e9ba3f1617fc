/**
 * The deadlines the tool engine keeps in its agent's alarm table: a sync
 * wait's backstop, a pending call's expiry and a remote A2A task's next poll. The agent object's deadline
 * union is made of these, a webhook's next attempt (`webhooks/webhook-deadline.ts`)
 * and its own.
 */
import { z } from "zod";

const toolCall = z.object({ toolCallId: z.string() });

export const ToolTimeoutDeadline = z.object({ id: z.string(), kind: z.literal("tool_timeout"), dueAt: z.number(), payload: toolCall });
export const CallExpiryDeadline = z.object({ id: z.string(), kind: z.literal("call_expiry"), dueAt: z.number(), payload: toolCall });
export type ToolDeadline = z.infer<typeof ToolTimeoutDeadline> | z.infer<typeof CallExpiryDeadline> | z.infer<typeof A2aPollDeadline>;

/**
 * A call to a remote A2A agent whose task is still under way: polled
 * (`GetTask`) from the alarm when no cycle waits on it, until it finishes
 * or the call expires at `expiresAt`. The provider's headers are read from
 * the agent's config each time, never kept here.
 */
export const A2aPollDeadline = z.object({
  id: z.string(),
  kind: z.literal("a2a_poll"),
  dueAt: z.number(),
  payload: z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    provider: z.string(),
    endpoint: z.string(),
    remoteTaskId: z.string(),
    startedAt: z.number(),
    expiresAt: z.number(),
    /** The wait before the next poll (doubling up to a bound), and the state the task was last seen in. */
    delayMs: z.number(),
    state: z.string(),
  }),
});
export type A2aPollDeadline = z.infer<typeof A2aPollDeadline>;
