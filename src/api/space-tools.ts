/**
 * `GET /api/spaces/:spaceId/tools` (secret key or member JWT): the configured
 * tools of the space's agents that can put a card in a space, with what a UI
 * needs to render and answer them: `display` (`customUI`, `mode`), the input
 * schema (not for `minimal` tools when a JWT asks) and the `resultSchema` an
 * answer form is built from.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { getDatabase } from "../db/client";
import { listAgentsInSpace } from "../agents/agent-lists";
import { getSpace } from "../db/spaces";
import { notFound } from "../errors";
import { defaultModeOf, displayModeOf, isToolVisible, type ToolConfig } from "../tools";
import { requireSpaceAccess } from "./authorize";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { errorResponses, jsonContent, SpaceIdParam } from "./schemas";

const SpaceTool = z
  .object({
    agentId: z.string(),
    agentEntityId: z.string(),
    agentName: z.string(),
    name: z.string(),
    description: z.string().optional(),
    executionType: z.enum(["gateway", "external", "space", "internal", "prebuilt", "image-generator", "agent"]),
    isAsync: z.boolean(),
    display: z.object({ mode: z.enum(["full", "minimal"]), customUI: z.string().optional() }),
    inputSchema: z.record(z.string(), z.unknown()).optional().openapi({ description: "Left out of minimal tools for JWT callers" }),
    resultSchema: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("SpaceTool");

const SpaceToolList = z.object({ tools: z.array(SpaceTool) }).openapi("SpaceToolList");

/** Whether a tool's calls can appear as cards in a space. */
function canShowCards(tool: ToolConfig): boolean {
  if (tool.executionType === "space") return true;
  if (tool.display?.mode === "hidden") return false;
  return isToolVisible(tool) || tool.displayTool === true;
}

export const spaceToolRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/api/spaces/{spaceId}/tools",
    tags: ["spaces"],
    ...routeAccess("secret-or-member"),
    description:
      "The configured tools of the space's agents whose calls can appear in the space: display settings, input schema and result schema (what a UI needs to render a card and build an answer form).",
    request: { params: SpaceIdParam },
    responses: { 200: jsonContent(SpaceToolList, "Tools that can show cards in this space"), ...errorResponses },
  }),
  async (c) => {
    const { spaceId } = c.req.valid("param");
    const principal = c.get("caller");
    await requireSpaceAccess(c.env, principal, spaceId);
    const database = getDatabase(c.env.DB);
    if (!(await getSpace(database, spaceId))) throw notFound("Space", spaceId);
    const tools: z.infer<typeof SpaceTool>[] = [];
    for (const agent of await listAgentsInSpace(database, spaceId)) {
      for (const tool of agent.config.tools.filter(canShowCards)) {
        // The same rule the cards follow (a prebuilt tool is minimal unless its config says otherwise).
        const mode = displayModeOf({ display: tool.display, defaultMode: defaultModeOf(tool.executionType) }) === "minimal" ? "minimal" : "full";
        const entry: z.infer<typeof SpaceTool> = {
          agentId: agent.id,
          agentEntityId: agent.entityId,
          agentName: agent.name,
          name: tool.name,
          executionType: tool.executionType,
          isAsync: tool.isAsync ?? false,
          display: tool.display?.customUI ? { mode, customUI: tool.display.customUI } : { mode },
        };
        if (tool.description !== undefined) entry.description = tool.description;
        if (tool.inputSchema !== undefined && (mode === "full" || principal.kind === "secret")) entry.inputSchema = tool.inputSchema;
        if (tool.resultSchema !== undefined) entry.resultSchema = tool.resultSchema;
        tools.push(entry);
      }
    }
    return c.json({ tools }, 200);
  },
);
