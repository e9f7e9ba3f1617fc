/**
 * Where a failed push shows besides the agent stream (`tool.webhook.failed`,
 * `webhook.failed`): a `push_failed` note on the run it belongs to (on the
 * first failed attempt, and when no more attempts are made, so a long retry
 * schedule adds two notes, not one per attempt), and, for a pushed call with
 * a card, a line on the card (`pushFailure` on its tool part) until an
 * attempt gets through.
 */
import { z } from "zod";
import type { RunNote } from "../db/runs";
import { parseJsonSafely } from "../json";
import type { SpacePort } from "../protocol/space-port";
import { getPendingCall } from "../tools";
import type { WebhookDelivery } from "../webhooks/webhook-sender";
import { getDatabase } from "../db/client";
import { noteOnRun, type RunNotesHost } from "./run-notes";

export type PushOutcomesHost = RunNotesHost & { space(spaceId: string): SpacePort };

const Failed = z.object({ attempt: z.number().int(), error: z.string(), willRetry: z.boolean() });
const Delivered = z.object({ attempt: z.number().int() });
/** A subscription's event names its run in `data.runId` (`call.*` and `run.*` alike). */
const EventBody = z.object({ type: z.string(), data: z.object({ runId: z.string() }) });

/** One outcome the sender reported (`delivered`, `failed`, …, with what it published), shown where people look. */
export async function showPushOutcome(host: PushOutcomesHost, delivery: WebhookDelivery, outcome: string, data: Record<string, unknown>): Promise<void> {
  if (outcome === "failed") {
    const failed = Failed.safeParse(data);
    if (failed.success) await showFailure(host, delivery, failed.data);
  } else if (outcome === "delivered") {
    const delivered = Delivered.safeParse(data);
    // Only an attempt after a failure (or an operator's redelivery) can have a failure on the card to take back.
    if (delivered.success && (delivered.data.attempt > 1 || delivery.deadLetterId !== undefined)) await clearCard(host, delivery);
  }
}

async function showFailure(host: PushOutcomesHost, delivery: WebhookDelivery, failed: z.infer<typeof Failed>): Promise<void> {
  const noted = failed.attempt === 1 || !failed.willRetry;
  const next = failed.willRetry ? "It is tried again." : "No more attempts are made.";
  const at = new Date().toISOString();
  if (delivery.subscriptionId) {
    const event = parseJsonSafely(delivery.body);
    const body = EventBody.safeParse(event.ok ? event.value : undefined);
    if (!noted || !body.success) return;
    const message = `The push of ${body.data.type} to webhook subscription ${delivery.subscriptionId} failed on attempt ${failed.attempt}: ${failed.error}. ${next}`;
    return noteOnRun(host, body.data.data.runId, { at, kind: "push_failed", message });
  }
  if (!delivery.toolCallId) return;
  const call = await getPendingCall(getDatabase(host.database), delivery.toolCallId);
  if (!call) return;
  const note: RunNote = {
    at,
    kind: "push_failed",
    message: `The push of call ${call.toolCallId} (${call.toolName}) to its webhook failed on attempt ${failed.attempt}: ${failed.error}. ${next}`,
    toolCallId: call.toolCallId,
  };
  await Promise.all([
    noted ? noteOnRun(host, call.runId, note) : undefined,
    call.spaceId && call.messageId
      ? host.space(call.spaceId).updateToolPart(call.messageId, call.toolCallId, { pushFailure: { at, attempt: failed.attempt, error: failed.error, willRetry: failed.willRetry } })
      : undefined,
  ]);
}

async function clearCard(host: PushOutcomesHost, delivery: WebhookDelivery): Promise<void> {
  if (delivery.subscriptionId || !delivery.toolCallId) return;
  const call = await getPendingCall(getDatabase(host.database), delivery.toolCallId);
  // A card without a failure is left as it is (the space object changes nothing then).
  if (call?.spaceId && call.messageId) await host.space(call.spaceId).updateToolPart(call.messageId, call.toolCallId, { pushFailure: undefined });
}
