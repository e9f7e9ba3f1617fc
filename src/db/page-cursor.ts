/**
 * Keyset pagination for the discovery lists: rows newest first by
 * `(createdAt, id)`, and an opaque cursor naming the last row of a page.
 * Stable under inserts (a new row never shifts a later page).
 */
import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { base64UrlToBytes, bytesToBase64Url } from "../base64";

export type PageCursor = { createdAt: string; id: string };

export function encodePageCursor(row: PageCursor): string {
  return bytesToBase64Url(new TextEncoder().encode(JSON.stringify([row.createdAt, row.id])));
}

/** The cursor a client sent back, or undefined when it is not one of ours. */
export function decodePageCursor(cursor: string): PageCursor | undefined {
  const bytes = base64UrlToBytes(cursor);
  if (!bytes) return undefined;
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string") {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // not JSON: fall through
  }
  return undefined;
}

/** The WHERE part that starts a page after `cursor`, and the ORDER BY of every page. */
export function pageAfter(columns: { createdAt: SQLiteColumn; id: SQLiteColumn }, cursor: PageCursor | undefined) {
  const where: SQL | undefined = cursor ? or(lt(columns.createdAt, cursor.createdAt), and(eq(columns.createdAt, cursor.createdAt), lt(columns.id, cursor.id))) : undefined;
  return { where, orderBy: [desc(columns.createdAt), desc(columns.id)] };
}

/** Cuts one extra row off a `limit + 1` query: it only says whether there is a next page. */
export function toPage<T extends PageCursor>(rows: T[], limit: number): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? encodePageCursor(items[items.length - 1]) : null };
}
