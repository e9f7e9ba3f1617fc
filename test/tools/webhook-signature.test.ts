import { describe, expect, it } from "vitest";
import { signWebhook, verifyWebhookSignature, webhookSignatureHeader, webhookSignatureHeaderValue } from "../../src/webhooks/webhook-signature";

const secret = "whsec_test";
const body = JSON.stringify({ toolCallId: "call_1", args: { city: "Oslo" } });

describe("signWebhook", () => {
  it("is the hex HMAC-SHA256 of `timestamp.body`, keyed like every push (`whsec_test` is base64: its decoded bytes)", async () => {
    const decoded = Uint8Array.from(atob("test"), (character) => character.charCodeAt(0));
    const key = await crypto.subtle.importKey("raw", decoded, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`1700000000.${body}`)));
    const hex = [...expected].map((byte) => byte.toString(16).padStart(2, "0")).join("");
    expect(await signWebhook(secret, 1700000000, body)).toBe(hex);
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
  });

  it("matches a value computed independently (Node's crypto.createHmac)", async () => {
    expect(await signWebhook("key", 1700000000, '{"ok":true}')).toBe("2d180000ee47d3182b4ab05f69683dd1aa6b86bbecd1ba52acc64d4e17840fc6");
  });
});

describe("verifyWebhookSignature", () => {
  const now = 1_700_000_000;

  it("accepts the header the gateway sends", async () => {
    const header = await webhookSignatureHeaderValue(secret, body, now);
    expect(webhookSignatureHeader).toBe("x-switchboard-signature");
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(await verifyWebhookSignature(secret, header, body, 300, now + 10)).toBe(true);
  });

  it("refuses a changed body, another secret, or a stale timestamp", async () => {
    const header = await webhookSignatureHeaderValue(secret, body, now);
    expect(await verifyWebhookSignature(secret, header, `${body} `, 300, now)).toBe(false);
    expect(await verifyWebhookSignature("other", header, body, 300, now)).toBe(false);
    expect(await verifyWebhookSignature(secret, header, body, 300, now + 301)).toBe(false);
    expect(await verifyWebhookSignature(secret, header, body, 300, now - 301)).toBe(false);
  });

  it("refuses a timestamp swapped into a valid signature", async () => {
    const header = await webhookSignatureHeaderValue(secret, body, now);
    expect(await verifyWebhookSignature(secret, header.replace(`t=${now}`, `t=${now + 5}`), body, 300, now)).toBe(false);
  });

  it("refuses missing or malformed headers", async () => {
    for (const header of [null, undefined, "", "v1=abc", `t=${now}`, "t=x,v1=zz", `t=${now},v1=${"0".repeat(64)}`]) {
      expect(await verifyWebhookSignature(secret, header, body, 300, now)).toBe(false);
    }
    const signature = await signWebhook(secret, now, body);
    expect(await verifyWebhookSignature("", `t=${now},v1=${signature}`, body, 300, now)).toBe(false);
    await expect(signWebhook("", now, body)).rejects.toThrow("A webhook secret is required");
  });

  it("accepts any of several v1 signatures, for secret rotation", async () => {
    const current = await signWebhook(secret, now, body);
    const old = await signWebhook("old-secret", now, body);
    expect(await verifyWebhookSignature(secret, `t=${now}, v1=${old}, v1=${current.toUpperCase()}`, body, 300, now)).toBe(true);
  });
});
