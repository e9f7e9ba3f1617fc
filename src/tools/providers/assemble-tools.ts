/**
 * A cycle's tools, from every provider: loaded side by side, named by one
 * rule, collisions refused (the earlier provider keeps the name; a
 * `tool.collision` event names both), in the order the names were claimed.
 * Every call of each of them then goes through the tool pipeline
 * (`engine/tool-pipeline.ts`): journal, approval, validation, cards, cache,
 * queue, output limit, context budget and statistics, once.
 */
import type { ToolContext } from "../engine/tool-context";
import type { ToolStreamObserver } from "../engine/tool-stream-observer";
import type { PipelineTool } from "../engine/tool-pipeline";
import { ToolNames } from "../engine/tool-naming";
import { toolCategory } from "../config/tool-categories";
import { type ProviderTools, providedName, type ToolProvider } from "./tool-provider";

export type ProviderInstructions = { provider: string; kind: string; text: string };

export type AssembledTools = {
  /** Every offered tool, in the order its name was claimed. */
  tools: PipelineTool[];
  /** Stream observers raw tools bring (engine tools' cards are the pipeline's). */
  observers: ToolStreamObserver[];
  instructions: ProviderInstructions[];
};

/** Instructions a provider may put in the system prompt, at most this long each. */
export const maxInstructionsChars = 8_000;

export async function assembleTools(context: ToolContext, providers: ToolProvider[]): Promise<AssembledTools> {
  const loaded: ProviderTools[] = await Promise.all(
    providers.map(async (provider) => {
      try {
        return await provider.load(context);
      } catch (error) {
        console.error("a tool provider failed to load", provider.name, error);
        context.publish("provider.failed", { provider: provider.name, kind: provider.kind, error: "The provider's tools could not be loaded; the gateway logged the cause" });
        return { tools: [] };
      }
    }),
  );

  const names = new ToolNames();
  const tools: PipelineTool[] = [];
  providers.forEach((provider, index) => {
    for (const provided of loaded[index].tools) {
      const name = providedName(provided);
      const claim = names.claim(name, { provider: provider.name, tool: provided.origin });
      if (!claim.ok) {
        context.publish("tool.collision", { name, kept: claim.holder, refused: { provider: provider.name, tool: provided.origin }, error: claim.message });
        continue;
      }
      const category = toolCategory(provider.kind, provided.origin);
      tools.push(
        provided.kind === "engine" ? { kind: "engine", resolved: provided.resolved, category } : { kind: "raw", name, provider: provider.name, tool: provided.tool, category },
      );
    }
  });

  // Aliases last: a tool's own name always wins over another's alias.
  for (const [alias, target] of Object.entries(context.config.aliases ?? {})) {
    const tool = tools.find((candidate) => (candidate.kind === "engine" ? candidate.resolved.name : candidate.name) === target);
    if (!tool) continue;
    const claim = names.claim(alias, { provider: "aliases", tool: target });
    if (!claim.ok) {
      context.publish("tool.collision", { name: alias, kept: claim.holder, refused: { provider: "aliases", tool: target }, error: claim.message });
      continue;
    }
    tools.push(
      tool.kind === "engine"
        ? { kind: "engine", resolved: { ...tool.resolved, name: alias, display: { ...tool.resolved.display, name: alias } }, aliasOf: target, category: tool.category }
        : { ...tool, name: alias, aliasOf: target },
    );
  }

  const instructions = providers.flatMap((provider, index) => {
    const text = loaded[index].instructions?.trim();
    return text ? [{ provider: provider.name, kind: provider.kind, text: text.slice(0, maxInstructionsChars) }] : [];
  });
  return { tools, observers: loaded.flatMap((entry) => entry.observers ?? []), instructions };
}
