/**
 * Discovery: what exists, so a lost id can be found again.
 * `GET /api/spaces` (secret: every space; member JWT: the caller's spaces),
 * `GET /api/agents` and `GET /api/entities` (secret), and `GET /api/me`
 * (member JWT: the caller's entity and spaces). Lists are newest first, one
 * keyset page at a time: pass `nextCursor` back as `cursor` for the next.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { getDatabase } from "../db/client";
import { listAgentsPage } from "../agents/agent-lists";
import { getEntityWithAgent, listEntitiesPage, listSpacesPage } from "../db/discovery";
import { decodePageCursor, type PageCursor } from "../db/page-cursor";
import { ApiError, notFound } from "../errors";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { errorResponses, jsonContent, queryInteger } from "./schemas";

const SpaceSummary = z.object({ id: z.string(), name: z.string(), createdAt: z.string(), memberCount: z.number().int() }).openapi("SpaceSummary");

const AgentSummary = z
  .object({
    id: z.string().openapi({ description: "The agent id (agt_…), for the agent routes" }),
    entityId: z.string().openapi({ description: "The agent's entity id (ent_…), for spaces and messages" }),
    name: z.string(),
    description: z.string().optional(),
    model: z.object({ provider: z.string(), name: z.string().optional() }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("AgentSummary");

const EntityType = z.enum(["human", "agent", "service"]);

const EntitySummary = z
  .object({
    id: z.string(),
    type: EntityType,
    name: z.string(),
    externalId: z.string().optional(),
    agentId: z.string().optional().openapi({ description: "For an agent's entity: the agent id" }),
    createdAt: z.string(),
  })
  .openapi("EntitySummary");

const nextCursor = z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page" });

const SpaceList = z.object({ spaces: z.array(SpaceSummary), nextCursor }).openapi("SpaceList");
const AgentList = z.object({ agents: z.array(AgentSummary), nextCursor }).openapi("AgentList");
const EntityList = z.object({ entities: z.array(EntitySummary), nextCursor }).openapi("EntityList");
const Me = z
  .object({
    entity: EntitySummary,
    spaces: z.array(SpaceSummary),
    nextCursor: nextCursor.openapi({ description: "More spaces: GET /api/spaces?cursor=…" }),
  })
  .openapi("Me");

/** `limit` and `cursor` of every keyset-paged list. */
export const pageQuery = {
  limit: queryInteger("limit", 1, 200),
  cursor: z
    .string()
    .max(500)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "`nextCursor` of the previous page" }),
};

/** The cursor a client sent back, or a 400 when it is not one of ours. */
export function readCursor(cursor: string | undefined): PageCursor | undefined {
  if (cursor === undefined) return undefined;
  const decoded = decodePageCursor(cursor);
  if (!decoded) throw new ApiError(400, "invalid_query", "cursor: not a cursor this API gave out (pass nextCursor back unchanged)");
  return decoded;
}

const defaultLimit = 50;

export const discoveryRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/api/spaces",
      tags: ["discovery"],
      ...routeAccess("secret-or-member"),
      description: "Secret key: every space. Member JWT: the spaces the caller belongs to. Newest first.",
      request: { query: z.object(pageQuery) },
      responses: { 200: jsonContent(SpaceList, "One page of spaces"), ...errorResponses },
    }),
    async (c) => {
      const { limit = defaultLimit, cursor } = c.req.valid("query");
      const caller = c.get("caller");
      const page = await listSpacesPage(getDatabase(c.env.DB), {
        limit,
        cursor: readCursor(cursor),
        memberOf: caller.kind === "entity" ? caller.entityId : undefined,
      });
      return c.json({ spaces: page.items, nextCursor: page.nextCursor }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/agents",
      tags: ["discovery"],
      ...routeAccess("secret"),
      description: "Every agent with both of its ids and its model (secret key). Newest first.",
      request: { query: z.object(pageQuery) },
      responses: { 200: jsonContent(AgentList, "One page of agents"), ...errorResponses },
    }),
    async (c) => {
      const { limit = defaultLimit, cursor } = c.req.valid("query");
      const page = await listAgentsPage(getDatabase(c.env.DB), { limit, cursor: readCursor(cursor) });
      return c.json({ agents: page.items, nextCursor: page.nextCursor }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/entities",
      tags: ["discovery"],
      ...routeAccess("secret"),
      description: "People, services and agents' entities (secret key), optionally of one type. Newest first.",
      request: {
        query: z.object({ ...pageQuery, type: EntityType.optional().openapi({ param: { name: "type", in: "query" } }) }),
      },
      responses: { 200: jsonContent(EntityList, "One page of entities"), ...errorResponses },
    }),
    async (c) => {
      const { limit = defaultLimit, cursor, type } = c.req.valid("query");
      const page = await listEntitiesPage(getDatabase(c.env.DB), { limit, cursor: readCursor(cursor), type });
      return c.json({ entities: page.items, nextCursor: page.nextCursor }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/me",
      tags: ["discovery"],
      ...routeAccess("member"),
      description: "For a member JWT: the caller's entity and its spaces (newest first, up to 200; more with GET /api/spaces).",
      responses: { 200: jsonContent(Me, "The caller's entity and spaces"), ...errorResponses },
    }),
    async (c) => {
      const { entityId } = c.get("caller");
      const database = getDatabase(c.env.DB);
      const entity = await getEntityWithAgent(database, entityId);
      if (!entity) throw notFound("Entity", entityId);
      const page = await listSpacesPage(database, { limit: 200, memberOf: entityId });
      return c.json({ entity, spaces: page.items, nextCursor: page.nextCursor }, 200);
    },
  );
