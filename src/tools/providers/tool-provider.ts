/**
 * The one provider interface under every tool of a cycle (`ToolProvider`):
 * the built-ins, the output reader, the agent's configured
 * tools, OpenAPI sources, sub-agents, remote A2A agents and MCP servers each produce their
 * tools through it. A provider's tools are named `{provider}__{tool}`
 * (`engine/tool-naming.ts`), except the built-ins' and the configured tools', which
 * keep their own names (docs/tools.md, "One naming rule"). Every call of
 * either kind goes
 * through the tool pipeline (`engine/tool-pipeline.ts`); raw tools (the
 * built-ins) skip its stages about cards, the cache and queues.
 */
import type { Tool } from "ai";
import type { ResolvedTool } from "../engine/resolved-tool";
import type { ToolContext } from "../engine/tool-context";
import type { ToolStreamObserver } from "../engine/tool-stream-observer";

export type ProviderKind = "builtin" | "outputs" | "tools" | "openapi" | "agents" | "a2a" | "mcp";

export type ProvidedTool =
  /** Run by the engine. */
  | { kind: "engine"; origin: string; resolved: ResolvedTool }
  /** Used as it is (its own execute returns an outcome). */
  | { kind: "raw"; name: string; origin: string; tool: Tool };

export type ProviderTools = {
  tools: ProvidedTool[];
  /** Stream observers raw tools bring (engine tools share the engine's). */
  observers?: ToolStreamObserver[];
  /** What the provider asks to be said in the system prompt (MCP `instructions`). */
  instructions?: string;
};

export type ToolProvider = {
  /** The namespace (`{provider}__{tool}`); also what statistics and the run record call it. */
  name: string;
  kind: ProviderKind;
  /** This cycle's tools. Never throws: a provider that cannot offer its tools reports why and offers none. */
  load(context: ToolContext): Promise<ProviderTools>;
};

export const providedName = (tool: ProvidedTool): string => (tool.kind === "engine" ? tool.resolved.name : tool.name);
