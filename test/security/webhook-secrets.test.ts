/**
 * One rule for a webhook secret's key, on both sides: any non-empty string
 * signs (a `whsec_` secret whose rest is base64 is decoded, anything else is
 * its UTF-8 bytes), and what the gateway sends verifies with the client SDK
 * (`verifyWebhook`, `verifyWebhookSignature`) and with the `standardwebhooks`
 * library given the secret in the form docs/webhooks.md tells receivers to use.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { standardWebhookSecret, verifyWebhook, verifyWebhookSignature as clientVerifySignature, webhookKeyBytes } from "../../client/src/webhooks";
import { envProblems } from "../../src/security/env-problems";
import { keyBytesOf, newWebhookSecret, signStandardWebhook, standardSecretOf, standardWebhookHeaders } from "../../src/webhooks/standard-webhooks";
import { pushWebhook } from "../../src/webhooks/push-webhook";
import { verifyWebhookSignature, webhookSignatureHeaderValue } from "../../src/webhooks/webhook-signature";

type Recorded = { headers: Record<string, string>; body: string };

/** What the check at start (`GET /health`, `npm run dev`) says of `WEBHOOK_SECRET` set to `secret`. */
const webhookSecretProblem = (secret: unknown) => envProblems({ WEBHOOK_SECRET: secret }).find((problem) => problem.name === "WEBHOOK_SECRET")?.problem;

/** Every form a secret may take; `decoded` says whether the gateway reads it as base64. */
const secrets: { label: string; secret: string; decoded: boolean }[] = [
  { label: "a plain string (what `npm run dev` generates)", secret: "8f2c0e4b9a1d7763c5e0a9b8d1f2e3c4", decoded: false },
  { label: "a subscription's own secret", secret: newWebhookSecret(), decoded: true },
  { label: "whsec_ and base64 of four characters", secret: "whsec_test", decoded: true },
  { label: "whsec_ and text that is not base64", secret: "whsec_not base64!", decoded: false },
  { label: "whsec_ and base64 without its padding", secret: "whsec_abc", decoded: false },
  { label: "whsec_ and base64 with stray bits", secret: "whsec_AB==", decoded: false },
  { label: "whsec_ alone", secret: "whsec_", decoded: false },
  { label: "non-ASCII text", secret: "sécret ✓ ünïcode", decoded: false },
];

const body = JSON.stringify({ type: "tool.call", toolCallId: "call_secret_forms", toolName: "lookup", args: { q: 1 } });

describe("webhook secrets: every accepted form signs, and receivers verify it", () => {
  for (const { label, secret, decoded } of secrets) {
    it(label, async () => {
      const bytes = keyBytesOf(secret);
      expect(bytes).toBeDefined();
      expect(webhookSecretProblem(secret)).toBeUndefined();
      // The client derives the same key, and the same `whsec_` form.
      expect([...webhookKeyBytes(secret)]).toEqual([...(bytes ?? [])]);
      expect(standardWebhookSecret(secret)).toBe(standardSecretOf(secret));
      if (decoded) expect(standardSecretOf(secret)).toBe(secret);
      else expect([...(bytes ?? [])]).toEqual([...new TextEncoder().encode(secret)]);

      const headers = await standardWebhookHeaders(secret, "msg_forms", body);
      expect(verifyWebhook(secret, body, headers)).toEqual(JSON.parse(body));
      expect(new Webhook(standardSecretOf(secret)).verify(body, headers)).toEqual(JSON.parse(body));
      // A secret already in the Standard Webhooks form works as it is in any such library.
      if (decoded) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => verifyWebhook(`${secret}x`, body, headers)).toThrow();

      const header = await webhookSignatureHeaderValue(secret, body);
      expect(await verifyWebhookSignature(secret, header, body)).toBe(true);
      expect(await clientVerifySignature(secret, header, body)).toBe(true);
      expect(await clientVerifySignature(`${secret}x`, header, body)).toBe(false);
    });
  }

  it("a push signed with each form arrives, and the SDK verifies both of its signatures", async () => {
    for (const { label, secret } of secrets) {
      const hookId = `secret-form-${crypto.randomUUID()}`;
      const failure = await pushWebhook({
        url: `http://hooks.test/ok/${hookId}`,
        body,
        webhookId: `msg_${hookId}`,
        secret,
        attempt: 1,
        toolCallId: "call_secret_forms",
        policy: { allowPrivateHosts: true },
      });
      expect(failure, label).toBeUndefined();
      const [push] = (await (await fetch(`http://hooks.test/recorded/${hookId}`)).json()) as Recorded[];
      expect(verifyWebhook(secret, push.body, push.headers), label).toMatchObject({ toolCallId: "call_secret_forms" });
      expect(await clientVerifySignature(secret, push.headers["x-switchboard-signature"], push.body), label).toBe(true);
    }
  });

  it("only an empty or missing secret is refused, in words that never repeat a value", async () => {
    expect(keyBytesOf("")).toBeUndefined();
    await expect(signStandardWebhook("", "msg", 1, body)).rejects.toThrow("A webhook secret is required");
    expect(() => webhookKeyBytes("")).toThrow("A webhook secret is required");
    expect(webhookSecretProblem("")).toBe("is empty");
    expect(webhookSecretProblem(undefined)).toBe("is not set");
    expect(webhookSecretProblem(42)).toBe("is not a string");
  });
});
