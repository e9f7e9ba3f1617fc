/**
 * The events a webhook subscription can ask for (Standard Webhooks: each push
 * is `{type, timestamp, data}` with `webhook-id` the event's id, the same on
 * every attempt and to every subscriber, so receivers dedupe on it).
 */
import { z } from "zod";

export const webhookEventTypes = ["call.awaiting_input", "call.expired", "run.completed", "run.failed"] as const;
export const WebhookEventType = z.enum(webhookEventTypes);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

export const WebhookEvent = z.object({
  /** `evt_…`, derived from what happened (the call or run and the event type): emitted again after a restart, it is the same event. */
  id: z.string(),
  type: WebhookEventType,
  timestamp: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/** The body a subscriber receives. */
export const webhookBody = (event: WebhookEvent): string => JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
