/**
 * A push's next attempt (a pushed tool call, or an event to a subscription),
 * kept in the agent's alarm table so that a fresh instance, or the alarm,
 * carries the delivery on; and where the sender keeps it.
 */
import { z } from "zod";

export const WebhookDeadline = z.object({
  id: z.string(),
  kind: z.literal("webhook"),
  dueAt: z.number(),
  payload: z.object({
    /** A pushed tool call (`execution.webhook`): retries stop once the call is settled. */
    toolCallId: z.string().optional(),
    /** A subscription's delivery: its secret is read again before each attempt (a deleted subscription stops). */
    subscriptionId: z.string().optional(),
    /** An A2A task's push notification config (`a2a-task-push.ts`): read again before each attempt; its credentials stay in D1. */
    a2aPush: z.object({ taskId: z.string(), configId: z.string() }).optional(),
    /** The Standard Webhooks `webhook-id` (the same on every attempt); a tool call's id when not set. */
    messageId: z.string().optional(),
    url: z.string(),
    body: z.string(),
    attempt: z.number().int(),
    /** When the first attempt was made (a dead letter says so). */
    firstAttemptAt: z.number().optional(),
    /** A pushed call's deadline: its `expiresAt`, or a day after its first attempt. */
    giveUpAt: z.number().optional(),
    /** A redelivery an operator started from this dead letter. */
    deadLetterId: z.string().optional(),
    lastError: z.string().optional(),
    /** The W3C `traceparent` of the call's span, sent on every attempt. */
    traceparent: z.string().max(64).optional(),
    /** The delivery is over; what it left to D1 (its dead letter, or a redelivery that got through) is written until it lands. */
    ended: z.discriminatedUnion("outcome", [z.object({ outcome: z.literal("delivered") }), z.object({ outcome: z.literal("dead"), error: z.string() })]).optional(),
  }),
});

export type WebhookDeadline = z.infer<typeof WebhookDeadline>;

/** Where the sender keeps its deadlines (the agent object's table). */
export type DeadlineStore = { setDeadline(deadline: WebhookDeadline): void; deleteDeadline(id: string): void; getDeadline(id: string): { kind: string } | undefined };
