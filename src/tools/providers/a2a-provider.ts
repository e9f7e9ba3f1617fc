/**
 * A remote Agent2Agent agent as a tool provider (`providers[].type: "a2a"`):
 * its Agent Card is read (`a2a/a2a-card.ts`) and each allowed skill is a
 * tool, `{provider}__{skill id}`, taking `{message, data?}`, run through the
 * engine (validation, display, queue) like any other tool
 * (`a2a/run-a2a-skill.ts`). A card that cannot be read is reported
 * (`a2a.failed`) and its tools are absent; the cycle goes on.
 */
import type { A2aProviderConfig } from "../config/provider-config";
import { providerAllows } from "../config/provider-config";
import { providerToolName } from "../engine/tool-naming";
import type { PendingCallContext } from "../engine/run-pending-call";
import type { PlatformAccess, SettingsAccess, StreamAccess } from "../engine/tool-context";
import type { ResolvedTool } from "../engine/resolved-tool";
import { type A2aCard, type A2aSkill, loadAgentCard } from "../a2a/a2a-card";
import { runA2aSkill } from "../a2a/run-a2a-skill";
import type { ToolProvider } from "./tool-provider";

/** What every skill takes: what to say, and structured data beside it. */
export const a2aSkillInputSchema = {
  type: "object",
  properties: {
    message: { type: "string", minLength: 1, maxLength: 100_000, description: "What to ask the remote agent, in words" },
    data: { type: "object", description: "Structured data sent beside the message (a data part)" },
  },
  required: ["message"],
  additionalProperties: false,
};

export function a2aProvider(provider: A2aProviderConfig): ToolProvider {
  return {
    name: provider.name,
    kind: "a2a",
    async load(context: PlatformAccess & StreamAccess) {
      const loaded = await loadAgentCard(provider, context.env);
      if (!loaded.ok) {
        context.publish("a2a.failed", { provider: provider.name, url: provider.url, error: loaded.error });
        return { tools: [] };
      }
      const { card } = loaded;
      const skills = card.skills.filter((skill) => providerAllows(provider, skill.id));
      const tools = skills.map((skill) => ({ kind: "engine" as const, origin: skill.id, resolved: resolveSkill(provider, card, skill) }));
      context.publish("a2a.loaded", {
        provider: provider.name,
        agent: card.name,
        endpoint: card.endpoint,
        push: card.pushNotifications,
        tools: tools.map((tool) => tool.resolved.name),
      });
      return { tools, instructions: provider.instructions };
    },
  };
}

function resolveSkill(provider: A2aProviderConfig, card: A2aCard, skill: A2aSkill): ResolvedTool {
  const name = providerToolName(provider.name, skill.id);
  const examples = skill.examples?.length ? ` Examples: ${skill.examples.slice(0, 5).join(" | ")}` : "";
  return {
    name,
    provider: provider.name,
    description: `[${card.name}] ${skill.description ?? skill.name ?? skill.id}${examples}`.slice(0, 4096),
    inputSchema: a2aSkillInputSchema,
    display: { name, visible: provider.visible, defaultVisible: false, display: provider.display },
    policy: { queue: provider.queue },
    run: (context: PendingCallContext & SettingsAccess, call) => runA2aSkill(context, { provider, card, skill }, call),
  };
}
