/**
 * Base64, written once for the Worker (src/base64.ts, on hono's encoders)
 * and once for the SDK (client/src/base64.ts, which cannot import from src/):
 * both agree with each other and with Node's own encoder on every case, and
 * each decoder takes exactly the forms its callers rely on.
 */
import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import * as client from "../client/src/base64";
import { anyBase64ToBytes, base64ToBytes, base64UrlToBytes, bytesToBase64, bytesToBase64Url } from "../src/base64";

const utf8 = (text: string) => new TextEncoder().encode(text);

const samples: { label: string; bytes: Uint8Array }[] = [
  { label: "nothing", bytes: new Uint8Array() },
  { label: "one byte (two padding characters)", bytes: utf8("a") },
  { label: "two bytes (one padding character)", bytes: utf8("ab") },
  { label: "three bytes (no padding)", bytes: utf8("abc") },
  { label: "non-ASCII text", bytes: utf8("sécret ✓ ünïcode 🙂") },
  // 0xfb 0xff gives `+` and `/` in base64, `-` and `_` in base64url.
  { label: "bytes that need + and /", bytes: Uint8Array.from([0xfb, 0xff, 0xbf, 0xfe]) },
  { label: "every byte value", bytes: Uint8Array.from({ length: 256 }, (_, index) => index) },
];

describe("base64 (Worker and SDK)", () => {
  for (const { label, bytes } of samples) {
    it(`${label}: encodes as Node does and comes back the same`, () => {
      const standard = Buffer.from(bytes).toString("base64");
      const url = Buffer.from(bytes).toString("base64url");
      expect(bytesToBase64(bytes)).toBe(standard);
      expect(client.bytesToBase64(bytes)).toBe(standard);
      expect(bytesToBase64Url(bytes)).toBe(url);
      expect(client.bytesToBase64Url(bytes)).toBe(url);
      expect([...(base64ToBytes(standard) ?? [0])]).toEqual([...bytes]);
      expect([...(client.base64ToBytes(standard) ?? [0])]).toEqual([...bytes]);
      expect([...(base64UrlToBytes(url) ?? [0])]).toEqual([...bytes]);
      expect([...(anyBase64ToBytes(url) ?? [0])]).toEqual([...bytes]);
      expect([...(anyBase64ToBytes(standard) ?? [0])]).toEqual([...bytes]);
    });
  }

  it("base64url has no padding and no + or /; base64 keeps its padding", () => {
    const bytes = Uint8Array.from([0xfb, 0xff]);
    expect(bytesToBase64(bytes)).toBe("+/8=");
    expect(bytesToBase64Url(bytes)).toBe("-_8");
  });

  it("encodes only the bytes a view covers, not the whole buffer behind it", () => {
    const whole = utf8("xxhelloxx");
    const view = whole.subarray(2, 7);
    expect(bytesToBase64(view)).toBe(btoa("hello"));
    expect(bytesToBase64Url(view)).toBe(btoa("hello").replace(/=+$/, ""));
    expect(client.bytesToBase64(view)).toBe(btoa("hello"));
  });

  it("base64url decoding takes only its own form: no padding, no standard alphabet, no white space", () => {
    expect(base64UrlToBytes("-_8")).toEqual(Uint8Array.from([0xfb, 0xff]));
    expect(base64UrlToBytes("-_8=")).toBeUndefined();
    expect(base64UrlToBytes("+/8")).toBeUndefined();
    expect(base64UrlToBytes("-_ 8")).toBeUndefined();
    // One character too many for a whole byte.
    expect(base64UrlToBytes("abcde")).toBeUndefined();
    expect(base64UrlToBytes("")).toEqual(new Uint8Array());
  });

  it("standard decoding is atob's: padding optional, anything else undefined, never a throw", () => {
    for (const decode of [base64ToBytes, client.base64ToBytes]) {
      expect(decode("aGk=")).toEqual(utf8("hi"));
      expect(decode("aGk")).toEqual(utf8("hi"));
      expect(decode("a")).toBeUndefined();
      expect(decode("aG!k")).toBeUndefined();
      expect(decode("-_8")).toBeUndefined();
    }
  });

  it("the lenient decoder takes what people paste: either alphabet, white space, padding or none", () => {
    expect(anyBase64ToBytes(" aG\nk= ")).toEqual(utf8("hi"));
    expect(anyBase64ToBytes("aGk")).toEqual(utf8("hi"));
    expect(anyBase64ToBytes("+_8")).toEqual(Uint8Array.from([0xfb, 0xff]));
    expect(anyBase64ToBytes("QQ=")).toEqual(utf8("A"));
    expect(anyBase64ToBytes("a")).toBeUndefined();
    expect(anyBase64ToBytes("a=b")).toBeUndefined();
    expect(anyBase64ToBytes("")).toEqual(new Uint8Array());
  });
});
