/**
 * The providers of an agent's cycle, in the order their names are claimed
 * (the first claim wins a collision): built-ins, the output reader, the
 * agent's configured tools, then `providers` and the enabled `mcp.servers`
 * in config order.
 */
import { mcpProvider } from "./mcp-provider";
import { openApiProvider } from "./openapi-provider";
import type { ToolSettings } from "../engine/tool-context";
import { agentsProvider } from "./agents-provider";
import { a2aProvider } from "./a2a-provider";
import { builtinProvider } from "./builtin-provider";
import { configuredProvider } from "./configured-provider";
import { outputReaderProvider } from "./output-reader";
import { routerProvider } from "./router-provider";
import type { ToolProvider } from "./tool-provider";

export function providersOf(config: ToolSettings): ToolProvider[] {
  return [
    builtinProvider(),
    outputReaderProvider(),
    configuredProvider(),
    ...(config.router ? [routerProvider(config.router)] : []),
    ...(config.providers ?? []).map((provider) =>
      provider.type === "openapi" ? openApiProvider(provider) : provider.type === "a2a" ? a2aProvider(provider) : agentsProvider(provider),
    ),
    // A server with `enabled: false` stays in the config but is never connected: it gives no tools.
    ...(config.mcp?.servers ?? []).filter((server) => server.enabled !== false).map(mcpProvider),
  ];
}
