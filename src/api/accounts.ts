/**
 * Connected accounts as people and operators see them: never a token.
 *
 * - `GET /api/accounts/connections`: a person (member JWT) lists their own;
 *   the secret key lists everyone's, optionally one entity's (`?entityId=`).
 *   Ordered by entity then service, a page at a time (`cursor`).
 * - `DELETE /api/accounts/connections/{connectionKey}`: a person revokes
 *   their own (the tokens are erased, the row stays, listed as revoked);
 *   the secret key revokes anyone's, naming them with `?entityId=`.
 *
 * The connection key is usually a URL: send it percent-encoded as one path
 * segment.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ConnectionStore, maxConnectionsListed } from "../accounts/connection-store";
import { AccountsKeysError, tokenCipherFor } from "../accounts/token-cipher";
import { base64UrlToBytes, bytesToBase64Url } from "../base64";
import { getDatabase } from "../db/client";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { ErrorResponse, errorResponses, jsonContent, queryInteger } from "./schemas";

const ConnectionSummary = z
  .object({
    entityId: z.string().openapi({ description: "Whose account it is" }),
    connectionKey: z.string().openapi({ description: "The service: an MCP server's resource URL or a provider's name" }),
    scopes: z.array(z.string()),
    issuer: z.string().nullable().openapi({ description: "The authorization server's issuer" }),
    createdAt: z.string(),
    updatedAt: z.string(),
    expiresAt: z.string().nullable().openapi({ description: "When the access token stops working, when the server said" }),
    revokedAt: z.string().nullable().openapi({ description: "When it was revoked (its tokens erased); null while connected" }),
  })
  .openapi("AccountConnection", { description: "A connected account: never a token" });

const entityIdQuery = z
  .string()
  .min(1)
  .max(100)
  .optional()
  .openapi({ param: { name: "entityId", in: "query" }, description: "Secret key only: whose connections" });

const ListQuery = z.object({
  entityId: entityIdQuery,
  limit: queryInteger("limit", 1, maxConnectionsListed),
  cursor: z
    .string()
    .max(2048)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "`nextCursor` of the previous page" }),
});

const ConnectionKeyParam = z.object({
  connectionKey: z
    .string()
    .min(1)
    .max(2048)
    .openapi({ param: { name: "connectionKey", in: "path" }, description: "Percent-encoded", example: "https%3A%2F%2Fmcp.example.com%2Fmcp" }),
});

type Cursor = { entityId: string; connectionKey: string };

function encodeCursor(cursor: Cursor): string {
  return bytesToBase64Url(new TextEncoder().encode(JSON.stringify([cursor.entityId, cursor.connectionKey])));
}

function decodeCursor(text: string): Cursor {
  const bytes = base64UrlToBytes(text);
  let value: unknown;
  try {
    value = bytes === undefined ? undefined : JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    value = undefined;
  }
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string") return { entityId: value[0], connectionKey: value[1] };
  throw new ApiError(400, "invalid_query", "cursor: not a cursor this gateway gave (pass nextCursor back as it came)");
}

async function connectionStore(env: AppEnv): Promise<ConnectionStore> {
  try {
    return new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));
  } catch (error) {
    if (error instanceof AccountsKeysError) throw new ApiError(503, "misconfigured", error.message);
    throw error;
  }
}

/** Whose connections a caller means: a person's own (naming another is refused), or, for the secret key, the one named. */
function entityFor(caller: { kind: "secret" } | { kind: "entity"; entityId: string }, named: string | undefined): string | undefined {
  if (caller.kind === "secret") return named;
  if (named !== undefined && named !== caller.entityId) throw new ApiError(403, "forbidden", "A person sees and revokes only their own connections");
  return caller.entityId;
}

export const accountRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/api/accounts/connections",
      operationId: "listAccountConnections",
      summary: "List connected accounts",
      description:
        "A person's own (member JWT), or everyone's with the secret key (filter with `entityId`). Ordered by entity, then service; pass `nextCursor` back as `cursor`. Revoked connections are listed with `revokedAt`. Never a token.",
      tags: ["accounts"],
      ...routeAccess("secret-or-member"),
      request: { query: ListQuery },
      responses: {
        200: jsonContent(
          z.object({
            connections: z.array(ConnectionSummary),
            nextCursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page" }),
          }),
          "Connections",
        ),
        ...errorResponses,
        503: jsonContent(ErrorResponse, "The accounts key is missing or wrong (`misconfigured`)"),
      },
    }),
    async (c) => {
      const { entityId, limit = 50, cursor } = c.req.valid("query");
      const store = await connectionStore(c.env);
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      // One more than asked: whether there is a next page.
      const rows = await store.list({ entityId: entityFor(c.get("caller"), entityId), after, limit: Math.min(limit + 1, maxConnectionsListed) });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const nextCursor = rows.length > page.length && last !== undefined ? encodeCursor(last) : null;
      return c.json({ connections: page, nextCursor }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/api/accounts/connections/{connectionKey}",
      operationId: "revokeAccountConnection",
      summary: "Revoke a connected account",
      description:
        "Erases the connection's tokens; the connection stays listed, revoked, until the account is connected again. A person revokes their own; the secret key revokes anyone's, named with `entityId`. 404 when there is no connection to revoke (or it was revoked already).",
      tags: ["accounts"],
      ...routeAccess("secret-or-member"),
      request: { params: ConnectionKeyParam, query: z.object({ entityId: entityIdQuery }) },
      responses: {
        200: jsonContent(z.object({ revoked: z.literal(true), entityId: z.string(), connectionKey: z.string() }), "Revoked"),
        ...errorResponses,
        503: jsonContent(ErrorResponse, "The accounts key is missing or wrong (`misconfigured`)"),
      },
    }),
    async (c) => {
      const { connectionKey } = c.req.valid("param");
      const caller = c.get("caller");
      const entityId = entityFor(caller, c.req.valid("query").entityId);
      if (entityId === undefined) throw new ApiError(400, "invalid_query", "entityId: the secret key names whose connection to revoke");
      const store = await connectionStore(c.env);
      if (!(await store.revoke({ entityId, connectionKey }))) {
        throw new ApiError(404, "not_found", `No connection to "${connectionKey}" to revoke for entity "${entityId}"`);
      }
      return c.json({ revoked: true as const, entityId, connectionKey }, 200);
    },
  );
