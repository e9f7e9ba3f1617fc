/**
 * A connected account's tokens, sealed at rest: the whole token set (access
 * token, refresh token, expiry, scopes, token type) encrypted as one blob
 * with AES-256-GCM under a key from the `ACCOUNTS_KEYS` secret.
 *
 * `ACCOUNTS_KEYS` is one or more keys, comma-separated, each `id:key` where
 * the id is 1–32 letters, digits, `-` or `_` and the key is 32 random bytes
 * in base64 (`openssl rand -base64 32`; base64url too):
 * `k2026b:…,k2026a:…`. The first key seals; any key opens the blobs it
 * sealed. So a new key goes first, the old one stays until nothing is sealed
 * with it, then goes.
 *
 * A blob is `v1.<key id>.<iv>.<ciphertext>` (base64url), a fresh random
 * 96-bit IV each time. The connection it belongs to (entity id and
 * connection key) and the key id are bound in as additional authenticated
 * data: a blob copied to another row, or relabelled with another key id,
 * does not open. Nothing here ever puts a token, a key or a blob in an
 * error message.
 */
import { z } from "zod";
import { base64ToBytes, base64UrlToBytes, bytesToBase64Url } from "../base64";

/** A scope token as OAuth writes it (no spaces, quotes or backslashes): a token set's scopes are stored space-separated. */
export const scopeToken = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, "is not an OAuth scope token");

export const TokenSet = z
  .object({
    accessToken: z.string().min(1),
    refreshToken: z.string().min(1).optional(),
    /** When the access token stops working (ISO 8601); absent when the server did not say. */
    expiresAt: z.iso.datetime().optional(),
    scopes: z.array(scopeToken),
    /** `Bearer`, or what the server named. */
    tokenType: z.string().min(1),
  })
  .strict();
export type TokenSet = z.infer<typeof TokenSet>;

/** Whose tokens a blob holds: bound into every blob. */
export type ConnectionIdentity = { entityId: string; connectionKey: string };

export type SealedTokens = { blob: string; keyId: string };

export type OpenFailure = {
  ok: false;
  /** `malformed`: not a blob this code writes; `unknown_key`: sealed with a key `ACCOUNTS_KEYS` no longer holds; `not_authentic`: altered, another connection's, or the key under that id changed. */
  code: "malformed" | "unknown_key" | "not_authentic";
  message: string;
};
export type OpenedTokens = { ok: true; tokens: TokenSet; keyId: string } | OpenFailure;

/** AES-256: the only key size `ACCOUNTS_KEYS` takes. */
export const accountsKeyBytes = 32;
const ivBytes = 12;
const tagBytes = 16;
const keyIdPattern = /^[A-Za-z0-9_-]{1,32}$/;
const blobVersion = "v1";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

type RawKey = { id: string; bytes: Uint8Array<ArrayBuffer> };
export type ParsedAccountsKeys = { ok: true; keys: RawKey[] } | { ok: false; problem: string };

/**
 * `ACCOUNTS_KEYS` read and checked. A problem says what is wrong in fixed
 * words, a key by its position ("a key (number 2)"), never a value, a part
 * of one, or its length, as `GET /health` reports the other secrets.
 */
export function parseAccountsKeys(value: unknown): ParsedAccountsKeys {
  if (value === undefined || value === null) return { ok: false, problem: "is not set" };
  if (typeof value !== "string") return { ok: false, problem: "is not a string" };
  if (value.trim() === "") return { ok: false, problem: "is empty" };
  const keys: RawKey[] = [];
  const entries = value.split(",");
  for (const [index, entry] of entries.entries()) {
    const which = entries.length === 1 ? "has a key" : `has a key (number ${index + 1})`;
    const separator = entry.indexOf(":");
    if (separator === -1) return { ok: false, problem: `${which} that is not in the form id:base64key (keys are separated by commas)` };
    const id = entry.slice(0, separator).trim();
    if (!keyIdPattern.test(id)) return { ok: false, problem: `${which} whose id is not 1–32 letters, digits, "-" or "_"` };
    if (keys.some((key) => key.id === id)) return { ok: false, problem: `${which} with the same id as an earlier one` };
    const text = entry.slice(separator + 1).trim();
    const bytes = base64ToBytes(text) ?? base64UrlToBytes(text);
    if (bytes === undefined || bytes.byteLength !== accountsKeyBytes) {
      return { ok: false, problem: `${which} that is not ${accountsKeyBytes} bytes in base64 (make one with: openssl rand -base64 ${accountsKeyBytes})` };
    }
    keys.push({ id, bytes });
  }
  return { ok: true, keys };
}

/** What is wrong with `ACCOUNTS_KEYS`, or undefined: for the checks `GET /health` runs once accounts are configured. */
export function accountsKeysProblem(value: unknown): string | undefined {
  const parsed = parseAccountsKeys(value);
  return parsed.ok ? undefined : parsed.problem;
}

/** `ACCOUNTS_KEYS` is missing or malformed: the message names the setting and the problem, never its value. */
export class AccountsKeysError extends Error {
  constructor(readonly problem: string) {
    super(`ACCOUNTS_KEYS ${problem}. Connected accounts need it: one or more keys, "id:base64key", comma-separated, the first one sealing (docs/accounts.md)`);
    this.name = "AccountsKeysError";
  }
}

/** The additional authenticated data: the blob's format, its key id and the connection, unambiguously (JSON). */
function associatedData(keyId: string, identity: ConnectionIdentity): BufferSource {
  return encoder.encode(JSON.stringify([`switchboard.account-tokens.${blobVersion}`, keyId, identity.entityId, identity.connectionKey]));
}

/** What a sealed secret other than a token set is bound to: what it is for, and whose it is (an OAuth flow's id). */
export type SealBinding = { purpose: string; context: string[] };

/** A sealed secret's additional data: never equal to a token set's (its first element differs), so neither opens as the other. */
function textAssociatedData(keyId: string, binding: SealBinding): BufferSource {
  return encoder.encode(JSON.stringify([`switchboard.sealed.${binding.purpose}.${blobVersion}`, keyId, ...binding.context]));
}

export class TokenCipher {
  private constructor(
    private readonly keys: ReadonlyMap<string, CryptoKey>,
    readonly sealingKeyId: string,
  ) {}

  /** A cipher over checked keys (the first seals); the keys are imported once, not extractable. */
  static async fromKeys(keys: RawKey[]): Promise<TokenCipher> {
    const [first] = keys;
    if (first === undefined) throw new AccountsKeysError("is empty");
    const imported = new Map<string, CryptoKey>();
    for (const key of keys) imported.set(key.id, await crypto.subtle.importKey("raw", key.bytes, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]));
    return new TokenCipher(imported, first.id);
  }

  /** Seals a token set for one connection with the first key. Throws on a value that is not a token set (naming the field, never its value). */
  async seal(tokens: TokenSet, identity: ConnectionIdentity): Promise<SealedTokens> {
    const checked = TokenSet.safeParse(tokens);
    if (!checked.success) throw new TypeError(`Not a token set: ${checked.error.issues.map((issue) => issue.path.join(".") || "the value").join(", ")}`);
    const key = this.keys.get(this.sealingKeyId);
    if (key === undefined) throw new AccountsKeysError("has no key to seal with");
    const iv = crypto.getRandomValues(new Uint8Array(ivBytes));
    const plaintext = encoder.encode(JSON.stringify(checked.data));
    const ciphertext = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: associatedData(this.sealingKeyId, identity), tagLength: tagBytes * 8 }, key, plaintext);
    const blob = [blobVersion, this.sealingKeyId, bytesToBase64Url(iv), bytesToBase64Url(new Uint8Array(ciphertext))].join(".");
    return { blob, keyId: this.sealingKeyId };
  }

  /** Opens a blob sealed for `identity` with any key `ACCOUNTS_KEYS` holds; a failure says why, never what the blob holds. */
  async open(blob: string, identity: ConnectionIdentity): Promise<OpenedTokens> {
    const opened = await this.decrypt(blob, (keyId) => associatedData(keyId, identity));
    if (!opened.ok) return opened;
    // Authentic, so written by a seal: anything but a token set is a shape from another version (never shown: it is the plaintext).
    let value: unknown;
    try {
      value = JSON.parse(decoder.decode(opened.plaintext));
    } catch {
      value = undefined;
    }
    const tokens = TokenSet.safeParse(value);
    if (!tokens.success) return { ok: false, code: "malformed", message: "The stored tokens open but are not a token set this gateway reads" };
    return { ok: true, tokens: tokens.data, keyId: opened.keyId };
  }

  /**
   * Seals another secret than a token set (an OAuth flow's verifier) with the
   * first key, bound to `binding`: its purpose and what it belongs to. It
   * opens only with `openText` and the same binding, never as a token set.
   */
  async sealText(text: string, binding: SealBinding): Promise<SealedTokens> {
    const key = this.keys.get(this.sealingKeyId);
    if (key === undefined) throw new AccountsKeysError("has no key to seal with");
    const iv = crypto.getRandomValues(new Uint8Array(ivBytes));
    const additionalData = textAssociatedData(this.sealingKeyId, binding);
    const ciphertext = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData, tagLength: tagBytes * 8 }, key, encoder.encode(text));
    const blob = [blobVersion, this.sealingKeyId, bytesToBase64Url(iv), bytesToBase64Url(new Uint8Array(ciphertext))].join(".");
    return { blob, keyId: this.sealingKeyId };
  }

  /** Opens what `sealText` sealed with the same binding; a failure says why, never what the blob holds. */
  async openText(blob: string, binding: SealBinding): Promise<{ ok: true; text: string; keyId: string } | OpenFailure> {
    const opened = await this.decrypt(blob, (keyId) => textAssociatedData(keyId, binding));
    if (!opened.ok) return opened;
    return { ok: true, text: decoder.decode(opened.plaintext), keyId: opened.keyId };
  }

  private async decrypt(blob: string, additionalData: (keyId: string) => BufferSource): Promise<{ ok: true; plaintext: ArrayBuffer; keyId: string } | OpenFailure> {
    const parts = blob.split(".");
    const [version, keyId, ivText, ciphertextText] = parts;
    if (parts.length !== 4 || version !== blobVersion || keyId === undefined || !keyIdPattern.test(keyId)) {
      return { ok: false, code: "malformed", message: "The stored tokens are not in a form this gateway writes" };
    }
    const iv = base64UrlToBytes(ivText ?? "");
    const ciphertext = base64UrlToBytes(ciphertextText ?? "");
    if (iv === undefined || iv.byteLength !== ivBytes || ciphertext === undefined || ciphertext.byteLength < tagBytes) {
      return { ok: false, code: "malformed", message: "The stored tokens are not in a form this gateway writes" };
    }
    const key = this.keys.get(keyId);
    if (key === undefined) {
      return { ok: false, code: "unknown_key", message: `The stored tokens were sealed with key "${keyId}", which ACCOUNTS_KEYS no longer holds` };
    }
    try {
      const plaintext = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: additionalData(keyId), tagLength: tagBytes * 8 }, key, ciphertext);
      return { ok: true, plaintext, keyId };
    } catch {
      return {
        ok: false,
        code: "not_authentic",
        message: `The stored tokens do not open with key "${keyId}" for this connection: they were altered, belong to another connection, or the key under that id changed`,
      };
    }
  }

  /** Re-seals a blob with the first key (a fresh IV too): opened with whichever key sealed it. */
  async rotate(blob: string, identity: ConnectionIdentity): Promise<{ ok: true; sealed: SealedTokens } | OpenFailure> {
    const opened = await this.open(blob, identity);
    if (!opened.ok) return opened;
    return { ok: true, sealed: await this.seal(opened.tokens, identity) };
  }
}

const ciphers = new Map<string, Promise<TokenCipher>>();

/**
 * The cipher for this env's `ACCOUNTS_KEYS`, its keys parsed and imported
 * once per isolate. Throws `AccountsKeysError` when the secret is missing or
 * malformed.
 */
export async function tokenCipherFor(env: { ACCOUNTS_KEYS?: unknown }): Promise<TokenCipher> {
  const value = env.ACCOUNTS_KEYS;
  // Keyed by the value itself: a deployment has one, and a changed secret comes with a new isolate anyway.
  const cached = typeof value === "string" ? ciphers.get(value) : undefined;
  if (cached !== undefined) return cached;
  const parsed = parseAccountsKeys(value);
  if (!parsed.ok) throw new AccountsKeysError(parsed.problem);
  const source = String(value);
  const cipher = TokenCipher.fromKeys(parsed.keys);
  ciphers.set(source, cipher);
  cipher.catch(() => ciphers.delete(source));
  return cipher;
}
