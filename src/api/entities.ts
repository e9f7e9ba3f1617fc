/** `POST /api/entities` and `GET /api/entities/:entityId` (secret key). */
import { createRoute, z } from "@hono/zod-openapi";
import { getDatabase } from "../db/client";
import { getEntity, toEntity } from "../db/entities";
import { entities } from "../db/schema";
import { ApiError, notFound } from "../errors";
import { createRouter, newId } from "./context";
import { routeAccess } from "./route-access";
import { EntityIdParam, errorResponses, jsonBody, jsonContent, writeErrorResponses } from "./schemas";

export const Entity = z
  .object({
    id: z.string(),
    type: z.enum(["human", "agent", "service"]),
    name: z.string(),
    externalId: z.string().optional(),
  })
  .openapi("Entity");

const CreateEntity = z
  .object({
    type: z.enum(["human", "service"]).openapi({ description: "Agents are created through POST /api/agents" }),
    name: z.string().trim().min(1).max(200),
    externalId: z.string().min(1).max(200).optional().openapi({ description: "Your own id for this entity; unique" }),
  })
  .strict()
  .openapi("CreateEntity");

export const entityRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/api/entities",
      tags: ["entities"],
      ...routeAccess("secret"),
      request: jsonBody(CreateEntity),
      responses: { 201: jsonContent(Entity, "The new entity"), ...writeErrorResponses },
    }),
    async (c) => {
      const input = c.req.valid("json");
      const database = getDatabase(c.env.DB);
      const id = newId(c, "ent");
      // One statement, so two concurrent requests with the same externalId get 201 and 409, never a 500.
      const row = await database
        .insert(entities)
        .values({ id, type: input.type, name: input.name, externalId: input.externalId ?? null })
        .onConflictDoNothing()
        .returning()
        .get();
      if (row) return c.json(toEntity(row), 201);
      // A retried request (same Idempotency-Key) finds the entity it made.
      const existing = await getEntity(database, id);
      if (existing) return c.json(existing, 201);
      throw new ApiError(409, "conflict", `An entity with externalId "${input.externalId}" already exists`);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/entities/{entityId}",
      tags: ["entities"],
      ...routeAccess("secret"),
      request: { params: EntityIdParam },
      responses: { 200: jsonContent(Entity, "The entity"), ...errorResponses },
    }),
    async (c) => {
      const { entityId } = c.req.valid("param");
      const entity = await getEntity(getDatabase(c.env.DB), entityId);
      if (!entity) throw notFound("Entity", entityId);
      return c.json(entity, 200);
    },
  );
