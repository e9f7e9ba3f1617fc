/**
 * Connected accounts as people and operators see them: never a token.
 *
 * A person (member JWT), their own only:
 * - `GET /api/me/connections`: lists them, a page at a time (`cursor`);
 * - `DELETE /api/me/connections/{id}`: revokes one (the tokens are erased,
 *   the row stays, listed as revoked);
 * - `GET /api/me/connections/flows/{flowId}`: the person a "connect your
 *   account" card is for gets the flow's start link. Cards carry no link
 *   (every member of the space sees them): this is the only way to one, and
 *   each answer gives a new link, the one before it stopping.
 *
 * Operators (the secret key), anyone's:
 * - `GET /api/connections`: everyone's, or one entity's (`?entityId=`);
 * - `DELETE /api/connections/{id}?entityId=…`: revokes the named entity's.
 *
 * Listings are ordered by entity then service. The `id` of a connection is
 * its key, usually a URL: send it percent-encoded as one path segment.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { startLink } from "../accounts/begin-account-flow";
import { ConnectionStore, maxConnectionsListed } from "../accounts/connection-store";
import { FlowStore } from "../accounts/flow-store";
import { AccountsKeysError, tokenCipherFor } from "../accounts/token-cipher";
import { base64UrlToBytes, bytesToBase64Url } from "../base64";
import { getDatabase } from "../db/client";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { createRouter, validationError } from "./context";
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
  .openapi({ param: { name: "entityId", in: "query" }, description: "Whose connections" });

const PageQuery = z.object({
  limit: queryInteger("limit", 1, maxConnectionsListed),
  cursor: z
    .string()
    .max(2048)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "`nextCursor` of the previous page" }),
});

const OperatorListQuery = PageQuery.extend({ entityId: entityIdQuery.optional() });

const ConnectionPage = z.object({
  connections: z.array(ConnectionSummary),
  nextCursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page" }),
});

const Revoked = z.object({ revoked: z.literal(true), entityId: z.string(), connectionKey: z.string() });

const ConnectionIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(2048)
    .openapi({ param: { name: "id", in: "path" }, description: "The connection's key, percent-encoded", example: "https%3A%2F%2Fmcp.example.com%2Fmcp" }),
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

export async function flowStore(env: AppEnv): Promise<FlowStore> {
  try {
    return new FlowStore(getDatabase(env.DB), await tokenCipherFor(env));
  } catch (error) {
    if (error instanceof AccountsKeysError) throw new ApiError(503, "misconfigured", error.message);
    throw error;
  }
}

/** One page of connections (of one entity, or everyone's), and the cursor of the next. */
async function listPage(env: AppEnv, query: { entityId?: string; limit?: number; cursor?: string }): Promise<z.infer<typeof ConnectionPage>> {
  const { entityId, limit = 50, cursor } = query;
  const store = await connectionStore(env);
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  // One more than asked: whether there is a next page.
  const rows = await store.list({ entityId, after, limit: Math.min(limit + 1, maxConnectionsListed) });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { connections: page, nextCursor: rows.length > page.length && last !== undefined ? encodeCursor(last) : null };
}

async function revokeConnection(env: AppEnv, entityId: string, connectionKey: string): Promise<z.infer<typeof Revoked>> {
  const store = await connectionStore(env);
  if (!(await store.revoke({ entityId, connectionKey }))) {
    throw new ApiError(404, "not_found", `No connection to "${connectionKey}" to revoke for entity "${entityId}"`);
  }
  return { revoked: true, entityId, connectionKey };
}

/** `?entityId=` on a person's route: refused, not ignored, so nobody believes they saw someone else's. */
function refuseEntityId(named: string | undefined): void {
  if (named !== undefined) {
    throw validationError([{ path: ["entityId"], message: "a person sees and revokes only their own connections; operators use /api/connections" }], "query");
  }
}

const secretKeyHint = "operators list connections with GET /api/connections and revoke them with DELETE /api/connections/{id}?entityId=…";

const misconfigured = { 503: jsonContent(ErrorResponse, "The accounts key is missing or wrong (`misconfigured`)") };

const FlowParams = z.object({
  flowId: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "flowId", in: "path" }, example: "flw_0123" }),
});

const FlowLink = z
  .object({
    flowId: z.string(),
    service: z.string().openapi({ description: "The service's name" }),
    connectionKey: z.string(),
    scopes: z.array(z.string()),
    expiresAt: z.string().openapi({ description: "When the flow ends: the link works until then, once" }),
    startUrl: z.string().openapi({ description: "Open it in the browser to sign in at the service: it works once, and only for you" }),
  })
  .openapi("AccountFlowLink", { description: "The start link of a flow to connect an account, for its own person" });

/** Where people reach the gateway: `PUBLIC_URL`, else this request's origin. */
export function gatewayOrigin(env: AppEnv, requestUrl: string): string {
  const configured = env.PUBLIC_URL;
  return new URL(typeof configured === "string" && configured !== "" ? configured : requestUrl).origin;
}

export const accountRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/api/me/connections/flows/{flowId}",
      operationId: "getAccountFlowLink",
      summary: "The link to connect an account, for the person a card asks",
      description:
        'A "connect your account" card names its flow (`account.flowId`) but carries no link, since everyone in the space sees the card. The person it is for (member JWT) gets the start link here; every answer gives a new link and the one before it stops working. Anyone else: 404.',
      tags: ["accounts"],
      ...routeAccess("member"),
      request: { params: FlowParams },
      responses: {
        200: jsonContent(FlowLink, "The start link"),
        ...errorResponses,
        410: jsonContent(ErrorResponse, "The flow expired (`flow_expired`)"),
        ...misconfigured,
      },
    }),
    async (c) => {
      const { flowId } = c.req.valid("param");
      const caller = c.get("caller");
      const flows = await flowStore(c.env);
      const reissued = await flows.reissueStart(flowId, caller.entityId);
      if (!reissued.ok) {
        if (reissued.reason === "expired") throw new ApiError(410, "flow_expired", reissued.message);
        throw new ApiError(404, "not_found", `No flow "${flowId}" to connect an account for you`);
      }
      const origin = gatewayOrigin(c.env, c.req.url);
      return c.json(
        {
          flowId,
          service: reissued.serviceName ?? reissued.connectionKey,
          connectionKey: reissued.connectionKey,
          scopes: reissued.scopes,
          expiresAt: reissued.expiresAt,
          startUrl: startLink(origin, flowId, reissued.startToken),
        },
        200,
        { "cache-control": "no-store" },
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/me/connections",
      operationId: "listMyConnections",
      summary: "List my connected accounts",
      description:
        "The caller's own (member JWT), ordered by service; pass `nextCursor` back as `cursor`. Revoked connections are listed with `revokedAt`. Never a token. The secret key is refused (403): operators use GET /api/connections.",
      tags: ["accounts"],
      ...routeAccess("member", { secretKeyHint }),
      request: { query: PageQuery },
      responses: { 200: jsonContent(ConnectionPage, "Connections"), ...errorResponses, ...misconfigured },
    }),
    async (c) => {
      refuseEntityId(c.req.query("entityId"));
      return c.json(await listPage(c.env, { ...c.req.valid("query"), entityId: c.get("caller").entityId }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/api/me/connections/{id}",
      operationId: "revokeMyConnection",
      summary: "Revoke one of my connected accounts",
      description:
        "Erases the connection's tokens; the connection stays listed, revoked, until the account is connected again. The caller's own only (member JWT); `id` is the connection key as listed, percent-encoded. 404 when there is no connection to revoke (or it was revoked already).",
      tags: ["accounts"],
      ...routeAccess("member", { secretKeyHint }),
      request: { params: ConnectionIdParam },
      responses: { 200: jsonContent(Revoked, "Revoked"), ...errorResponses, ...misconfigured },
    }),
    async (c) => {
      refuseEntityId(c.req.query("entityId"));
      return c.json(await revokeConnection(c.env, c.get("caller").entityId, c.req.valid("param").id), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/connections",
      operationId: "listConnections",
      summary: "List everyone's connected accounts",
      description:
        "For operators (secret key): every entity's connections, or one entity's with `entityId`. Ordered by entity, then service; pass `nextCursor` back as `cursor`. Revoked connections are listed with `revokedAt`. Never a token.",
      tags: ["accounts"],
      ...routeAccess("secret"),
      request: { query: OperatorListQuery },
      responses: { 200: jsonContent(ConnectionPage, "Connections"), ...errorResponses, ...misconfigured },
    }),
    async (c) => c.json(await listPage(c.env, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/api/connections/{id}",
      operationId: "revokeConnection",
      summary: "Revoke anyone's connected account",
      description:
        "For operators (secret key): erases the tokens of the connection `id` (its key, percent-encoded) of the entity named with `entityId`; it stays listed, revoked. 404 when there is no connection to revoke (or it was revoked already).",
      tags: ["accounts"],
      ...routeAccess("secret"),
      request: { params: ConnectionIdParam, query: z.object({ entityId: entityIdQuery }) },
      responses: { 200: jsonContent(Revoked, "Revoked"), ...errorResponses, ...misconfigured },
    }),
    async (c) => c.json(await revokeConnection(c.env, c.req.valid("query").entityId, c.req.valid("param").id), 200),
  );
