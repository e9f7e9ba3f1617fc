/**
 * Connected accounts in D1 (`account_connections`), read and written through
 * the token cipher: the tokens exist in plain only in memory, between an
 * open and their use. What a person or an operator may see of a connection
 * (`ConnectionSummary`) is read without the sealed column, so a listing
 * cannot carry a token even by mistake.
 */
import { and, asc, eq, gt, isNull, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { accountConnections } from "../db/schema";
import type { ConnectionIdentity, OpenFailure, TokenCipher, TokenSet } from "./token-cipher";

/** What a person or an operator may see of a connection: never a token, never the sealed blob. */
export type ConnectionSummary = {
  entityId: string;
  /** The service: an MCP server's resource URL or a provider's name. */
  connectionKey: string;
  scopes: string[];
  issuer: string | null;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
};

/** A live connection with its tokens opened: for the call that uses them, never for a response, a record or a log. */
export type Connection = ConnectionSummary & { clientId: string | null; version: number; tokens: TokenSet };

export type ConnectionFailure = {
  ok: false;
  /** `not_connected`: no row; `revoked`: revoked (its tokens erased); `unreadable`: the sealed tokens do not open (`problem` says why). */
  reason: "not_connected" | "revoked" | "unreadable";
  problem?: OpenFailure["code"];
  message: string;
};
export type ConnectionRead = { ok: true; connection: Connection } | ConnectionFailure;

/** What the authorization gave besides the tokens. */
export type ConnectionDetails = { issuer?: string | null; clientId?: string | null };

/** The most rows one `list` returns. */
export const maxConnectionsListed = 100;

type Row = typeof accountConnections.$inferSelect;

const summaryColumns = {
  entityId: accountConnections.entityId,
  connectionKey: accountConnections.connectionKey,
  scopes: accountConnections.scopes,
  issuer: accountConnections.issuer,
  createdAt: accountConnections.createdAt,
  updatedAt: accountConnections.updatedAt,
  expiresAt: accountConnections.expiresAt,
  revokedAt: accountConnections.revokedAt,
};

const splitScopes = (scopes: string): string[] => scopes.split(" ").filter((scope) => scope !== "");

function toSummary(row: Pick<Row, keyof typeof summaryColumns>): ConnectionSummary {
  return {
    entityId: row.entityId,
    connectionKey: row.connectionKey,
    scopes: splitScopes(row.scopes),
    issuer: row.issuer,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
  };
}

const isConnection = (identity: ConnectionIdentity): SQL | undefined =>
  and(eq(accountConnections.entityId, identity.entityId), eq(accountConnections.connectionKey, identity.connectionKey));

/** What D1 said about a failed statement, without drizzle's wrapping, which lists the statement's parameters (the sealed blob among them). */
function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

const identityOf = (identity: ConnectionIdentity): ConnectionIdentity => ({ entityId: identity.entityId, connectionKey: identity.connectionKey });

export class ConnectionStore {
  constructor(
    private readonly database: Database,
    private readonly cipher: TokenCipher,
  ) {}

  /**
   * Stores a new authorization's tokens: a first connection, or a connection
   * made again (after a revoke too), replacing what the row held;
   * `unknown_entity` when the entity does not exist.
   */
  async save(
    identity: ConnectionIdentity,
    tokens: TokenSet,
    details: ConnectionDetails = {},
  ): Promise<{ ok: true; connection: Connection } | { ok: false; reason: "unknown_entity" }> {
    const sealed = await this.cipher.seal(tokens, identityOf(identity));
    const now = new Date().toISOString();
    const values = {
      sealedTokens: sealed.blob,
      keyId: sealed.keyId,
      scopes: tokens.scopes.join(" "),
      expiresAt: tokens.expiresAt ?? null,
      issuer: details.issuer ?? null,
      clientId: details.clientId ?? null,
      updatedAt: now,
    };
    let row: Row | undefined;
    try {
      // One statement: a connection made twice at once leaves the last one, never two rows or half of each.
      row = await this.database
        .insert(accountConnections)
        .values({ entityId: identity.entityId, connectionKey: identity.connectionKey, version: 1, ...values })
        .onConflictDoUpdate({
          target: [accountConnections.entityId, accountConnections.connectionKey],
          set: { ...values, revokedAt: null, version: sql`${accountConnections.version} + 1` },
        })
        .returning()
        .get();
    } catch (error) {
      const cause = causeOf(error);
      // The entity is not there (never created, or deleted meanwhile): its row cannot exist.
      if (/FOREIGN KEY constraint failed/i.test(cause)) return { ok: false, reason: "unknown_entity" };
      throw new Error(`Could not store an account connection: ${cause}`);
    }
    return { ok: true, connection: { ...toSummary(row), clientId: row.clientId, version: row.version, tokens } };
  }

  /** The connection with its tokens opened, or why there is none to use. */
  async read(identity: ConnectionIdentity): Promise<ConnectionRead> {
    const row = await this.database.select().from(accountConnections).where(isConnection(identity)).get();
    return this.opened(row);
  }

  /**
   * What a person (`entityId`) or an operator (no filter) may see, ordered by
   * entity then connection key, one page at a time (`after`: the last of the
   * previous page). Revoked connections are listed too, with `revokedAt`.
   */
  async list(filter: { entityId?: string; after?: ConnectionIdentity; limit?: number } = {}): Promise<ConnectionSummary[]> {
    const conditions: SQL[] = [];
    if (filter.entityId !== undefined) conditions.push(eq(accountConnections.entityId, filter.entityId));
    const after = filter.after;
    if (after !== undefined) {
      const later = or(
        gt(accountConnections.entityId, after.entityId),
        and(eq(accountConnections.entityId, after.entityId), gt(accountConnections.connectionKey, after.connectionKey)),
      );
      if (later) conditions.push(later);
    }
    const limit = Math.min(Math.max(1, filter.limit ?? maxConnectionsListed), maxConnectionsListed);
    const rows = await this.database
      .select(summaryColumns)
      .from(accountConnections)
      .where(conditions.length > 0 ? and(...conditions) : undefined)
      .orderBy(asc(accountConnections.entityId), asc(accountConnections.connectionKey))
      .limit(limit);
    return rows.map(toSummary);
  }

  /**
   * Revokes a connection: its tokens are erased, the row stays (listed as
   * revoked) until the account is connected again or deleted. False when
   * there was nothing to revoke. To tell the service too, `read` first.
   */
  async revoke(identity: ConnectionIdentity): Promise<boolean> {
    const now = new Date().toISOString();
    const revoked = await this.database
      .update(accountConnections)
      .set({ sealedTokens: null, keyId: null, expiresAt: null, revokedAt: now, updatedAt: now, version: sql`${accountConnections.version} + 1` })
      .where(and(isConnection(identity), isNull(accountConnections.revokedAt)))
      .returning({ entityId: accountConnections.entityId });
    return revoked.length > 0;
  }

  /** Deletes a connection's row. False when there was none. */
  async delete(identity: ConnectionIdentity): Promise<boolean> {
    const deleted = await this.database.delete(accountConnections).where(isConnection(identity)).returning({ entityId: accountConnections.entityId });
    return deleted.length > 0;
  }

  /**
   * Replaces a connection's tokens only if the row is still at the version
   * `current` was read at and not revoked (compare-and-set): the connection
   * as written, or undefined when another writer came first.
   */
  async replaceTokens(current: Pick<Connection, "entityId" | "connectionKey" | "version">, tokens: TokenSet): Promise<Connection | undefined> {
    const sealed = await this.cipher.seal(tokens, identityOf(current));
    const update = this.database
      .update(accountConnections)
      .set({
        sealedTokens: sealed.blob,
        keyId: sealed.keyId,
        scopes: tokens.scopes.join(" "),
        expiresAt: tokens.expiresAt ?? null,
        updatedAt: new Date().toISOString(),
        version: sql`${accountConnections.version} + 1`,
      })
      .where(and(isConnection(current), eq(accountConnections.version, current.version), isNull(accountConnections.revokedAt)))
      .returning();
    const row = await update.get().catch((error: unknown) => {
      throw new Error(`Could not store an account connection's refreshed tokens: ${causeOf(error)}`);
    });
    return row ? { ...toSummary(row), clientId: row.clientId, version: row.version, tokens } : undefined;
  }

  private async opened(row: Row | undefined): Promise<ConnectionRead> {
    if (row === undefined) return { ok: false, reason: "not_connected", message: "This account is not connected" };
    if (row.revokedAt !== null || row.sealedTokens === null) return { ok: false, reason: "revoked", message: "This account's connection was revoked" };
    const opened = await this.cipher.open(row.sealedTokens, { entityId: row.entityId, connectionKey: row.connectionKey });
    if (!opened.ok) return { ok: false, reason: "unreadable", problem: opened.code, message: opened.message };
    return { ok: true, connection: { ...toSummary(row), clientId: row.clientId, version: row.version, tokens: opened.tokens } };
  }
}
