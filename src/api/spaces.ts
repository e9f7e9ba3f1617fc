/** Spaces and membership (secret key; members may read their space). */
import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { getDatabase } from "../db/client";
import { getEntities, getEntity } from "../db/entities";
import { members } from "../db/schema";
import { resolveEntityId, resolveEntityIds } from "../db/resolve-entity-id";
import { getSpace, insertSpaceWithMembers, listMemberIds, spaceMetadataLimits } from "../db/spaces";
import { ApiError, notFound } from "../errors";
import { notifyMembershipChanged } from "../agents/notify-membership";
import { spaceStub } from "../spaces/space-stub";
import { requireSpaceAccess } from "./authorize";
import { createRouter, newId } from "./context";
import { routeAccess } from "./route-access";
import { EntityIdParam, errorResponses, jsonBody, jsonContent, SpaceIdParam, SuccessResponse, writeErrorResponses } from "./schemas";

const entityId = z.string().min(1).max(100);

const SpaceMetadata = z
  .record(z.string().min(1).max(64), z.unknown())
  .refine((value) => Object.keys(value).length <= spaceMetadataLimits.keys, `At most ${spaceMetadataLimits.keys} keys`)
  .refine((value) => new TextEncoder().encode(JSON.stringify(value)).length <= spaceMetadataLimits.bytes, `At most ${spaceMetadataLimits.bytes} bytes as JSON`)
  .openapi({ description: "What the space's members keep about it (a JSON object; agents change it with the prebuilt `updateSpaceMetadata`)" });

const CreateSpace = z
  .object({
    name: z.string().trim().min(1).max(200),
    memberIds: z.array(entityId).max(1000).optional(),
    metadata: SpaceMetadata.optional(),
  })
  .strict()
  .openapi("CreateSpace");

const Space = z.object({ id: z.string(), name: z.string() }).openapi("Space");
const SpaceDetail = Space.extend({ memberIds: z.array(z.string()), metadata: SpaceMetadata, createdAt: z.string() }).openapi("SpaceDetail");
const memberRole = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, "Roles are lowercase words such as approver or admin")
  .openapi({ description: "Optional: what `answeredBy: {roles}` on a tool or approval checks" });
const AddMember = z.object({ entityId, role: memberRole.optional() }).strict().openapi("AddMember");
const SetRole = z.object({ role: memberRole.nullable() }).strict().openapi("SetMemberRole");
const Membership = z.object({ spaceId: z.string(), entityId: z.string(), role: z.string().nullable().optional() }).openapi("Membership");

export const spaceRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/api/spaces",
      tags: ["spaces"],
      ...routeAccess("secret"),
      request: jsonBody(CreateSpace),
      responses: { 201: jsonContent(Space, "The new space"), ...writeErrorResponses },
    }),
    async (c) => {
      const input = c.req.valid("json");
      const database = getDatabase(c.env.DB);
      const memberIds = [...new Set(await resolveEntityIds(database, input.memberIds ?? []))];
      const found = new Set((await getEntities(database, memberIds)).map((entity) => entity.id));
      const missing = memberIds.filter((id) => !found.has(id));
      if (missing.length > 0) throw new ApiError(404, "not_found", `Unknown entity ids: ${missing.join(", ")}`);
      const id = newId(c, "spc");
      // A retried request (same Idempotency-Key) finds the space it made; its members were announced then.
      const existing = c.get("idempotency") ? await getSpace(database, id) : undefined;
      if (existing) return c.json({ id, name: existing.name }, 201);
      if (!(await insertSpaceWithMembers(database, { id, name: input.name, ...(input.metadata && { metadata: input.metadata }) }, memberIds))) {
        return c.json({ id, name: input.name }, 201);
      }
      const stub = spaceStub(c.env, id);
      await stub.emitMany(memberIds.map((memberId) => ({ type: "space.member.joined" as const, data: { entityId: memberId } })));
      await notifyMembershipChanged(c.env, database, memberIds);
      return c.json({ id, name: input.name }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/spaces/{spaceId}",
      tags: ["spaces"],
      ...routeAccess("secret-or-member"),
      request: { params: SpaceIdParam },
      responses: { 200: jsonContent(SpaceDetail, "The space and its members"), ...errorResponses },
    }),
    async (c) => {
      const { spaceId } = c.req.valid("param");
      await requireSpaceAccess(c.env, c.get("caller"), spaceId);
      const database = getDatabase(c.env.DB);
      const space = await getSpace(database, spaceId);
      if (!space) throw notFound("Space", spaceId);
      return c.json({ ...space, memberIds: await listMemberIds(database, spaceId) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/spaces/{spaceId}/members",
      tags: ["spaces"],
      ...routeAccess("secret"),
      request: { params: SpaceIdParam, ...jsonBody(AddMember) },
      responses: { 201: jsonContent(Membership, "The entity joined the space"), ...writeErrorResponses },
    }),
    async (c) => {
      const { spaceId } = c.req.valid("param");
      const { entityId: givenId, role } = c.req.valid("json");
      const database = getDatabase(c.env.DB);
      const memberId = await resolveEntityId(database, givenId);
      if (!(await getSpace(database, spaceId))) throw notFound("Space", spaceId);
      if (!(await getEntity(database, memberId))) throw notFound("Entity", memberId);
      // The insert decides, so concurrent adds of one entity give one 201 (and one joined event) and 409s.
      const added = await database
        .insert(members)
        .values({ spaceId, entityId: memberId, role: role ?? null })
        .onConflictDoNothing()
        .returning()
        .get();
      if (!added) throw new ApiError(409, "conflict", `Entity "${memberId}" is already a member of space "${spaceId}"`);
      await spaceStub(c.env, spaceId).emit({ type: "space.member.joined", data: { entityId: memberId } });
      await notifyMembershipChanged(c.env, database, [memberId]);
      return c.json({ spaceId, entityId: memberId, ...(role && { role }) }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/api/spaces/{spaceId}/members/{entityId}",
      operationId: "setMemberRole",
      summary: "Set or clear a member's role",
      tags: ["spaces"],
      ...routeAccess("secret"),
      request: { params: SpaceIdParam.merge(EntityIdParam), ...jsonBody(SetRole) },
      responses: { 200: jsonContent(Membership, "The membership with its role"), ...writeErrorResponses },
    }),
    async (c) => {
      const { spaceId, entityId: givenId } = c.req.valid("param");
      const { role } = c.req.valid("json");
      const database = getDatabase(c.env.DB);
      // An agent may be named by either of its ids, as everywhere an entity is expected.
      const memberId = await resolveEntityId(database, givenId);
      const updated = await database
        .update(members)
        .set({ role })
        .where(and(eq(members.spaceId, spaceId), eq(members.entityId, memberId)))
        .returning()
        .get();
      if (!updated) throw new ApiError(404, "not_found", `Entity "${memberId}" is not a member of space "${spaceId}"`);
      return c.json({ spaceId, entityId: memberId, role: updated.role }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/api/spaces/{spaceId}/members/{entityId}",
      tags: ["spaces"],
      ...routeAccess("secret"),
      request: { params: SpaceIdParam.merge(EntityIdParam) },
      responses: { 200: jsonContent(SuccessResponse, "The entity left the space"), ...errorResponses },
    }),
    async (c) => {
      const { spaceId, entityId: givenId } = c.req.valid("param");
      const database = getDatabase(c.env.DB);
      const memberId = await resolveEntityId(database, givenId);
      if (!(await getSpace(database, spaceId))) throw notFound("Space", spaceId);
      const removed = await database
        .delete(members)
        .where(and(eq(members.spaceId, spaceId), eq(members.entityId, memberId)))
        .returning()
        .get();
      if (!removed) throw new ApiError(404, "not_found", `Entity "${memberId}" is not a member of space "${spaceId}"`);
      await spaceStub(c.env, spaceId).removeMember(memberId);
      await notifyMembershipChanged(c.env, database, [memberId]);
      return c.json({ success: true as const }, 200);
    },
  );
