/**
 * One HMAC key import for the Worker (src/security/hmac-key.ts) and one for
 * the SDK (client/src/hmac-key.ts), checked against Node's own HMAC; and what
 * is signed with them (callback tokens, file links, tokens the SDK signs)
 * is byte for byte what an independent HMAC computes by the documented rule.
 */
import { Buffer } from "node:buffer";
import { createHmac } from "node:crypto";
import { verify } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { importHmacKey as clientImportHmacKey } from "../../client/src/hmac-key";
import { signToken } from "../../client/src/sign-token";
import { signCallbackToken, verifyCallbackToken } from "../../src/security/callback-token";
import { signFileLink } from "../../src/security/file-links";
import { derivePurposeKey, importHmacKey } from "../../src/security/hmac-key";

const encoder = new TextEncoder();
const sign = async (key: CryptoKey, text: string) => new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text)));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("importHmacKey", () => {
  it("a string secret is its UTF-8 bytes, as Node's HMAC reads it (Worker and SDK)", async () => {
    for (const secret of ["plain", "sécret ✓"]) {
      const expected = createHmac("sha256", secret).update("message").digest("hex");
      expect(hex(await sign(await importHmacKey(secret), "message"))).toBe(expected);
      expect(hex(await sign(await clientImportHmacKey(secret), "message"))).toBe(expected);
    }
  });

  it("bytes are taken as they are, and the hash can be chosen", async () => {
    const bytes = Uint8Array.from([0, 255, 1, 254]);
    expect(hex(await sign(await importHmacKey(bytes), "m"))).toBe(createHmac("sha256", bytes).update("m").digest("hex"));
    expect(hex(await sign(await importHmacKey("k", ["sign"], "SHA-512"), "m"))).toBe(createHmac("sha512", "k").update("m").digest("hex"));
    expect(hex(await sign(await clientImportHmacKey(bytes), "m"))).toBe(createHmac("sha256", bytes).update("m").digest("hex"));
  });

  it("signs only unless verify is asked for, and the key never leaves", async () => {
    const signing = await importHmacKey("k");
    expect(signing.usages).toEqual(["sign"]);
    expect(signing.extractable).toBe(false);
    const both = await importHmacKey("k", ["sign", "verify"]);
    expect(await crypto.subtle.verify("HMAC", both, await sign(both, "m"), encoder.encode("m"))).toBe(true);
  });

  it("a purpose key is the HMAC of the purpose's label under the root secret", async () => {
    const derived = createHmac("sha256", "root").update("some purpose v1").digest();
    const expected = createHmac("sha256", derived).update("m").digest("hex");
    expect(hex(await sign(await derivePurposeKey("root", "some purpose v1"), "m"))).toBe(expected);
    expect(hex(await sign(await derivePurposeKey("root", "another purpose"), "m"))).not.toBe(expected);
  });
});

describe("what is signed with them", () => {
  it("a callback token: base64url payload, then the base64url HMAC under the key derived for callback tokens", async () => {
    const token = await signCallbackToken("webhook-secret", "call_abc", 1_900_000_000_000);
    const payload = Buffer.from(JSON.stringify({ c: "call_abc", e: 1_900_000_000 })).toString("base64url");
    const key = createHmac("sha256", "webhook-secret").update("switchboard callback tokens v1").digest();
    expect(token).toBe(`${payload}.${createHmac("sha256", key).update(payload).digest("base64url")}`);
    expect(await verifyCallbackToken("webhook-secret", token, 1_800_000_000_000)).toEqual({ ok: true, callId: "call_abc", expiresAt: 1_900_000_000_000 });
    // Padding, or the other alphabet, makes a different text: not a token the gateway made.
    expect(await verifyCallbackToken("webhook-secret", `${token}=`, 1_800_000_000_000)).toEqual({ ok: false, reason: "malformed" });
  });

  it("a file link: hex HMAC with FILE_LINK_SECRET, or with the key derived from GATEWAY_SECRET_KEY", async () => {
    const input = { key: "files/a.txt", spaceId: "spc_1", seconds: 60, now: 1_700_000_000_000 };
    const message = `v1\nfiles/a.txt\nspc_1\n${1_700_000_060}`;
    const own = new URL(`http://gateway.test${(await signFileLink({ FILE_LINK_SECRET: "link-secret" }, input)).url}`);
    expect(own.searchParams.get("signature")).toBe(createHmac("sha256", "link-secret").update(message).digest("hex"));
    const derivedKey = createHmac("sha256", "sk_root").update("switchboard/file-links/v1").digest();
    const derived = new URL(`http://gateway.test${(await signFileLink({ GATEWAY_SECRET_KEY: "sk_root" }, input)).url}`);
    expect(derived.searchParams.get("signature")).toBe(createHmac("sha256", derivedKey).update(message).digest("hex"));
  });

  it("a token the SDK signs verifies as HS256 with the same secret", async () => {
    const token = await signToken("ent_1", { secret: "a-jwt-secret-long-enough-for-hs256", expiresIn: 60 });
    const [header, body, signature] = token.split(".");
    expect(signature).toBe(createHmac("sha256", "a-jwt-secret-long-enough-for-hs256").update(`${header}.${body}`).digest("base64url"));
    await expect(verify(token, "a-jwt-secret-long-enough-for-hs256", "HS256")).resolves.toMatchObject({ sub: "ent_1" });
  });
});
