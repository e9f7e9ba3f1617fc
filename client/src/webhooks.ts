/**
 * For services that receive what the gateway pushes. Every push is a
 * Standard Webhook (`webhook-id`, `webhook-timestamp`, `webhook-signature`):
 * `verifyWebhook` checks one with the `standardwebhooks` library, given a
 * subscription's `whsec_…` secret or, for pushed tool calls, the gateway's
 * `WEBHOOK_SECRET` as it is. Pushed tool calls also carry the gateway's own
 * `x-switchboard-signature` (`t=<unix s>,v1=<hex HMAC-SHA256 of "t.body">`,
 * `verifyWebhookSignature`). Both take the key from the secret by the
 * gateway's rule (`webhookKeyBytes`), so any secret the gateway signs with
 * verifies here. `createWebhookHandler` is a ready handler that
 * verifies, answers the call with your function and posts the result back.
 */
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { base64ToBytes, bytesToBase64 } from "./base64.js";
import type { ToolHandlers, ToolRunner } from "./handle-tools.js";
import { importHmacKey } from "./hmac-key.js";
import type { SubscriptionEvent, ToolCallWebhook } from "./types.js";

export { WebhookVerificationError };

const whsec = "whsec_";
const canonicalBase64 = /^(?:[A-Za-z0-9+/]{4})+$|^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$/;

/**
 * The key a webhook secret stands for, by the gateway's rule: any non-empty
 * string. A `whsec_` secret whose rest is base64 (standard alphabet, padded,
 * at least one byte, no stray bits) is those bytes decoded; any other string
 * (also a `whsec_` one that is not base64) is its UTF-8 bytes.
 */
export function webhookKeyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret) throw new TypeError("A webhook secret is required");
  const rest = secret.startsWith(whsec) ? secret.slice(whsec.length) : undefined;
  if (rest !== undefined && canonicalBase64.test(rest)) {
    const bytes = base64ToBytes(rest);
    if (bytes && bytesToBase64(bytes) === rest) return bytes;
  }
  return new Uint8Array(new TextEncoder().encode(secret));
}

/**
 * The secret in the `whsec_<base64>` form Standard Webhooks libraries take
 * (the same key, `webhookKeyBytes`): a subscription's secret is already in
 * it and comes back as it is; any other string is its UTF-8 bytes, base64-encoded.
 */
export function standardWebhookSecret(secret: string): string {
  return `${whsec}${bytesToBase64(webhookKeyBytes(secret))}`;
}

/** Headers as the `standardwebhooks` library wants them (a plain object with lower-case names). */
function headerRecord(headers: Headers | Record<string, string | string[] | undefined>): Record<string, string> {
  if (headers instanceof Headers) return Object.fromEntries(headers);
  const record: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) record[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return record;
}

/**
 * Checks a push (the raw body text, before any JSON parsing) and returns its
 * parsed body: a subscription's event (`{type, timestamp, data}`) or a pushed
 * tool call (`{type: "tool.call", …}`). Throws `WebhookVerificationError` for
 * a missing, wrong or stale (over 5 minutes) signature. Deliveries are at
 * least once: dedupe on the `webhook-id` header.
 */
export function verifyWebhook(secret: string, body: string, headers: Headers | Record<string, string | string[] | undefined>): SubscriptionEvent | ToolCallWebhook {
  return new Webhook(standardWebhookSecret(secret)).verify(body, headerRecord(headers)) as SubscriptionEvent | ToolCallWebhook;
}

export const webhookSignatureHeader = "x-switchboard-signature";
export const webhookDeliveryHeader = "x-switchboard-delivery";

const encoder = new TextEncoder();

async function hmacHex(secret: string, text: string): Promise<string> {
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", await importHmacKey(webhookKeyBytes(secret)), encoder.encode(text)));
  return Array.from(signature, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Compares two hex strings without stopping at the first difference. */
function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

export type VerifyOptions = { toleranceSeconds?: number; now?: number };

/**
 * True when `header` signs `body` (the raw text, before any JSON parsing)
 * with `secret`, and its timestamp is within `toleranceSeconds` (default 300) of now.
 */
export async function verifyWebhookSignature(secret: string, header: string | null | undefined, body: string, options: VerifyOptions = {}): Promise<boolean> {
  if (!secret || !header) return false;
  const { toleranceSeconds = 300, now = Math.floor(Date.now() / 1000) } = options;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [name, value = ""] = part.split("=", 2).map((piece) => piece.trim());
    if (name === "t" && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    else if (name === "v1" && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined || signatures.length === 0 || Math.abs(now - timestamp) > toleranceSeconds) return false;
  const expected = await hmacHex(secret, `${timestamp}.${body}`);
  return signatures.map((signature) => sameHex(signature, expected)).includes(true);
}

function isVerified(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}

export type WebhookHandlerOptions = {
  /** The gateway's `WEBHOOK_SECRET`. */
  secret: string;
  /** Runs `waitUntil`-style background work (Workers: `ctx.waitUntil`); default: just let it run. */
  waitUntil?: (promise: Promise<unknown>) => void;
  toleranceSeconds?: number;
};

/**
 * A fetch-style handler (`(Request) => Promise<Response>`) for a webhook URL:
 * 401 for a bad signature, 202 at once for a genuine call (the handler's
 * result is posted to the gateway in the background), 200 `{ignored}` for a
 * tool it has no handler for. Deliveries are at least once; repeats of a call
 * it is handling or has handled are acknowledged and not run again.
 */
export function createWebhookHandler(runner: ToolRunner, handlers: ToolHandlers, options: WebhookHandlerOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = await request.text();
    // The Standard Webhooks headers when they are there; the gateway's own header otherwise.
    const valid = request.headers.has("webhook-signature")
      ? isVerified(() => verifyWebhook(options.secret, body, request.headers))
      : await verifyWebhookSignature(options.secret, request.headers.get(webhookSignatureHeader), body, { toleranceSeconds: options.toleranceSeconds });
    if (!valid) return Response.json({ error: { code: "unauthorized", message: "Bad or stale webhook signature" } }, { status: 401 });
    let call: ToolCallWebhook;
    try {
      call = JSON.parse(body) as ToolCallWebhook;
    } catch {
      return Response.json({ error: { code: "invalid_json", message: "The body is not JSON" } }, { status: 400 });
    }
    if (call.type !== "tool.call" || typeof call.toolCallId !== "string" || typeof call.runId !== "string") {
      return Response.json({ error: { code: "invalid_body", message: "Not a tool.call" } }, { status: 400 });
    }
    if (!handlers[call.toolName]) return Response.json({ ignored: true, reason: `No handler for tool "${call.toolName}"` }, { status: 200 });
    const work = runner.run(call, call.agentId);
    if (options.waitUntil) options.waitUntil(work);
    else work.catch(() => undefined);
    return Response.json({ accepted: true, toolCallId: call.toolCallId }, { status: 202 });
  };
}

/** Node's `http.createServer` listener for a fetch-style handler (Node 20 has Request but no adapter). */
export function toNodeListener(handler: (request: Request) => Promise<Response>) {
  type IncomingMessage = AsyncIterable<Uint8Array> & { method?: string; url?: string; headers: Record<string, string | string[] | undefined> };
  type ServerResponse = { writeHead(status: number, headers: Record<string, string>): void; end(body?: string | Uint8Array): void };
  return async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of incoming) chunks.push(chunk);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const method = incoming.method ?? "GET";
    const body = method === "GET" || method === "HEAD" ? undefined : new Blob(chunks as Uint8Array<ArrayBuffer>[]);
    const response = await handler(new Request(`http://localhost${incoming.url ?? "/"}`, { method, headers, body }));
    outgoing.writeHead(response.status, Object.fromEntries(response.headers));
    outgoing.end(new Uint8Array(await response.arrayBuffer()));
  };
}
