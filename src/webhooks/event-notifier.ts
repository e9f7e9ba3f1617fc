/**
 * Pushes the agent's events to webhook subscriptions (the agent's own, and
 * those of the spaces the event concerns). An event is first written to the
 * deadline table (`notify`), in the same transaction as what it reports where
 * there is one (a run's end); then it is fanned out: one `webhook` delivery
 * per matching subscription is armed and the notify row deleted, in one
 * transaction, and the deliveries start. A crash before the fan-out leaves
 * the notify row for the alarm; after it, the deliveries' own rows retry.
 * At least once, never lost: a receiver dedupes on `webhook-id`. An event
 * that changes an A2A task also goes to that task's push notification
 * configs (`taskPushes`, `a2a-task-push.ts`), in the same fan-out.
 *
 * The subscriptions are read from D1 once and kept (per set of spaces) until
 * the routes say they changed (`webhooksChanged`), or a minute at most, so a
 * cycle costs no D1 statement for them.
 */
import { z } from "zod";
import { getDatabase } from "../db/client";
import { subscriptionsReaching, type WebhookSubscription } from "./webhook-subscriptions";
import type { AppEnv } from "../env";
import { webhookBody, WebhookEvent } from "./webhook-event";
import type { WebhookDeadline } from "./webhook-deadline";
import { webhookDeadlineId, type WebhookDelivery, type WebhookSender } from "./webhook-sender";

export const NotifyDeadline = z.object({
  id: z.string(),
  kind: z.literal("notify"),
  dueAt: z.number(),
  /** `tasksOnly`: a change only A2A task pushes report (a call waiting for an account), never a subscription. */
  payload: z.object({ event: WebhookEvent, spaceIds: z.array(z.string()), tasksOnly: z.boolean().optional() }),
});
export type NotifyDeadline = z.infer<typeof NotifyDeadline>;

/** Where the notifier keeps what it has not fanned out yet: the agent object's deadline table. */
export type NotifyStore = {
  setDeadline(deadline: NotifyDeadline | WebhookDeadline): void;
  getDeadline(id: string): { kind: string } | undefined;
  deleteDeadline(id: string): void;
  /** Runs `work` atomically: every write in it lands, or none does. */
  transaction<T>(work: () => T): T;
};

/** The alarm fans out an event the live path did not (a crash, a D1 error) this long after. */
const notifyBackstopMs = 10_000;
const cacheTtlMs = 60_000;
const maxCachedSets = 32;

const notifyId = (eventId: string) => `notify:${eventId}`;

/** Writes the event to the deadline table (inside the caller's transaction, when it has one). */
export function queueNotification(storage: NotifyStore, event: WebhookEvent, spaceIds: readonly string[], tasksOnly?: boolean): void {
  storage.setDeadline({
    id: notifyId(event.id),
    kind: "notify",
    dueAt: Date.now() + notifyBackstopMs,
    payload: { event, spaceIds: [...new Set(spaceIds)], ...(tasksOnly && { tasksOnly }) },
  });
}

export class EventNotifier {
  /** By set of spaces (a run's spaces, a card's space): a few sets at most. */
  #cache = new Map<string, { at: number; subscriptions: WebhookSubscription[] }>();
  /** Fan-outs under way in this instance (the live path and the alarm never both do one). */
  readonly #busy = new Set<string>();

  constructor(
    private readonly deps: {
      env: AppEnv;
      storage: () => NotifyStore;
      agentId: () => string;
      webhooks: WebhookSender;
      scheduleAlarm(): Promise<void>;
      /** The pushes the event makes to A2A tasks' push configs (`a2a-task-push.ts`); the object answers none when its agent has no A2A face. */
      taskPushes?(event: WebhookEvent): Promise<WebhookDelivery[]>;
    },
  ) {}

  /** The subscriptions changed: read them again next time. */
  invalidate(): void {
    this.#cache.clear();
  }

  /** Queues the event and fans it out now, without holding the caller. */
  emit(event: WebhookEvent, spaceIds: readonly string[], tasksOnly?: boolean): void {
    queueNotification(this.deps.storage(), event, spaceIds, tasksOnly);
    this.fanOutSoon(event.id);
  }

  /** Fans out a queued event (the row is read again: it may be gone already). */
  fanOutSoon(eventId: string): void {
    void this.fanOut(eventId).catch((error: unknown) => console.error("could not fan out a webhook event", eventId, error));
  }

  async fanOut(eventId: string): Promise<void> {
    const id = notifyId(eventId);
    if (this.#busy.has(id)) return;
    this.#busy.add(id);
    try {
      const storage = this.deps.storage();
      const queued = NotifyDeadline.safeParse(storage.getDeadline(id));
      if (!queued.success) return;
      const { event, spaceIds, tasksOnly } = queued.data.payload;
      const agentId = this.deps.agentId();
      const reached = (tasksOnly ? [] : await this.#subscriptions(agentId, spaceIds)).filter(
        (subscription) =>
          subscription.events.includes(event.type) && (subscription.agentId === agentId || (subscription.spaceId !== null && spaceIds.includes(subscription.spaceId))),
      );
      const body = webhookBody(event);
      const deliveries: WebhookDelivery[] = [
        ...reached.map((subscription) => ({ subscriptionId: subscription.id, messageId: event.id, url: subscription.url, body, attempt: 1 })),
        ...((await this.deps.taskPushes?.(event)) ?? []),
      ];
      storage.transaction(() => {
        for (const delivery of deliveries) storage.setDeadline({ id: webhookDeadlineId(delivery), kind: "webhook", dueAt: Date.now() + notifyBackstopMs, payload: delivery });
        storage.deleteDeadline(id);
      });
      for (const delivery of deliveries) this.deps.webhooks.send(delivery);
      if (deliveries.length > 0) await this.deps.scheduleAlarm();
    } finally {
      this.#busy.delete(id);
    }
  }

  async #subscriptions(agentId: string, spaceIds: readonly string[]): Promise<WebhookSubscription[]> {
    const key = [...spaceIds].sort().join(",");
    const cached = this.#cache.get(key);
    if (cached && Date.now() - cached.at < cacheTtlMs) return cached.subscriptions;
    const subscriptions = await subscriptionsReaching(getDatabase(this.deps.env.DB), agentId, spaceIds);
    if (this.#cache.size >= maxCachedSets) this.#cache.clear();
    this.#cache.set(key, { at: Date.now(), subscriptions });
    return subscriptions;
  }
}
