/**
 * `GET /api/spaces/:spaceId/members` (secret key or member JWT): who is in a
 * space, with names and types, so a UI can say who spoke without the
 * secret-only entity routes. An agent's member entry carries its agent id.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { getDatabase } from "../db/client";
import { getSpace, listSpaceMembers } from "../db/spaces";
import { notFound } from "../errors";
import { requireSpaceAccess } from "./authorize";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { errorResponses, jsonContent, SpaceIdParam } from "./schemas";

const SpaceMember = z
  .object({
    id: z.string(),
    type: z.enum(["human", "agent", "service"]),
    name: z.string(),
    agentId: z.string().optional().openapi({ description: "For an agent: its agent id" }),
    role: z.string().optional().openapi({ description: "The member's role, when one is set (what `answeredBy: {roles}` checks)" }),
    joinedAt: z.string(),
  })
  .openapi("SpaceMember");

const SpaceMemberList = z.object({ members: z.array(SpaceMember) }).openapi("SpaceMemberList");

export const spaceMemberRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/api/spaces/{spaceId}/members",
    tags: ["spaces"],
    ...routeAccess("secret-or-member"),
    description: "Who is in the space, with names and types, oldest member first.",
    request: { params: SpaceIdParam },
    responses: { 200: jsonContent(SpaceMemberList, "The members"), ...errorResponses },
  }),
  async (c) => {
    const { spaceId } = c.req.valid("param");
    await requireSpaceAccess(c.env, c.get("caller"), spaceId);
    const database = getDatabase(c.env.DB);
    if (!(await getSpace(database, spaceId))) throw notFound("Space", spaceId);
    return c.json({ members: await listSpaceMembers(database, spaceId) }, 200);
  },
);
