/**
 * Delivers everything the gateway pushes: external calls to their
 * `execution.webhook`, and events to webhook subscriptions. Every push is
 * signed the Standard Webhooks way (`push-webhook.ts`): a pushed call with
 * `WEBHOOK_SECRET`, an event with its subscription's own secret.
 *
 * A failed attempt is tried again on its schedule (`webhook-retry-schedule.ts`):
 * a pushed call until it settles or its deadline passes, an event for about
 * 28 hours. The next attempt is a live timer while the object lives (an
 * alarm cannot fire while a cycle runs in it) and the same deadline in the
 * alarm table, a few seconds later, for a fresh instance after eviction or a
 * restart. A delivery that gives up lands in the dead-letter list (D1), from
 * which an operator redelivers it (`redeliver`). Its end is kept in the
 * deadline table until D1 has it, so a crash never loses a dead letter.
 * Delivery is at least once; receivers dedupe on `webhook-id`.
 */
import { getDatabase } from "../db/client";
import { deadLetterIdOf, markDeadLetterDelivered, recordDeadLetter } from "./webhook-dead-letters";
import { getSubscription } from "./webhook-subscriptions";
import { getPushConfig, openPushCredentials } from "./a2a-push-configs";
import { a2aPushHeaders } from "./a2a-task-push";
import type { AppEnv } from "../env";
import { parseJsonSafely } from "../json";
import { outboundUrlProblem, urlPolicyOf } from "../security/url-policy";
import { pushWebhook, webhookRequestTimeoutMs } from "./push-webhook";
import { WebhookDeadline, type DeadlineStore } from "./webhook-deadline";
import { defaultRetrySchedule, nextAttempt, pushedCallHorizonMs, type WebhookRetrySchedule } from "./webhook-retry-schedule";

/** The alarm backstop fires this long after the in-memory retry would have. */
const backstopGraceMs = 2_000;
/** A delivery's end that did not reach D1 is written again this long after. */
const recordRetryMs = 30_000;

export type WebhookDelivery = WebhookDeadline["payload"];
type DeliveryEnd = NonNullable<WebhookDelivery["ended"]>;

/** One retry chain's key: the call, or the event and the subscription. */
export const deliveryKey = (delivery: WebhookDelivery): string =>
  delivery.a2aPush
    ? `${delivery.messageId}:a2a:${delivery.a2aPush.taskId}:${delivery.a2aPush.configId}`
    : delivery.subscriptionId
      ? `${delivery.messageId}:${delivery.subscriptionId}`
      : (delivery.toolCallId ?? delivery.messageId ?? "");

export const webhookDeadlineId = (delivery: WebhookDelivery): string => `webhook:${deliveryKey(delivery)}`;

/** The body's `type` (an event type, or `tool.call`). */
function bodyType(body: string): string {
  const parsed = parseJsonSafely(body);
  const type = parsed.ok && typeof parsed.value === "object" && parsed.value !== null && "type" in parsed.value ? parsed.value.type : undefined;
  return typeof type === "string" ? type : "unknown";
}

export class WebhookSender {
  #timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Attempts under way here: the alarm never starts a second one of the same delivery. */
  readonly #inFlight = new Set<string>();
  #stopped = false;

  constructor(
    private readonly deps: {
      env: AppEnv;
      storage: DeadlineStore;
      /** The agent whose object delivers (its dead letters are listed under it). */
      agentId(): string;
      publish(type: string, data: Record<string, unknown>): void;
      /** Each outcome published, with its delivery: the object also shows a failure on the run and the card. */
      reported?(delivery: WebhookDelivery, outcome: "delivered" | "failed" | "dead_lettered", data: Record<string, unknown>): void;
      /** A pushed call's status now (undefined: gone with its agent): its retries stop once it is answered or expired. */
      callStatus(toolCallId: string): Promise<string | undefined>;
      /** Re-arms the object's alarm after a deadline changed. */
      scheduleAlarm(): Promise<void>;
      schedule?: WebhookRetrySchedule;
    },
  ) {}

  /** Starts (or continues) delivery without blocking the caller. */
  send(delivery: WebhookDelivery): void {
    void this.#run(delivery);
  }

  /**
   * The alarm found the delivery's deadline due. A live timer for it is late
   * (or a test moved the deadline), so the attempt is made now, once.
   */
  async retryFromAlarm(deadline: WebhookDeadline): Promise<void> {
    if (this.#stopped || this.#inFlight.has(deliveryKey(deadline.payload))) return;
    await this.#run(deadline.payload);
  }

  /**
   * A fresh instance picks up a retry its predecessor scheduled: a live timer
   * for it, since the alarm cannot fire while a cycle runs.
   */
  resume(deadline: WebhookDeadline): void {
    const { payload } = deadline;
    const key = deliveryKey(payload);
    if (this.#timers.has(key) || this.#stopped) return;
    this.#timers.set(
      key,
      setTimeout(() => void this.#run(payload), Math.max(0, deadline.dueAt - backstopGraceMs - Date.now())),
    );
  }

  /**
   * An operator redelivers a dead letter: a fresh delivery (attempt 1, a
   * fresh schedule, the same `webhook-id`), unless one is under way already,
   * so a retried request starts nothing twice.
   */
  async redeliver(delivery: WebhookDelivery): Promise<{ started: boolean }> {
    const key = deliveryKey(delivery);
    const id = webhookDeadlineId(delivery);
    const existing = WebhookDeadline.safeParse(this.deps.storage.getDeadline(id));
    const underWay = existing.success && existing.data.payload.ended === undefined;
    if (this.#stopped || underWay || this.#inFlight.has(key)) return { started: false };
    // A redelivery that got through and is still being recorded is done.
    if (existing.success && existing.data.payload.ended?.outcome === "delivered") return { started: false };
    const now = Date.now();
    const fresh: WebhookDelivery = { ...delivery, attempt: 1, firstAttemptAt: now, lastError: undefined, ended: undefined };
    this.deps.storage.setDeadline({ id, kind: "webhook", dueAt: now + webhookRequestTimeoutMs + backstopGraceMs, payload: fresh });
    await this.deps.scheduleAlarm();
    this.send(fresh);
    return { started: true };
  }

  /** Stops every retry this instance holds (the agent was deleted). */
  stopAll(): void {
    this.#stopped = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  async #run(delivery: WebhookDelivery): Promise<void> {
    const key = deliveryKey(delivery);
    const timer = this.#timers.get(key);
    if (timer !== undefined) clearTimeout(timer);
    this.#timers.delete(key);
    if (this.#stopped || this.#inFlight.has(key)) return;
    this.#inFlight.add(key);
    try {
      await this.#attempt(delivery);
    } catch (error) {
      // The deadline stays: the alarm tries again.
      console.error("a webhook attempt failed", key, error);
    } finally {
      this.#inFlight.delete(key);
    }
  }

  async #attempt(given: WebhookDelivery): Promise<void> {
    const { storage, env } = this.deps;
    const now = Date.now();
    const deadlineId = webhookDeadlineId(given);
    if (given.ended) return this.#record(given, given.ended);
    const firstAttemptAt = given.firstAttemptAt ?? now;
    const isCall = !given.subscriptionId && given.toolCallId !== undefined;
    const delivery: WebhookDelivery = { ...given, firstAttemptAt, ...(isCall && { giveUpAt: given.giveUpAt ?? firstAttemptAt + pushedCallHorizonMs }) };
    const database = getDatabase(env.DB);
    let secret = env.WEBHOOK_SECRET;
    let a2aHeaders: Record<string, string> | undefined;
    const notMade = { ...delivery, attempt: delivery.attempt - 1 };
    if (delivery.a2aPush) {
      // Deleted (or its agent with it): nothing more goes to it.
      const config = await getPushConfig(database, delivery.a2aPush.taskId, delivery.a2aPush.configId);
      if (!config) return storage.deleteDeadline(deadlineId);
      const credentials = await openPushCredentials(env, config);
      if (!credentials.ok) {
        // Never sent without the credentials its receiver checks; opening again later would fail the same way.
        storage.deleteDeadline(deadlineId);
        this.#publish(delivery, "failed", { attempt: delivery.attempt, error: credentials.message, willRetry: false });
        return;
      }
      a2aHeaders = a2aPushHeaders({ ...credentials, authScheme: config.authScheme });
    } else if (delivery.subscriptionId) {
      const subscription = await getSubscription(database, delivery.subscriptionId);
      if (!subscription) {
        // Deleted: nothing more goes to it. A redelivery's dead letter stays dead, saying why.
        if (delivery.deadLetterId) return this.#end(notMade, { outcome: "dead", error: "The subscription was deleted" });
        return storage.deleteDeadline(deadlineId);
      }
      secret = subscription.secret;
    } else if (isCall && delivery.attempt > 1 && delivery.toolCallId) {
      const status = await this.deps.callStatus(delivery.toolCallId);
      if (status === "expired")
        return this.#end(notMade, { outcome: "dead", error: `The call expired before its push was delivered${delivery.lastError ? ` (last error: ${delivery.lastError})` : ""}` });
      // Answered (it needs no push any more), or gone with its agent.
      if (status === undefined || status === "resolved") return storage.deleteDeadline(deadlineId);
    }
    if (delivery.giveUpAt !== undefined && now >= delivery.giveUpAt && delivery.attempt > 1) {
      return this.#end(notMade, {
        outcome: "dead",
        error: `The call's deadline passed before its push was delivered${delivery.lastError ? ` (last error: ${delivery.lastError})` : ""}`,
      });
    }
    // The backstop is armed before the attempt, so a restart mid-request still retries.
    storage.setDeadline({ id: deadlineId, kind: "webhook", dueAt: now + webhookRequestTimeoutMs + backstopGraceMs, payload: delivery });
    await this.deps.scheduleAlarm();
    const policy = urlPolicyOf(env);
    const refused = outboundUrlProblem(delivery.url, policy);
    if (refused !== undefined) {
      // Checked again right before sending (the policy may have changed since the config was saved); never retried.
      storage.deleteDeadline(deadlineId);
      this.#publish(delivery, "failed", { attempt: delivery.attempt, error: `The URL policy refuses this webhook: ${refused}`, willRetry: false });
      return;
    }
    const error = await pushWebhook({
      url: delivery.url,
      body: delivery.body,
      webhookId: delivery.messageId ?? delivery.toolCallId ?? deliveryKey(delivery),
      secret,
      attempt: delivery.attempt,
      ...(isCall && { toolCallId: delivery.toolCallId }),
      policy,
      ...(delivery.traceparent !== undefined && { traceparent: delivery.traceparent }),
      ...(a2aHeaders && { a2aHeaders }),
    });
    if (this.#stopped) return;
    if (error === undefined) {
      if (delivery.deadLetterId) {
        // A redelivery: its dead letter says delivered before the stream does, so whoever reacts to the event reads it so.
        await this.#end(delivery, { outcome: "delivered" });
        return this.#publish(delivery, "delivered", { attempt: delivery.attempt });
      }
      this.#publish(delivery, "delivered", { attempt: delivery.attempt });
      return storage.deleteDeadline(deadlineId);
    }
    const failed: WebhookDelivery = { ...delivery, lastError: error };
    const next = nextAttempt(failed, Date.now(), this.deps.schedule ?? defaultRetrySchedule);
    if ("giveUp" in next) {
      this.#publish(delivery, "failed", { attempt: delivery.attempt, error, willRetry: false });
      // An A2A task's push has no dead letter (nothing to redeliver it through): it ends here, its failures on the agent stream.
      if (delivery.a2aPush) return storage.deleteDeadline(deadlineId);
      return this.#end(failed, { outcome: "dead", error: `${next.giveUp}; the last attempt failed with: ${error}` });
    }
    const retry: WebhookDelivery = { ...failed, attempt: delivery.attempt + 1 };
    storage.setDeadline({ id: deadlineId, kind: "webhook", dueAt: next.retryAt + backstopGraceMs, payload: retry });
    await this.deps.scheduleAlarm();
    const key = deliveryKey(delivery);
    this.#timers.set(
      key,
      setTimeout(() => void this.#run(retry), Math.max(0, next.retryAt - Date.now())),
    );
    // Last: whoever reacts to it finds the next attempt armed.
    this.#publish(delivery, "failed", { attempt: delivery.attempt, error, willRetry: true, nextAttemptAt: new Date(next.retryAt).toISOString() });
  }

  /** The delivery is over: kept in the deadline table with its end until D1 has it. */
  async #end(delivery: WebhookDelivery, ended: DeliveryEnd): Promise<void> {
    const over: WebhookDelivery = { ...delivery, ended };
    this.deps.storage.setDeadline({ id: webhookDeadlineId(delivery), kind: "webhook", dueAt: Date.now() + recordRetryMs, payload: over });
    await this.#record(over, ended);
  }

  /** Writes a delivery's end to D1 (a dead letter, or a redelivery that got through), then forgets it. */
  async #record(delivery: WebhookDelivery, ended: DeliveryEnd): Promise<void> {
    // The agent was deleted (its dead letters with it): nothing is written for it any more.
    if (this.#stopped) return;
    const { storage, env } = this.deps;
    const database = getDatabase(env.DB);
    const deadLetterId = delivery.deadLetterId ?? (await deadLetterIdOf(deliveryKey(delivery)));
    const now = new Date().toISOString();
    try {
      if (ended.outcome === "delivered") {
        await markDeadLetterDelivered(database, deadLetterId, now);
      } else {
        await recordDeadLetter(database, {
          id: deadLetterId,
          source: delivery.subscriptionId ? "subscription" : "tool_call",
          agentId: this.deps.agentId(),
          subscriptionId: delivery.subscriptionId ?? null,
          toolCallId: delivery.subscriptionId ? null : (delivery.toolCallId ?? null),
          webhookId: delivery.messageId ?? delivery.toolCallId ?? deliveryKey(delivery),
          type: bodyType(delivery.body),
          url: delivery.url,
          body: delivery.body,
          attempts: Math.max(0, delivery.attempt),
          lastError: ended.error,
          firstAttemptAt: new Date(delivery.firstAttemptAt ?? Date.now()).toISOString(),
          deadAt: now,
        });
        this.#publish(delivery, "dead_lettered", { deadLetterId, attempts: delivery.attempt, error: ended.error });
      }
      storage.deleteDeadline(webhookDeadlineId(delivery));
    } catch (error) {
      // The deadline holds the end: the alarm writes it again.
      console.error("could not record the end of a webhook delivery", deadLetterId, error);
    }
    await this.deps.scheduleAlarm();
  }

  /** Events for the agent stream: `tool.webhook.*` for a pushed call, `webhook.*` for a subscription's delivery, `a2a.push.*` for a task's push. */
  #publish(delivery: WebhookDelivery, outcome: "delivered" | "failed" | "dead_lettered", data: Record<string, unknown>): void {
    if (delivery.a2aPush) {
      this.deps.publish(`a2a.push.${outcome}`, { ...delivery.a2aPush, webhookId: delivery.messageId, ...data });
      return;
    }
    const about = delivery.subscriptionId ? { subscriptionId: delivery.subscriptionId, webhookId: delivery.messageId } : { toolCallId: delivery.toolCallId };
    this.deps.publish(delivery.subscriptionId ? `webhook.${outcome}` : `tool.webhook.${outcome}`, { ...about, ...data });
    this.deps.reported?.(delivery, outcome, data);
  }
}
