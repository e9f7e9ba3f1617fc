/** The agent's own `tools` (its config) as one provider: their names as configured, run by the engine. */
import { configuredProviderName, resolveConfiguredTool } from "./configured-tools";
import type { ToolProvider } from "./tool-provider";
import type { SettingsAccess } from "../engine/tool-context";

export function configuredProvider(): ToolProvider {
  return {
    name: configuredProviderName,
    kind: "tools",
    async load(context: SettingsAccess) {
      return { tools: context.config.tools.map((config) => ({ kind: "engine" as const, origin: config.name, resolved: resolveConfiguredTool(config) })) };
    },
  };
}
