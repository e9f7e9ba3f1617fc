/**
 * Pushes external calls to their `execution.webhook`, signed with
 * HMAC-SHA256 (`WEBHOOK_SECRET`). A failed delivery is retried with backoff:
 * by an in-memory timer while the object lives (an alarm cannot fire while a
 * cycle runs in one), and from the alarm table after a restart. Delivery is
 * at least once; receivers dedupe on `x-switchboard-delivery` (the call id).
 */
import { getDatabase } from "../../db/client";
import type { AppEnv } from "../../env";
import { webhookSignatureHeader, webhookSignatureHeaderValue } from "../webhook-signature";
import { getPendingCall } from "./pending-calls";
import type { DeadlineStore, WebhookDeadline } from "./tool-deadlines";
import { outboundUrlProblem, urlPolicyOf } from "../../security/url-policy";

export const maxWebhookAttempts = 6;
const requestTimeoutMs = 10_000;
/** The alarm backstop fires this long after the in-memory retry would have. */
const backstopGraceMs = 2_000;

export const webhookBackoffMs = (attempt: number) => Math.min(60_000, 500 * 2 ** (attempt - 1));

type WebhookPayload = { toolCallId: string; url: string; body: string; attempt: number };

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
  send(toolCallId: string, url: string, body: string, attempt: number): void {
    void this.#attempt({ toolCallId, url, body, attempt });
  }

  async retryFromAlarm(deadline: WebhookDeadline): Promise<void> {
    if (this.#timers.has(deadline.payload.toolCallId) || this.#stopped) return;
    await this.#attempt(deadline.payload);
  }

  /**
   * A fresh instance picks up a retry its predecessor scheduled: a live timer
   * for it, since the alarm cannot fire while a cycle runs.
   */
  resume(deadline: WebhookDeadline): void {
    const { payload } = deadline;
    if (this.#timers.has(payload.toolCallId) || this.#stopped) return;
    this.#timers.set(payload.toolCallId, setTimeout(() => void this.#attempt(payload), Math.max(0, deadline.dueAt - backstopGraceMs - Date.now())));
  }

  /** Stops every retry this instance holds (the agent was deleted). */
  stopAll(): void {
    this.#stopped = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  async #attempt(payload: WebhookPayload): Promise<void> {
    const { storage, publish, env } = this.deps;
    const deadlineId = `webhook:${payload.toolCallId}`;
    this.#timers.delete(payload.toolCallId);
    if (this.#stopped) return;
    if (payload.attempt > 1) {
      const call = await getPendingCall(getDatabase(env.DB), payload.toolCallId);
      if (!call || (call.status !== "waiting" && call.status !== "pending")) {
        storage.deleteDeadline(deadlineId);
        return;
      }
    }
    // The backstop is armed before the attempt, so a restart mid-request still retries.
    storage.setDeadline({ id: deadlineId, kind: "webhook", dueAt: Date.now() + requestTimeoutMs + webhookBackoffMs(payload.attempt) + backstopGraceMs, payload });
    await this.deps.scheduleAlarm();
    const refused = outboundUrlProblem(payload.url, urlPolicyOf(env));
    if (refused !== undefined) {
      // Checked again right before sending (the policy may have changed since the config was saved); never retried.
      storage.deleteDeadline(deadlineId);
      publish("tool.webhook.failed", { toolCallId: payload.toolCallId, attempt: payload.attempt, error: `The URL policy refuses this webhook: ${refused}`, willRetry: false });
      return;
    }
    let error: string | undefined;
    try {
      const response = await fetch(payload.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          [webhookSignatureHeader]: await webhookSignatureHeaderValue(env.WEBHOOK_SECRET, payload.body),
          "x-switchboard-delivery": payload.toolCallId,
          "x-switchboard-attempt": String(payload.attempt),
        },
        body: payload.body,
        redirect: "manual",
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      await response.body?.cancel();
      if (!response.ok) error = `HTTP ${response.status}`;
    } catch (caught) {
      error = (caught as Error).message;
    }
    if (this.#stopped) return;
    if (error === undefined) {
      storage.deleteDeadline(deadlineId);
      publish("tool.webhook.delivered", { toolCallId: payload.toolCallId, attempt: payload.attempt });
      return;
    }
    const last = payload.attempt >= maxWebhookAttempts;
    publish("tool.webhook.failed", { toolCallId: payload.toolCallId, attempt: payload.attempt, error, willRetry: !last });
    if (last) {
      storage.deleteDeadline(deadlineId);
      return;
    }
    const next = { ...payload, attempt: payload.attempt + 1 };
    const delay = webhookBackoffMs(payload.attempt);
    storage.setDeadline({ id: deadlineId, kind: "webhook", dueAt: Date.now() + delay + backstopGraceMs, payload: next });
    this.#timers.set(payload.toolCallId, setTimeout(() => void this.#attempt(next), delay));
    await this.deps.scheduleAlarm();
  }
}
