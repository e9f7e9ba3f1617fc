/** The agent's own `tools` (§5) as one provider: their names as configured, run by the engine. */
import { configuredProviderName, resolveConfiguredTool } from "../engine/configured-tools";
import type { ToolProvider } from "./tool-provider";

export function configuredProvider(): ToolProvider {
  return {
    name: configuredProviderName,
    kind: "tools",
    async load(context) {
      return { tools: context.config.tools.map((config) => ({ kind: "engine" as const, origin: config.name, resolved: resolveConfiguredTool(config) })) };
    },
  };
}
