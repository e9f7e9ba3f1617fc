/**
 * One attempt of one push: the signed POST, bounded in time, its answer
 * reduced to delivered or an error. Every push the gateway makes (pushed
 * calls, subscription events, redeliveries) leaves through this function, so
 * how the gateway reaches a receiver is decided in one place: pinned to the
 * configured URL's origin (its signature headers go nowhere else), by the URL
 * policy, a redirect never followed.
 */
import { originOf, pinnedFetch } from "../security/pinned-request";
import { standardWebhookHeaders } from "./standard-webhooks";
import type { UrlPolicy } from "../security/url-policy";
import { webhookSignatureHeader, webhookSignatureHeaderValue } from "./webhook-signature";

/** Each attempt's whole answer must arrive within this. */
export const webhookRequestTimeoutMs = 10_000;

export type WebhookPush = {
  url: string;
  body: string;
  /** The Standard Webhooks `webhook-id`. */
  webhookId: string;
  secret: string;
  attempt: number;
  /** A pushed call: its id, and the gateway's first signature header too. */
  toolCallId?: string;
  /** This deployment's URL policy (`urlPolicyOf(env)`). */
  policy: UrlPolicy;
  /** The W3C `traceparent` of the span that asked for the push (a pushed call's). */
  traceparent?: string;
  /** An A2A task's push: sent with these headers (the protocol's content type, its config's credentials) instead of a signature. */
  a2aHeaders?: Record<string, string>;
};

/** Undefined when the receiver answered 2xx; else why the attempt failed (a redirect counts as a failure). */
export async function pushWebhook(push: WebhookPush): Promise<string | undefined> {
  try {
    const headers: Record<string, string> = {
      ...(push.a2aHeaders ?? { "content-type": "application/json", ...(await standardWebhookHeaders(push.secret, push.webhookId, push.body)) }),
      "x-switchboard-attempt": String(push.attempt),
      ...(push.traceparent !== undefined && { traceparent: push.traceparent }),
    };
    if (push.toolCallId) {
      headers[webhookSignatureHeader] = await webhookSignatureHeaderValue(push.secret, push.body);
      headers["x-switchboard-delivery"] = push.toolCallId;
    }
    const origin = originOf(push.url);
    if (origin === undefined) return "The webhook URL is not an absolute http(s) URL";
    const send = pinnedFetch({ origin, policy: push.policy });
    const response = await send(push.url, { method: "POST", headers, body: push.body, signal: AbortSignal.timeout(webhookRequestTimeoutMs) });
    await response.body?.cancel();
    return response.ok ? undefined : `HTTP ${response.status}`;
  } catch (caught) {
    return caught instanceof Error ? caught.message : String(caught);
  }
}
