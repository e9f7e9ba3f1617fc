/**
 * The webhook delivery attempts the console keeps (no DOM here): each one
 * read from an agent stream's `webhook.*` event (a subscription's delivery)
 * or `tool.webhook.*` event (a pushed tool call), newest first by the time
 * the gateway reported it, at most `limit` of them. The streams replay their
 * history first and then go live, several at once, so an attempt can arrive
 * older than rows already shown: it goes in its place, or, when the list is
 * full and it is older than every row kept, nowhere.
 */
import type { AgentEvent } from "../../../client/src/index";

export type DeliveryOutcome = "delivered" | "failed" | "dead_lettered";

export type Delivery = {
  /** The agent whose stream reported it, and the event's seq there: together, one attempt's own key. */
  agentId: string;
  seq: number;
  /** When the gateway reported it (the stream event's `at`). */
  at: string;
  /** The stream event's type, e.g. `webhook.failed` or `tool.webhook.delivered`. */
  type: string;
  kind: "subscription" | "call";
  outcome: DeliveryOutcome;
  /** A subscription's delivery: its subscription. */
  subscriptionId?: string;
  /** A pushed tool call: the call. */
  toolCallId?: string;
  /** The `webhook-id` header the receiver got (for a pushed call, the call's id). */
  webhookId: string;
  /** The attempt's number; for a dead letter, how many attempts were made. */
  attempt: number;
  error?: string;
  willRetry?: boolean;
  nextAttemptAt?: string;
  deadLetterId?: string;
};

/** The attempt an agent stream's event reports, or undefined for every other event. */
export function deliveryOf(event: AgentEvent): Delivery | undefined {
  const base = { agentId: event.agentId, seq: event.seq, at: event.at, type: event.type };
  switch (event.type) {
    case "webhook.delivered":
      return { ...base, kind: "subscription", outcome: "delivered", subscriptionId: event.data.subscriptionId, webhookId: event.data.webhookId, attempt: event.data.attempt };
    case "webhook.failed":
      return {
        ...base,
        kind: "subscription",
        outcome: "failed",
        subscriptionId: event.data.subscriptionId,
        webhookId: event.data.webhookId,
        attempt: event.data.attempt,
        error: event.data.error,
        willRetry: event.data.willRetry,
        nextAttemptAt: event.data.nextAttemptAt,
      };
    case "webhook.dead_lettered":
      return {
        ...base,
        kind: "subscription",
        outcome: "dead_lettered",
        subscriptionId: event.data.subscriptionId,
        webhookId: event.data.webhookId,
        attempt: event.data.attempts,
        error: event.data.error,
        deadLetterId: event.data.deadLetterId,
      };
    case "tool.webhook.delivered":
      return { ...base, kind: "call", outcome: "delivered", toolCallId: event.data.toolCallId, webhookId: event.data.toolCallId, attempt: event.data.attempt };
    case "tool.webhook.failed":
      return {
        ...base,
        kind: "call",
        outcome: "failed",
        toolCallId: event.data.toolCallId,
        webhookId: event.data.toolCallId,
        attempt: event.data.attempt,
        error: event.data.error,
        willRetry: event.data.willRetry,
        nextAttemptAt: event.data.nextAttemptAt,
      };
    case "tool.webhook.dead_lettered":
      return {
        ...base,
        kind: "call",
        outcome: "dead_lettered",
        toolCallId: event.data.toolCallId,
        webhookId: event.data.toolCallId,
        attempt: event.data.attempts,
        error: event.data.error,
        deadLetterId: event.data.deadLetterId,
      };
    default:
      return undefined;
  }
}

/** Positive when `a` is newer than `b`: by time, then (one stream) by seq; two streams' events of the same millisecond by agent, so the order is stable. */
function newer(a: Delivery, b: Delivery): number {
  if (a.at !== b.at) return a.at > b.at ? 1 : -1;
  if (a.agentId === b.agentId) return a.seq - b.seq;
  return a.agentId > b.agentId ? 1 : -1;
}

export class DeliveryList {
  readonly #rows: Delivery[] = [];
  readonly #keys = new Set<string>();
  #dropped = 0;

  constructor(readonly limit = 500) {}

  get size(): number {
    return this.#rows.length;
  }

  /** How many attempts were let go (dropped from the end, or never kept) because the list was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Keeps `delivery` in its place: its index (newest first) and the oldest
   * row dropped to make room, if one was; undefined when it is not kept (seen
   * already, or older than every row of a full list).
   */
  add(delivery: Delivery): { index: number; dropped?: Delivery } | undefined {
    const key = `${delivery.agentId}:${delivery.seq}`;
    if (this.#keys.has(key)) return undefined;
    let index = this.#rows.findIndex((row) => newer(delivery, row) > 0);
    if (index === -1) index = this.#rows.length;
    if (index >= this.limit) {
      this.#dropped += 1;
      return undefined;
    }
    this.#rows.splice(index, 0, delivery);
    this.#keys.add(key);
    const dropped = this.#rows.length > this.limit ? this.#rows.pop() : undefined;
    if (!dropped) return { index };
    this.#keys.delete(`${dropped.agentId}:${dropped.seq}`);
    this.#dropped += 1;
    return { index, dropped };
  }
}
