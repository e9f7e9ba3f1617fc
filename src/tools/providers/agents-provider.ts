/**
 * Sub-agents as tools (`providers[].type: "agents"`): `{provider}__{name}`
 * for each listed agent. A call gives the agent a task and waits for its
 * final answer (`run-subagent-call.ts`).
 */
import { subagentInputSchema } from "./configured-tools";
import { runSubagentCall } from "../subagents/run-subagent-call";
import type { AgentsProviderConfig } from "../config/provider-config";
import { providerAllows } from "../config/provider-config";
import { providerToolName } from "../engine/tool-naming";
import type { ProvidedTool, ToolProvider } from "./tool-provider";
import type { PendingCallContext } from "../engine/run-pending-call";
import type { SettingsAccess } from "../engine/tool-context";

/** The tools an agents provider offers (known when the agent is saved). */
export function agentProviderTools(provider: AgentsProviderConfig): { name: string; agent: AgentsProviderConfig["agents"][number] }[] {
  return provider.agents.filter((agent) => providerAllows(provider, agent.name, agent.agentId)).map((agent) => ({ name: providerToolName(provider.name, agent.name), agent }));
}

export function agentsProvider(provider: AgentsProviderConfig): ToolProvider {
  return {
    name: provider.name,
    kind: "agents",
    async load(context) {
      const tools: ProvidedTool[] = agentProviderTools(provider).map(({ name, agent }) => ({
        kind: "engine",
        origin: agent.name,
        resolved: {
          name,
          provider: provider.name,
          description:
            agent.description ??
            `Give the agent "${agent.name}" a task. It works on it in its own cycles and its final answer comes back as this tool's result ({answer, agentId, runId}).`,
          inputSchema: subagentInputSchema,
          display: { name, visible: provider.visible, defaultVisible: false, display: provider.display },
          pending: { cardStatus: "running" },
          policy: { queue: provider.queue },
          run: (runContext: PendingCallContext & SettingsAccess, call) =>
            runSubagentCall(
              runContext,
              {
                agentId: agent.agentId,
                isAsync: provider.isAsync ?? false,
                timeoutMs: provider.timeout ?? runContext.config.limits.toolTimeout,
                expiresIn: provider.expiresIn,
                maxDepth: provider.maxDepth,
                inherit: provider.inherit,
              },
              call,
            ),
        },
      }));
      void context;
      return { tools, instructions: provider.instructions };
    },
  };
}
