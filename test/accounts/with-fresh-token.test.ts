/**
 * One refresh at a time per connection: a token used as it is while it has
 * more than a minute left, refreshed before that and after a 401; many
 * callers at once share one refresh; a refresher that loses the
 * compare-and-set to another object (or whose refresh token the other one
 * already used) takes the winner's token; a rotated refresh token replaces
 * the old one, and one left out keeps it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Connection, ConnectionStore } from "../../src/accounts/connection-store";
import { tokenCipherFor, type TokenSet } from "../../src/accounts/token-cipher";
import { type RefreshedTokens, withFreshToken } from "../../src/accounts/with-fresh-token";
import { getDatabase } from "../../src/db/client";
import { createHuman } from "../support/api";

const store = async () => new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

const tokens = (overrides: Partial<TokenSet> = {}): TokenSet => ({
  accessToken: `at-${crypto.randomUUID()}`,
  refreshToken: `rt-${crypto.randomUUID()}`,
  expiresAt: inMs(3_600_000),
  scopes: ["calendar.read"],
  tokenType: "Bearer",
  ...overrides,
});

/** A connected account, its tokens as given. */
async function connected(given: TokenSet) {
  const connections = await store();
  const identity = { entityId: await createHuman("Ada"), connectionKey: "https://calendar.example.com/mcp" };
  const saved = await connections.save(identity, given);
  if (!saved.ok) throw new Error(saved.reason);
  return { connections, identity };
}

/** A refresh that counts its calls and hands out new tokens (the refresh token rotated unless told otherwise). */
function countingRefresh(options: { rotate?: boolean } = {}) {
  const seen: Connection[] = [];
  const refresh = async (current: Connection): Promise<RefreshedTokens> => {
    seen.push(current);
    const next: RefreshedTokens = { accessToken: `at-refreshed-${seen.length}-${crypto.randomUUID()}`, expiresAt: inMs(3_600_000), tokenType: "Bearer" };
    if (options.rotate !== false) next.refreshToken = `rt-rotated-${seen.length}-${crypto.randomUUID()}`;
    return next;
  };
  return { refresh, seen };
}

async function stored(connections: ConnectionStore, identity: { entityId: string; connectionKey: string }): Promise<Connection> {
  const read = await connections.read(identity);
  if (!read.ok) throw new Error(read.message);
  return read.connection;
}

describe("withFreshToken", () => {
  it("uses a token with more than a minute left as it is, and refreshes one with less", async () => {
    const lasting = tokens();
    const { connections, identity } = await connected(lasting);
    const { refresh, seen } = countingRefresh();
    expect(await withFreshToken(connections, identity, refresh)).toMatchObject({ ok: true, refreshed: false, connection: { tokens: lasting } });
    expect(seen).toHaveLength(0);

    // The clock moved to 59 s before expiry: within the margin.
    const expiry = Date.parse(lasting.expiresAt ?? "");
    const late = await withFreshToken(connections, identity, refresh, { now: () => expiry - 59_000 });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.tokens.refreshToken).toBe(lasting.refreshToken);
    expect(late).toMatchObject({ ok: true, refreshed: true });
    expect((await stored(connections, identity)).tokens.accessToken).toBe(late.ok ? late.connection.tokens.accessToken : "");
  });

  it("20 calls at once for an expiring token: exactly one refresh, and all 20 get its token", async () => {
    const { connections, identity } = await connected(tokens({ expiresAt: inMs(30_000) }));
    const { refresh, seen } = countingRefresh();
    const results = await Promise.all(Array.from({ length: 20 }, () => withFreshToken(connections, identity, refresh)));
    expect(seen).toHaveLength(1);
    const row = await stored(connections, identity);
    expect(row.tokens.accessToken).toMatch(/^at-refreshed-1-/);
    for (const result of results) expect(result).toMatchObject({ ok: true, connection: { tokens: { accessToken: row.tokens.accessToken } } });
    // Done: the next call finds the fresh token and refreshes nothing.
    expect(await withFreshToken(connections, identity, refresh)).toMatchObject({ ok: true, refreshed: false });
    expect(seen).toHaveLength(1);
  });

  it("after a 401 refreshes a token that has not expired, once for many callers; a token refused earlier is not refreshed again", async () => {
    const first = tokens();
    const { connections, identity } = await connected(first);
    const { refresh, seen } = countingRefresh();
    // One caller is already using the connection (no 401) when the refused ones arrive: they wait for it, then refresh once.
    const calls = [
      withFreshToken(connections, identity, refresh),
      ...Array.from({ length: 10 }, () => withFreshToken(connections, identity, refresh, { rejectedAccessToken: first.accessToken })),
    ];
    const [plain, ...refused] = await Promise.all(calls);
    expect(plain).toMatchObject({ ok: true, connection: { tokens: { accessToken: first.accessToken } } });
    expect(seen).toHaveLength(1);
    const fresh = (await stored(connections, identity)).tokens.accessToken;
    expect(fresh).not.toBe(first.accessToken);
    for (const result of refused) expect(result).toMatchObject({ ok: true, connection: { tokens: { accessToken: fresh } } });
    // A late 401 for the old token: the row already holds another one, which is used.
    expect(await withFreshToken(connections, identity, refresh, { rejectedAccessToken: first.accessToken })).toMatchObject({ ok: true, refreshed: false });
    expect(seen).toHaveLength(1);
  });

  it("a refresher that loses the compare-and-set re-reads the row and uses the winner's token", async () => {
    const { connections, identity } = await connected(tokens({ expiresAt: inMs(10_000) }));
    const winner = tokens({ accessToken: `at-winner-${crypto.randomUUID()}`, refreshToken: `rt-winner-${crypto.randomUUID()}` });
    // Another object, with its own store over the same D1, refreshes first while this one's refresh is under way.
    const elsewhere = await store();
    let ours: RefreshedTokens | undefined;
    const result = await withFreshToken(connections, identity, async (current) => {
      expect(await elsewhere.replaceTokens(current, winner)).toBeDefined();
      ours = { accessToken: `at-loser-${crypto.randomUUID()}`, refreshToken: `rt-loser-${crypto.randomUUID()}`, expiresAt: inMs(3_600_000), tokenType: "Bearer" };
      return ours;
    });
    expect(result).toMatchObject({ ok: true, refreshed: false, connection: { tokens: winner } });
    const row = await stored(connections, identity);
    expect(row.tokens).toEqual(winner);
    expect(JSON.stringify(row)).not.toContain(ours?.accessToken);
  });

  it("a refresh the server refuses because the winner already used the refresh token takes the winner's token; a plain failure says so", async () => {
    const { connections, identity } = await connected(tokens({ expiresAt: inMs(10_000) }));
    const winner = tokens({ accessToken: `at-winner-${crypto.randomUUID()}` });
    const elsewhere = await store();
    const taken = await withFreshToken(connections, identity, async (current) => {
      await elsewhere.replaceTokens(current, winner);
      throw new Error("invalid_grant");
    });
    expect(taken).toMatchObject({ ok: true, refreshed: false, connection: { tokens: winner } });

    const { connections: other, identity: otherIdentity } = await connected(tokens({ expiresAt: inMs(10_000) }));
    const before = await stored(other, otherIdentity);
    const failed = await withFreshToken(other, otherIdentity, async () => {
      throw new Error("invalid_grant");
    });
    expect(failed).toMatchObject({ ok: false, reason: "refresh_failed", message: "This account's token could not be refreshed" });
    expect(!failed.ok && "cause" in failed && String(failed.cause)).toBe("Error: invalid_grant");
    expect(await stored(other, otherIdentity)).toEqual(before);
  });

  it("a rotated refresh token replaces the old one; a refresh that leaves it out keeps it, and the scopes", async () => {
    const first = tokens({ expiresAt: inMs(10_000), scopes: ["calendar.read", "calendar.write"] });
    const { connections, identity } = await connected(first);
    const rotating = countingRefresh();
    await withFreshToken(connections, identity, rotating.refresh, { rejectedAccessToken: first.accessToken });
    const afterRotation = await stored(connections, identity);
    expect(afterRotation.tokens.refreshToken).toMatch(/^rt-rotated-1-/);
    expect(JSON.stringify(await env.DB.prepare("SELECT * FROM account_connections").all())).not.toContain(first.refreshToken);

    // The next refresh is given the rotated token, and its answer leaves the refresh token out.
    const keeping = countingRefresh({ rotate: false });
    await withFreshToken(connections, identity, keeping.refresh, { rejectedAccessToken: afterRotation.tokens.accessToken });
    expect(keeping.seen[0]?.tokens.refreshToken).toBe(afterRotation.tokens.refreshToken);
    const kept = await stored(connections, identity);
    expect(kept.tokens.refreshToken).toBe(afterRotation.tokens.refreshToken);
    expect(kept.tokens.scopes).toEqual(["calendar.read", "calendar.write"]);
    expect(kept.tokens.accessToken).toMatch(/^at-refreshed-1-/);
  });

  it("without a refresh token: used until it expires, then the account must be connected again", async () => {
    const short = tokens({ expiresAt: inMs(30_000) });
    delete short.refreshToken;
    const { connections, identity } = await connected(short);
    const { refresh, seen } = countingRefresh();
    expect(await withFreshToken(connections, identity, refresh)).toMatchObject({ ok: true, refreshed: false, connection: { tokens: short } });
    expect(await withFreshToken(connections, identity, refresh, { now: () => Date.parse(short.expiresAt ?? "") })).toMatchObject({ ok: false, reason: "expired" });
    expect(await withFreshToken(connections, identity, refresh, { rejectedAccessToken: short.accessToken })).toMatchObject({ ok: false, reason: "expired" });
    expect(seen).toHaveLength(0);
  });

  it("a connection revoked while its refresh is under way stays revoked; the refreshed tokens are dropped", async () => {
    const { connections, identity } = await connected(tokens({ expiresAt: inMs(10_000) }));
    const { refresh } = countingRefresh();
    const result = await withFreshToken(connections, identity, async (current) => {
      await connections.revoke(identity);
      return refresh(current);
    });
    expect(result).toMatchObject({ ok: false, reason: "revoked" });
    expect(await env.DB.prepare("SELECT sealed_tokens FROM account_connections WHERE entity_id = ?").bind(identity.entityId).first("sealed_tokens")).toBeNull();
    expect(await withFreshToken(connections, { ...identity, connectionKey: "https://never.example.com" }, refresh)).toMatchObject({ ok: false, reason: "not_connected" });
  });

  it("refreshed tokens that are not a token set are refused, and the row is unchanged", async () => {
    const { connections, identity } = await connected(tokens({ expiresAt: inMs(10_000) }));
    const before = await stored(connections, identity);
    const result = await withFreshToken(connections, identity, async () => ({ accessToken: "", tokenType: "Bearer", scopes: ["two words"] }));
    expect(result).toEqual({ ok: false, reason: "refresh_failed", message: "This account's refreshed tokens are not a token set (accessToken, scopes.0)" });
    expect(await stored(connections, identity)).toEqual(before);
  });
});
