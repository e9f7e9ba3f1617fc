/**
 * The token cipher on its own: a token set sealed and opened, what makes a
 * blob fail to open (another connection, one changed byte, a key no longer
 * held) and that the failure never shows the token; key rotation from one
 * key to the next; and `ACCOUNTS_KEYS` checked in fixed words.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { base64UrlToBytes, bytesToBase64, bytesToBase64Url } from "../../src/base64";
import { AccountsKeysError, accountsKeysProblem, parseAccountsKeys, TokenCipher, tokenCipherFor, type TokenSet } from "../../src/accounts/token-cipher";

const randomKey = () => bytesToBase64(crypto.getRandomValues(new Uint8Array(32)));

async function cipherOf(value: string): Promise<TokenCipher> {
  const parsed = parseAccountsKeys(value);
  if (!parsed.ok) throw new Error(parsed.problem);
  return TokenCipher.fromKeys(parsed.keys);
}

const tokens = (): TokenSet => ({
  accessToken: `at-${crypto.randomUUID()}`,
  refreshToken: `rt-${crypto.randomUUID()}`,
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  scopes: ["repo", "read:user"],
  tokenType: "Bearer",
});

const ada = { entityId: "ent_ada", connectionKey: "https://mcp.example.com/mcp" };

describe("the token cipher", () => {
  it("seals a token set as one blob with a fresh IV each time, and opens it for the same connection", async () => {
    const cipher = await cipherOf(`k1:${randomKey()}`);
    const set = tokens();
    const first = await cipher.seal(set, ada);
    const second = await cipher.seal(set, ada);
    expect(first.keyId).toBe("k1");
    expect(first.blob).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    // Same tokens, same key: a different IV, so a different blob.
    expect(first.blob.split(".")[2]).not.toBe(second.blob.split(".")[2]);
    for (const secret of [set.accessToken, set.refreshToken ?? ""]) expect(first.blob).not.toContain(secret);
    expect(await cipher.open(first.blob, ada)).toEqual({ ok: true, tokens: set, keyId: "k1" });
    expect(await cipher.open(second.blob, ada)).toEqual({ ok: true, tokens: set, keyId: "k1" });
  });

  it("does not open a blob for another connection, with a changed byte, or relabelled: each says why, never the token", async () => {
    // k3 is k1's key under another id (an operator adding the same key twice): the id is bound in, not only the key.
    const shared = randomKey();
    const cipher = await cipherOf(`k1:${shared},k2:${randomKey()},k3:${shared}`);
    const set = tokens();
    const { blob } = await cipher.seal(set, ada);
    const failures = [
      await cipher.open(blob, { ...ada, entityId: "ent_bob" }),
      await cipher.open(blob, { ...ada, connectionKey: "https://mcp.example.com/other" }),
      // The identity's parts are bound unambiguously: moving a character from one to the other is another connection.
      await cipher.open(blob, { entityId: "ent_adah", connectionKey: "ttps://mcp.example.com/mcp" }),
    ];
    const [version, keyId, iv, ciphertext] = blob.split(".");
    const bytes = base64UrlToBytes(ciphertext ?? "");
    if (!bytes) throw new Error("the blob's ciphertext is not base64url");
    for (const index of [0, Math.floor(bytes.length / 2), bytes.length - 1]) {
      const tampered = bytes.slice();
      tampered[index] = (tampered[index] ?? 0) ^ 0x01;
      failures.push(await cipher.open([version, keyId, iv, bytesToBase64Url(tampered)].join("."), ada));
    }
    // Labelled with another key the cipher holds, or with another id of the same key: the key id is authenticated too.
    failures.push(await cipher.open([version, "k2", iv, ciphertext].join("."), ada));
    failures.push(await cipher.open([version, "k3", iv, ciphertext].join("."), ada));
    for (const failure of failures) {
      expect(failure).toMatchObject({ ok: false, code: "not_authentic" });
      expect(JSON.stringify(failure)).not.toContain(set.accessToken);
      expect(JSON.stringify(failure)).not.toContain(set.refreshToken);
    }

    const unknown = await cipher.open([version, "k9", iv, ciphertext].join("."), ada);
    expect(unknown).toEqual({ ok: false, code: "unknown_key", message: 'The stored tokens were sealed with key "k9", which ACCOUNTS_KEYS no longer holds' });
    for (const malformed of [
      "",
      "not a blob",
      `v2.${keyId}.${iv}.${ciphertext}`,
      `${version}.${keyId}.${iv}`,
      `${version}.${keyId}.AAAA.${ciphertext}`,
      `${version}.${keyId}.${iv}.AAAA`,
    ]) {
      expect(await cipher.open(malformed, ada)).toMatchObject({ ok: false, code: "malformed" });
    }
  });

  it("rotates: a new key first opens what the old one sealed, re-seals it, and once the old key is dropped the re-sealed blob still opens", async () => {
    const oldKey = `k1:${randomKey()}`;
    const newKey = `k2:${randomKey()}`;
    const set = tokens();
    const old = await (await cipherOf(oldKey)).seal(set, ada);
    expect(old.keyId).toBe("k1");

    const both = await cipherOf(`${newKey},${oldKey}`);
    expect(both.sealingKeyId).toBe("k2");
    expect(await both.open(old.blob, ada)).toEqual({ ok: true, tokens: set, keyId: "k1" });
    const rotated = await both.rotate(old.blob, ada);
    if (!rotated.ok) throw new Error(rotated.message);
    expect(rotated.sealed.keyId).toBe("k2");
    expect(rotated.sealed.blob.startsWith("v1.k2.")).toBe(true);

    const onlyNew = await cipherOf(newKey);
    expect(await onlyNew.open(rotated.sealed.blob, ada)).toEqual({ ok: true, tokens: set, keyId: "k2" });
    expect(await onlyNew.open(old.blob, ada)).toMatchObject({ ok: false, code: "unknown_key" });
    // A blob that does not open is not rotated.
    expect(await onlyNew.rotate(old.blob, ada)).toMatchObject({ ok: false, code: "unknown_key" });
  });

  it("refuses to seal what is not a token set, naming the field and never its value", async () => {
    const cipher = await cipherOf(`k1:${randomKey()}`);
    await expect(cipher.seal({ ...tokens(), scopes: ["two words"] }, ada)).rejects.toThrow("Not a token set: scopes.0");
    await expect(cipher.seal({ ...tokens(), accessToken: "" }, ada)).rejects.toThrow("Not a token set: accessToken");
  });
});

describe("ACCOUNTS_KEYS", () => {
  it("takes one or more id:base64key entries, the first sealing; base64url and spaces around entries are fine", async () => {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const parsed = parseAccountsKeys(` new_2026-b : ${bytesToBase64Url(bytes)} ,\nold:${randomKey()}\n`);
    expect(parsed.ok && parsed.keys.map((key) => key.id)).toEqual(["new_2026-b", "old"]);
    expect(parsed.ok && [...(parsed.keys[0]?.bytes ?? [])]).toEqual([...bytes]);
    // The tests' own value (vitest.config.ts) is one key, "test1".
    expect((await tokenCipherFor(env)).sealingKeyId).toBe("test1");
  });

  it("says what is wrong by position, in fixed words, never a value, a part of one, or its length", () => {
    const key = randomKey();
    const short = bytesToBase64(crypto.getRandomValues(new Uint8Array(16)));
    const cases: [unknown, string][] = [
      [undefined, "is not set"],
      [42, "is not a string"],
      [" ", "is empty"],
      [key, "has a key that is not in the form id:base64key (keys are separated by commas)"],
      [`k1:${key},${key}`, "has a key (number 2) that is not in the form id:base64key (keys are separated by commas)"],
      [`k1:${key},`, "has a key (number 2) that is not in the form id:base64key (keys are separated by commas)"],
      [`k.1:${key}`, 'has a key whose id is not 1–32 letters, digits, "-" or "_"'],
      [`:${key}`, 'has a key whose id is not 1–32 letters, digits, "-" or "_"'],
      [`k1:${key},k1:${randomKey()}`, "has a key (number 2) with the same id as an earlier one"],
      [`k1:${short}`, "has a key that is not 32 bytes in base64 (make one with: openssl rand -base64 32)"],
      [`k1:${key},k2:not base64!`, "has a key (number 2) that is not 32 bytes in base64 (make one with: openssl rand -base64 32)"],
    ];
    for (const [value, problem] of cases) {
      expect(accountsKeysProblem(value)).toBe(problem);
      expect(problem).not.toContain(key);
      expect(problem).not.toContain(short);
    }
    expect(accountsKeysProblem(`k1:${key}`)).toBeUndefined();
  });

  it("a missing or malformed secret is a clear error from the cipher, naming the setting and never its value", async () => {
    await expect(tokenCipherFor({})).rejects.toThrow(AccountsKeysError);
    await expect(tokenCipherFor({})).rejects.toThrow(/^ACCOUNTS_KEYS is not set\. Connected accounts need it: one or more keys, "id:base64key"/);
    const malformed = `k1:${bytesToBase64(crypto.getRandomValues(new Uint8Array(20)))}`;
    const error = await tokenCipherFor({ ACCOUNTS_KEYS: malformed }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AccountsKeysError);
    expect(String(error)).toContain("ACCOUNTS_KEYS has a key that is not 32 bytes in base64");
    expect(String(error)).not.toContain(malformed.slice(3));
  });
});
