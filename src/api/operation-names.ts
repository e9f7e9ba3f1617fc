/**
 * The `operationId` and `summary` of the operations whose routes do not name
 * themselves (a route may set both inline in its `createRoute`; those win).
 * operationIds are what generated clients name their methods after, so they
 * are public and must not change by accident. `nameOperations` writes them
 * onto the registered routes; `test/openapi-lint.test.ts` checks that every
 * operation ends up named, uniquely, and that no entry here is stale.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";

export type OperationName = { operationId: string; summary: string };

export const operationNames: Record<string, OperationName> = {
  "get /health": { operationId: "getHealth", summary: "Check the gateway is up" },
  "get /api/me": { operationId: "getMe", summary: "Who am I (member JWT)" },
  "get /api/entities": { operationId: "listEntities", summary: "List entities" },
  "post /api/entities": { operationId: "createEntity", summary: "Create a person or service" },
  "get /api/entities/{entityId}": { operationId: "getEntity", summary: "Get an entity" },
  "get /api/agents": { operationId: "listAgents", summary: "List agents" },
  "post /api/agents": { operationId: "createAgent", summary: "Create an agent" },
  "get /api/agents/{agentId}": { operationId: "getAgent", summary: "Get an agent and its config" },
  "put /api/agents/{agentId}": { operationId: "replaceAgentConfig", summary: "Replace an agent's config" },
  "delete /api/agents/{agentId}": { operationId: "deleteAgent", summary: "Delete an agent" },
  "get /api/agents/{agentId}/export": { operationId: "exportAgent", summary: "Export an agent as a portable document" },
  "post /api/agents/import": { operationId: "importAgent", summary: "Create an agent from an exported document" },
  "get /api/agents/{agentId}/runs": { operationId: "listAgentRuns", summary: "List an agent's runs" },
  "get /api/agents/{agentId}/pending-tool-calls": { operationId: "listPendingToolCalls", summary: "List an agent's pending tool calls" },
  "get /api/agents/{agentId}/goals": { operationId: "listAgentGoals", summary: "List an agent's goals" },
  "get /api/agents/{agentId}/memories": { operationId: "listAgentMemories", summary: "List an agent's memories" },
  "get /api/agents/{agentId}/plans": { operationId: "listAgentPlans", summary: "List an agent's plans" },
  "post /api/agents/{agentId}/inbox": { operationId: "pushAgentInbox", summary: "Push an event into an agent's inbox" },
  "get /api/agents/{agentId}/stream": { operationId: "streamAgentEvents", summary: "Stream an agent's own events" },
  "get /api/runs/{runId}": { operationId: "getRun", summary: "Get a run (one cycle)" },
  "post /api/runs/{runId}/tool-results": { operationId: "submitToolResult", summary: "Answer a pending tool call" },
  "post /api/spaces/{spaceId}/tool-results": { operationId: "submitSpaceToolResult", summary: "Answer a pending tool call shown in a space" },
  "get /api/spaces": { operationId: "listSpaces", summary: "List spaces" },
  "post /api/spaces": { operationId: "createSpace", summary: "Create a space" },
  "get /api/spaces/{spaceId}": { operationId: "getSpace", summary: "Get a space and its member ids" },
  "get /api/spaces/{spaceId}/members": { operationId: "listSpaceMembers", summary: "List the members of a space" },
  "post /api/spaces/{spaceId}/members": { operationId: "addSpaceMember", summary: "Add a member to a space" },
  "delete /api/spaces/{spaceId}/members/{entityId}": { operationId: "removeSpaceMember", summary: "Remove a member from a space" },
  "get /api/spaces/{spaceId}/tools": { operationId: "listSpaceTools", summary: "List the tools that show cards in a space" },
  "get /api/spaces/{spaceId}/messages": { operationId: "listMessages", summary: "List a space's messages" },
  "post /api/spaces/{spaceId}/messages": { operationId: "sendMessage", summary: "Post a message to a space" },
  "get /api/spaces/{spaceId}/stream": { operationId: "streamSpaceEvents", summary: "Stream a space's events" },
  "get /api/stats": { operationId: "getStats", summary: "D1 statement counts (benchmarks)" },
};

/** Writes the table onto the app's registered routes that have no name of their own (call after every route is mounted). */
export function nameOperations(registry: OpenAPIHono["openAPIRegistry"]): void {
  for (const definition of registry.definitions) {
    if (definition.type !== "route" || definition.route.operationId) continue;
    const name = operationNames[`${definition.route.method} ${definition.route.path}`];
    if (name) Object.assign(definition.route, name);
  }
}
