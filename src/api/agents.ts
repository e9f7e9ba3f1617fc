/** Agent CRUD (secret key): `POST /api/agents`, `GET/PUT/DELETE /api/agents/:agentId`. */
import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { AgentConfig } from "../agents/agent-config";
import { getDatabase } from "../db/client";
import { getAgent } from "../agents/agent-record";
import { agentNotFound } from "../db/agent-not-found";
import { agents, entities, webhookSubscriptions } from "../db/schema";
import { deleteDeadLettersOfAgent } from "../webhooks/webhook-dead-letters";
import { deletePushConfigsOfAgent } from "../webhooks/a2a-push-configs";
import { deleteA2aMessagesOfAgent } from "../db/a2a-messages";
import { agentLifecycle } from "../agents/agent-lifecycle";
import { listSpacesOfEntity } from "../db/spaces";
import { spaceStub } from "../spaces/space-stub";
import { deleteOutputsOf, deletePrefix, expireOpenCallsOfAgent, notesPrefix } from "../tools";
import { checkSubagents } from "./check-subagents";
import { checkToolSecrets } from "./check-tool-secrets";
import { createRouter, newId } from "./context";
import { routeAccess } from "./route-access";
import { AgentIdParam, errorResponses, jsonBody, jsonContent, SuccessResponse, writeErrorResponses } from "./schemas";

const AgentBody = z.object({ config: AgentConfig }).strict().openapi("AgentBody");

const CreatedAgent = z.object({ id: z.string(), entityId: z.string(), name: z.string() }).openapi("CreatedAgent");

const Agent = z
  .object({
    id: z.string(),
    entityId: z.string(),
    name: z.string(),
    config: AgentConfig,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Agent");

export const agentRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/api/agents",
      tags: ["agents"],
      ...routeAccess("secret"),
      request: jsonBody(AgentBody),
      responses: { 201: jsonContent(CreatedAgent, "The new agent and its entity"), ...writeErrorResponses },
    }),
    async (c) => {
      const { config } = c.req.valid("json");
      checkToolSecrets(config, c.env);
      const database = getDatabase(c.env.DB);
      await checkSubagents(config, database);
      const id = newId(c, "agt");
      const entityId = newId(c, "ent");
      const now = new Date().toISOString();
      // With an Idempotency-Key the ids are derived from it: a retry finds the agent instead of making a second.
      const existing = c.get("idempotency") ? await getAgent(database, id) : undefined;
      if (existing) return c.json({ id, entityId: existing.entityId, name: existing.name }, 201);
      // Conflicts do nothing: a retry racing the first request (same derived ids) writes nothing twice.
      await database.batch([
        database.insert(entities).values({ id: entityId, type: "agent", name: config.agent.name }).onConflictDoNothing({ target: entities.id }),
        database.insert(agents).values({ id, entityId, name: config.agent.name, config, createdAt: now, updatedAt: now }).onConflictDoNothing({ target: agents.id }),
      ]);
      if (config.warmup) await agentLifecycle.created(c.env, id);
      return c.json({ id, entityId, name: config.agent.name }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/agents/{agentId}",
      tags: ["agents"],
      ...routeAccess("secret"),
      request: { params: AgentIdParam },
      responses: { 200: jsonContent(Agent, "The agent with its config"), ...errorResponses },
    }),
    async (c) => {
      const { agentId } = c.req.valid("param");
      const database = getDatabase(c.env.DB);
      const agent = await getAgent(database, agentId);
      if (!agent) throw await agentNotFound(database, agentId);
      return c.json(agent, 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/api/agents/{agentId}",
      tags: ["agents"],
      ...routeAccess("secret"),
      request: { params: AgentIdParam, ...jsonBody(AgentBody) },
      responses: { 200: jsonContent(Agent, "The agent with its new config"), ...writeErrorResponses },
    }),
    async (c) => {
      const { agentId } = c.req.valid("param");
      const { config } = c.req.valid("json");
      checkToolSecrets(config, c.env);
      const database = getDatabase(c.env.DB);
      const agent = await getAgent(database, agentId);
      if (!agent) throw await agentNotFound(database, agentId);
      await checkSubagents(config, database);
      const updatedAt = new Date().toISOString();
      await database.batch([
        database.update(agents).set({ config, name: config.agent.name, updatedAt }).where(eq(agents.id, agentId)),
        database.update(entities).set({ name: config.agent.name }).where(eq(entities.id, agent.entityId)),
      ]);
      await agentLifecycle.configReplaced(c.env, agentId);
      return c.json({ ...agent, config, name: config.agent.name, updatedAt }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/api/agents/{agentId}",
      tags: ["agents"],
      ...routeAccess("secret"),
      request: { params: AgentIdParam },
      responses: { 200: jsonContent(SuccessResponse, "Deleted"), ...errorResponses },
    }),
    async (c) => {
      const { agentId } = c.req.valid("param");
      const database = getDatabase(c.env.DB);
      const agent = await getAgent(database, agentId);
      if (!agent) throw await agentNotFound(database, agentId);
      const spaces = await listSpacesOfEntity(database, agent.entityId);
      // Its open calls can never be answered now (a late result gets 410); the entity row
      // cascades to the agent row, its memberships and its connected accounts (their sealed tokens);
      // its webhook subscriptions, dead letters, its A2A tasks' push configs and the A2A messages it took go. One batch: all or nothing.
      await database.batch([
        expireOpenCallsOfAgent(database, agentId),
        database.delete(entities).where(eq(entities.id, agent.entityId)),
        database.delete(webhookSubscriptions).where(eq(webhookSubscriptions.agentId, agentId)),
        deleteDeadLettersOfAgent(database, agentId),
        deletePushConfigsOfAgent(database, agentId),
        deleteA2aMessagesOfAgent(database, agentId),
      ]);
      // Its object stops its timers, retries and streams, and forgets everything.
      await agentLifecycle.deleted(c.env, agentId);
      // Its spaces hear that it left, as for any removed member.
      await Promise.all(spaces.map((space) => spaceStub(c.env, space.id).removeMember(agent.entityId)));
      // Its stored whole tool outputs go too (their handles were only ever its own).
      await deleteOutputsOf(c.env.FILES, agentId).catch((error: unknown) => console.error("could not delete an agent's stored outputs", agentId, error));
      // And its notes (the `notes` tools' documents are its own too).
      await deletePrefix(c.env.FILES, notesPrefix(agentId)).catch((error: unknown) => console.error("could not delete an agent's notes", agentId, error));
      return c.json({ success: true as const }, 200);
    },
  );
