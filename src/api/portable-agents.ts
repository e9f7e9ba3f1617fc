/**
 * Portable agents (secret key): `GET /api/agents/:agentId/export` gives one
 * JSON document (config, goals, memories, plans, notes); `POST
 * /api/agents/import` makes a new agent from it, here or on another gateway.
 * The import checks everything before it writes anything, by the rules
 * `POST /api/agents` and the knowledge tools use (problems are 400s with
 * paths under `document.`), honours `Idempotency-Key`, and writes all or
 * nothing (`agents/portable/import-agent.ts`).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { AgentDocument } from "../agents/portable/agent-document";
import { getAgent } from "../agents/agent-record";
import { exportAgent } from "../agents/portable/export-agent";
import { armImportedPlans, importAgent } from "../agents/portable/import-agent";
import { agentNotFound } from "../db/agent-not-found";
import { getDatabase } from "../db/client";
import { ApiError } from "../errors";
import { checkSubagents } from "./check-subagents";
import { checkToolSecrets } from "./check-tool-secrets";
import { createRouter, newId, validationError } from "./context";
import { routeAccess } from "./route-access";
import { AgentIdParam, errorResponses, ErrorResponse, jsonBody, jsonContent, writeErrorResponses } from "./schemas";

/** Where the imported config sits in the body, for the paths of save-time problems. */
const configPath = ["document", "agent", "config"];

const ImportedAgent = z.object({ id: z.string(), entityId: z.string(), name: z.string() }).openapi("ImportedAgent");

const ImportQuery = z.object({
  name: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ param: { name: "name", in: "query" }, description: "The new agent's name (default: the document's agent.name)" }),
});

export const portableAgentRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/api/agents/{agentId}/export",
      tags: ["agents"],
      ...routeAccess("secret"),
      description:
        "The agent as one portable JSON document: config (secrets by name only), goals, memories, plans (schedules; next runs are worked out again on import) and notes. No ids; `references` lists the ids of this gateway the config names. Refused (422) when the import could not take it back: past the document limits, or holding a secret's value.",
      request: { params: AgentIdParam },
      responses: {
        200: jsonContent(AgentDocument, "The agent document"),
        ...errorResponses,
        422: jsonContent(ErrorResponse, "export_too_large (past a document limit) or export_refused (a secret's value in it, a note that is not text)"),
      },
    }),
    async (c) => {
      const { agentId } = c.req.valid("param");
      const database = getDatabase(c.env.DB);
      const agent = await getAgent(database, agentId);
      if (!agent) throw await agentNotFound(database, agentId);
      const exported = await exportAgent(c.env, database, agent);
      if (!exported.ok) throw new ApiError(422, exported.code, exported.message);
      return c.json(exported.document, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/agents/import",
      tags: ["agents"],
      ...routeAccess("secret"),
      description:
        "Creates an agent from a document `GET /api/agents/{agentId}/export` made. Everything is checked before anything is written (the config as by POST /api/agents, goals, memories and plans as by the knowledge tools, note paths by the path rule); problems are 400 with paths such as `document.goals.3.priority`. Bodies up to 2 MiB. Honours Idempotency-Key.",
      request: { query: ImportQuery, ...jsonBody(AgentDocument) },
      responses: {
        201: jsonContent(ImportedAgent, "The new agent and its entity"),
        ...writeErrorResponses,
        503: jsonContent(ErrorResponse, "import_failed: a write failed and everything written was removed (retry)"),
      },
    }),
    async (c) => {
      const document = c.req.valid("json");
      const name = c.req.valid("query").name ?? document.agent.name;
      const config = { ...document.agent.config, agent: { ...document.agent.config.agent, name } };
      checkToolSecrets(config, c.env, configPath);
      const database = getDatabase(c.env.DB);
      await checkSubagents(config, database, configPath);
      const target = { agentId: newId(c, "agt"), entityId: newId(c, "ent") };
      // With an Idempotency-Key the ids are derived from it: a retry finds the agent (and makes sure its plans are armed).
      const existing = c.get("idempotency") ? await getAgent(database, target.agentId) : undefined;
      if (existing) {
        await armImportedPlans(c.env, database, existing.id);
        return c.json({ id: existing.id, entityId: existing.entityId, name: existing.name }, 201);
      }
      try {
        await importAgent(c.env, database, target, document, config);
      } catch (error) {
        console.error("an import failed; what it wrote was removed", target.agentId, error);
        throw new ApiError(503, "import_failed", "The agent could not be written, and nothing of it was kept; send the same request again");
      }
      return c.json({ id: target.agentId, entityId: target.entityId, name }, 201);
    },
    (result) => {
      if (result.success) return;
      const inBody = result.target === "json";
      throw validationError(
        result.error.issues.map((issue) => ({ path: inBody ? ["document", ...issue.path] : issue.path, message: issue.message })),
        inBody ? "document" : result.target,
      );
    },
  );
