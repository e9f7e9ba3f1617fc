/**
 * Delivers everything the gateway pushes: external calls to their
 * `execution.webhook`, and events to webhook subscriptions. Every push is
 * signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`): a pushed call with `WEBHOOK_SECRET`, an event with its
 * subscription's own secret. Pushed calls also keep the gateway's first
 * header (`x-switchboard-signature`). A failed delivery is retried with
 * backoff: by an in-memory timer while the object lives (an alarm cannot fire
 * while a cycle runs in one), and from the alarm table after a restart.
 * Delivery is at least once; receivers dedupe on `webhook-id`.
 */
import { getDatabase } from "../../db/client";
import { getSubscription } from "../../db/webhook-subscriptions";
import type { AppEnv } from "../../env";
import { standardWebhookHeaders } from "../../security/standard-webhooks";
import { outboundUrlProblem, urlPolicyOf } from "../../security/url-policy";
import { webhookSignatureHeader, webhookSignatureHeaderValue } from "../webhook-signature";
import { getPendingCall } from "./pending-calls";
import type { DeadlineStore, WebhookDeadline } from "./tool-deadlines";

export const maxWebhookAttempts = 6;
const requestTimeoutMs = 10_000;
/** The alarm backstop fires this long after the in-memory retry would have. */
const backstopGraceMs = 2_000;

export const webhookBackoffMs = (attempt: number) => Math.min(60_000, 500 * 2 ** (attempt - 1));

export type WebhookDelivery = WebhookDeadline["payload"];

/** One retry chain's key: the call, or the event and the subscription. */
export const deliveryKey = (delivery: WebhookDelivery): string =>
  delivery.subscriptionId ? `${delivery.messageId}:${delivery.subscriptionId}` : (delivery.toolCallId ?? delivery.messageId ?? "");

export const webhookDeadlineId = (delivery: WebhookDelivery): string => `webhook:${deliveryKey(delivery)}`;

export class WebhookSender {
  #timers = new Map<string, ReturnType<typeof setTimeout>>();
  #stopped = false;

  constructor(
    private readonly deps: {
      env: AppEnv;
      storage: DeadlineStore;
      publish(type: string, data: Record<string, unknown>): void;
      /** Re-arms the object's alarm after a deadline changed. */
      scheduleAlarm(): Promise<void>;
    },
  ) {}

  /** Starts (or continues) delivery without blocking the caller. */
  send(delivery: WebhookDelivery): void {
    void this.#attempt(delivery);
  }

  async retryFromAlarm(deadline: WebhookDeadline): Promise<void> {
    if (this.#timers.has(deliveryKey(deadline.payload)) || this.#stopped) return;
    await this.#attempt(deadline.payload);
  }

  /**
   * A fresh instance picks up a retry its predecessor scheduled: a live timer
   * for it, since the alarm cannot fire while a cycle runs.
   */
  resume(deadline: WebhookDeadline): void {
    const { payload } = deadline;
    const key = deliveryKey(payload);
    if (this.#timers.has(key) || this.#stopped) return;
    this.#timers.set(key, setTimeout(() => void this.#attempt(payload), Math.max(0, deadline.dueAt - backstopGraceMs - Date.now())));
  }

  /** Stops every retry this instance holds (the agent was deleted). */
  stopAll(): void {
    this.#stopped = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  async #attempt(delivery: WebhookDelivery): Promise<void> {
    const { storage, publish, env } = this.deps;
    const key = deliveryKey(delivery);
    const deadlineId = webhookDeadlineId(delivery);
    const about = delivery.subscriptionId ? { subscriptionId: delivery.subscriptionId, webhookId: delivery.messageId } : { toolCallId: delivery.toolCallId };
    // Events for the agent stream: `tool.webhook.*` for a pushed call, `webhook.*` for a subscription's delivery.
    const named = (outcome: "delivered" | "failed") => (delivery.subscriptionId ? `webhook.${outcome}` : `tool.webhook.${outcome}`);
    this.#timers.delete(key);
    if (this.#stopped) return;
    const database = getDatabase(env.DB);
    let secret = env.WEBHOOK_SECRET;
    if (delivery.subscriptionId) {
      const subscription = await getSubscription(database, delivery.subscriptionId);
      if (!subscription) {
        storage.deleteDeadline(deadlineId);
        return;
      }
      secret = subscription.secret;
    } else if (delivery.attempt > 1 && delivery.toolCallId) {
      const call = await getPendingCall(database, delivery.toolCallId);
      if (!call || (call.status !== "waiting" && call.status !== "pending")) {
        storage.deleteDeadline(deadlineId);
        return;
      }
    }
    // The backstop is armed before the attempt, so a restart mid-request still retries.
    storage.setDeadline({ id: deadlineId, kind: "webhook", dueAt: Date.now() + requestTimeoutMs + webhookBackoffMs(delivery.attempt) + backstopGraceMs, payload: delivery });
    await this.deps.scheduleAlarm();
    const refused = outboundUrlProblem(delivery.url, urlPolicyOf(env));
    if (refused !== undefined) {
      // Checked again right before sending (the policy may have changed since the config was saved); never retried.
      storage.deleteDeadline(deadlineId);
      publish(named("failed"), { ...about, attempt: delivery.attempt, error: `The URL policy refuses this webhook: ${refused}`, willRetry: false });
      return;
    }
    let error: string | undefined;
    try {
      const messageId = delivery.messageId ?? delivery.toolCallId ?? key;
      const headers: Record<string, string> = {
        "content-type": "application/json",
        ...(await standardWebhookHeaders(secret, messageId, delivery.body)),
        "x-switchboard-attempt": String(delivery.attempt),
      };
      if (!delivery.subscriptionId && delivery.toolCallId) {
        headers[webhookSignatureHeader] = await webhookSignatureHeaderValue(secret, delivery.body);
        headers["x-switchboard-delivery"] = delivery.toolCallId;
      }
      const response = await fetch(delivery.url, { method: "POST", headers, body: delivery.body, redirect: "manual", signal: AbortSignal.timeout(requestTimeoutMs) });
      await response.body?.cancel();
      if (!response.ok) error = `HTTP ${response.status}`;
    } catch (caught) {
      error = (caught as Error).message;
    }
    if (this.#stopped) return;
    if (error === undefined) {
      storage.deleteDeadline(deadlineId);
      publish(named("delivered"), { ...about, attempt: delivery.attempt });
      return;
    }
    const last = delivery.attempt >= maxWebhookAttempts;
    publish(named("failed"), { ...about, attempt: delivery.attempt, error, willRetry: !last });
    if (last) {
      storage.deleteDeadline(deadlineId);
      return;
    }
    const next = { ...delivery, attempt: delivery.attempt + 1 };
    const delay = webhookBackoffMs(delivery.attempt);
    storage.setDeadline({ id: deadlineId, kind: "webhook", dueAt: Date.now() + delay + backstopGraceMs, payload: next });
    this.#timers.set(key, setTimeout(() => void this.#attempt(next), delay));
    await this.deps.scheduleAlarm();
  }
}
