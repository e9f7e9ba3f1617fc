/**
 * The router (config `router.destinations`): one tool, `router__handoff-to`
 * `{agent, message?}`. It hands the conversation in the agent's active space
 * to a destination: a message from this agent that mentions the destination
 * (so it wakes and carries on there, reading the space), then this cycle
 * ends, as after `skip`. The destination must be a member of the space: the
 * mention rule refuses anyone else, and nothing is posted.
 */
import { tool, zodSchema } from "ai";
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { agents } from "../../db/schema";
import { postMessage } from "../builtins/space-tools";
import { type Destination, destinationsOf, type RouterConfig } from "../config/router-config";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import type { ToolContext } from "../engine/tool-context";
import { providerToolName } from "../engine/tool-naming";
import type { ToolProvider } from "./tool-provider";

export const routerProviderName = "router";
export const handoffToolName = "handoff-to";

const HandoffInput = z
  .object({
    agent: z.string().min(1).max(64).describe("The destination: its name or agent id"),
    message: z.string().max(4_000).optional().describe("What the destination should know (advisory)"),
  })
  .strict();

const label = (destination: Destination) => destination.name ?? destination.agentId;

async function handOff(context: ToolContext, destinations: Destination[], input: z.infer<typeof HandoffInput>, modelToolCallId: string): Promise<ToolOutcome> {
  const destination = destinations.find((entry) => entry.agentId === input.agent || entry.name === input.agent);
  if (!destination) return failed(`"${input.agent}" is not one of your destinations: ${destinations.map(label).join(", ")}`, "validation");
  const spaceId = context.getActiveSpaceId();
  if (!spaceId) return failed("You are not in a space: enter the space whose conversation you hand off first.", "validation");
  const row = await context.database.select({ entityId: agents.entityId, name: agents.name }).from(agents).where(eq(agents.id, destination.agentId)).get();
  if (!row) return failed(`The agent "${label(destination)}" is no longer there`, "upstream");
  const text = `Handing this conversation to ${row.name}${input.message ? `: ${input.message}` : "."}`;
  const sent = await postMessage(context, spaceId, { text, mentions: [row.entityId] }, modelToolCallId);
  if (!sent.ok) return failed(sent.error, "validation");
  return succeeded({ handedTo: { agentId: destination.agentId, ...(destination.name && { name: destination.name }) }, ...sent.posted });
}

export function routerProvider(router: RouterConfig): ToolProvider {
  const destinations = destinationsOf(router);
  const listed = destinations.map((entry) => `${label(entry)}${entry.description ? ` (${entry.description})` : ""}`).join("; ");
  return {
    name: routerProviderName,
    kind: "agents",
    async load(context) {
      const handoff = tool({
        description: `Hand the conversation in your active space to another agent, which carries on there; your cycle ends. Destinations: ${listed}.`,
        inputSchema: zodSchema(HandoffInput),
        execute: (input, { toolCallId }) => handOff(context, destinations, input, toolCallId),
      });
      return { tools: [{ kind: "raw", name: providerToolName(routerProviderName, handoffToolName), origin: handoffToolName, tool: handoff }] };
    },
  };
}
