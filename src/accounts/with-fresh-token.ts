/**
 * A connection's token, refreshed when it is about to expire or after the
 * service refused it (a 401), one refresh at a time per connection:
 * - in this isolate, callers asking for the same connection at once share
 *   one read and at most one refresh (a map of promises);
 * - across isolates and objects, the refreshed tokens are written only over
 *   the row's version they were read at (compare-and-set). The refresher that
 *   loses re-reads the row and uses the winner's token; so does one whose
 *   refresh the server refused because the winner had already used (and
 *   rotated) the same refresh token.
 * A refresh token the server rotates replaces the old one; one it leaves
 * out keeps the old one, as do scopes it leaves out.
 */
import type { Connection, ConnectionDetails, ConnectionFailure, ConnectionStore } from "./connection-store";
import { errorText } from "./oauth-failure";
import { type ConnectionIdentity, TokenSet } from "./token-cipher";

/** A token expiring within this is refreshed before it is used. */
export const refreshMarginMs = 60_000;

/** What a refresh gives: a token response, where the refresh token and the scopes may be left out (the old ones stay). */
export type RefreshedTokens = Omit<TokenSet, "scopes"> & { scopes?: string[] };

export type FreshTokenFailure =
  | ConnectionFailure
  | {
      ok: false;
      /** `expired`: no refresh token to renew it with; `refresh_failed`: the refresh threw (`cause`). */
      reason: "expired" | "refresh_failed";
      message: string;
      cause?: unknown;
    };
export type FreshToken = { ok: true; connection: Connection; refreshed: boolean } | FreshTokenFailure;

export type FreshTokenOptions = {
  /** The access token a service just refused with a 401: a token equal to it is refreshed whatever its expiry. */
  rejectedAccessToken?: string;
  /**
   * New tokens without a refresh token (the client credentials grant of a
   * tool that acts as its agent): asked for when there is no connection (or
   * it was revoked), and instead of a refresh when there is no refresh token.
   * A failure rejects (`refresh_failed`).
   */
  grant?: () => Promise<{ tokens: TokenSet; details: ConnectionDetails }>;
  /** The clock, in ms (tests). */
  now?: () => number;
};

const inFlight = new Map<string, Promise<FreshToken>>();

/**
 * The connection with a token fit to use, refreshed through `refresh` (given
 * the connection as read, with its refresh token) when it must be. Failures
 * are data; a failing store (D1) rejects.
 */
export async function withFreshToken(
  store: ConnectionStore,
  identity: ConnectionIdentity,
  refresh: (current: Connection) => Promise<RefreshedTokens>,
  options: FreshTokenOptions = {},
): Promise<FreshToken> {
  const key = JSON.stringify([identity.entityId, identity.connectionKey]);
  for (;;) {
    const running = inFlight.get(key);
    if (running === undefined) {
      const started = freshen(store, identity, refresh, options).finally(() => {
        if (inFlight.get(key) === started) inFlight.delete(key);
      });
      inFlight.set(key, started);
      return started;
    }
    const joined = await running;
    // The read we joined kept the token this caller saw refused (it was not asked to refresh): go again, refreshing.
    if (!(joined.ok && options.rejectedAccessToken !== undefined && joined.connection.tokens.accessToken === options.rejectedAccessToken)) return joined;
  }
}

function expiresWithin(tokens: TokenSet, marginMs: number, now: number): boolean {
  return tokens.expiresAt !== undefined && Date.parse(tokens.expiresAt) - now <= marginMs;
}

async function freshen(
  store: ConnectionStore,
  identity: ConnectionIdentity,
  refresh: (current: Connection) => Promise<RefreshedTokens>,
  options: FreshTokenOptions,
): Promise<FreshToken> {
  const now = options.now ?? Date.now;
  const read = await store.read(identity);
  if (!read.ok) {
    if (options.grant === undefined || read.reason === "unreadable") return read;
    return granted(store, identity, options.grant, undefined);
  }
  const current = read.connection;
  const rejected = options.rejectedAccessToken !== undefined && options.rejectedAccessToken === current.tokens.accessToken;
  if (!rejected && !expiresWithin(current.tokens, refreshMarginMs, now())) return { ok: true, connection: current, refreshed: false };
  if (current.tokens.refreshToken === undefined && options.grant !== undefined) return granted(store, identity, options.grant, current);
  if (current.tokens.refreshToken === undefined) {
    // Nothing to renew it with: what is left of its life is still usable, then the account must be connected again.
    if (!rejected && !expiresWithin(current.tokens, 0, now())) return { ok: true, connection: current, refreshed: false };
    return { ok: false, reason: "expired", message: "This account's token has expired and there is no refresh token: the account must be connected again" };
  }

  let response: RefreshedTokens;
  try {
    response = await refresh(current);
  } catch (cause) {
    // Another refresher may have used the same refresh token first (a server that rotates them refuses it a second time): its token is in the row.
    const after = await store.read(identity);
    if (after.ok && after.connection.version !== current.version && after.connection.tokens.accessToken !== current.tokens.accessToken) {
      return { ok: true, connection: after.connection, refreshed: false };
    }
    return { ok: false, reason: "refresh_failed", message: "This account's token could not be refreshed", cause };
  }
  const checked = TokenSet.safeParse({
    accessToken: response.accessToken,
    refreshToken: response.refreshToken ?? current.tokens.refreshToken,
    expiresAt: response.expiresAt,
    scopes: response.scopes ?? current.tokens.scopes,
    tokenType: response.tokenType,
  });
  if (!checked.success) {
    const fields = checked.error.issues.map((issue) => issue.path.join(".") || "the value").join(", ");
    return { ok: false, reason: "refresh_failed", message: `This account's refreshed tokens are not a token set (${fields})` };
  }
  const tokens = checked.data;

  let base: Connection = current;
  // Bounded: each lost round means another writer changed the row in between.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const written = await store.replaceTokens(base, tokens);
    if (written) return { ok: true, connection: written, refreshed: true };
    const after = await store.read(identity);
    if (!after.ok) return after;
    // Another refresher (or a new connection) wrote new tokens first: use them; ours are dropped.
    if (after.connection.tokens.accessToken !== current.tokens.accessToken) return { ok: true, connection: after.connection, refreshed: false };
    // The row moved without new tokens: ours are still the newest.
    base = after.connection;
  }
  return { ok: false, reason: "refresh_failed", message: "This account's refreshed token could not be stored: its row kept changing" };
}

/**
 * Tokens granted anew (no refresh token to use), stored over the row as it
 * was read (`current`; compare-and-set, so a grant another caller stored
 * first is used instead), or as a new connection when there was none.
 */
async function granted(store: ConnectionStore, identity: ConnectionIdentity, grant: NonNullable<FreshTokenOptions["grant"]>, current: Connection | undefined): Promise<FreshToken> {
  let answer: Awaited<ReturnType<typeof grant>>;
  try {
    answer = await grant();
  } catch (cause) {
    // The grant's own failure (the server's words, bounded): what an operator needs to fix it; never a secret.
    return { ok: false, reason: "refresh_failed", message: `A token could not be granted for this account: ${errorText(cause)}`, cause };
  }
  if (current !== undefined) {
    const written = await store.replaceTokens(current, answer.tokens);
    if (written) return { ok: true, connection: written, refreshed: true };
    const after = await store.read(identity);
    return after.ok ? { ok: true, connection: after.connection, refreshed: false } : after;
  }
  const saved = await store.save(identity, answer.tokens, answer.details);
  if (!saved.ok) return { ok: false, reason: "not_connected", message: "The account's owner no longer exists" };
  return { ok: true, connection: saved.connection, refreshed: true };
}
