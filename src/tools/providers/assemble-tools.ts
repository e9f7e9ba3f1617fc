/**
 * A cycle's tools, from every provider: loaded side by side, named by one
 * rule, collisions refused (the earlier provider keeps the name; a
 * `tool.collision` event names both), engine tools made once with their
 * stream observer, and every tool wrapped once (`manageTool`) for the output
 * limit, the context budget and call statistics. The journal wraps the
 * result (`src/agents/journaled-tools.ts`).
 */
import type { Tool, ToolSet } from "ai";
import { byteLength } from "../../json";
import { ContextBudget } from "../engine/context-budget";
import { createEngineTools } from "../engine/engine-tools";
import { limitOutput, modelBytes } from "../engine/limit-output";
import type { ResolvedTool, ToolDisplaySettings } from "../engine/resolved-tool";
import { failed, isToolOutcome, outcomeFailureKind, outcomeStatus, succeeded, type ToolOutcome, withMeta } from "../engine/tool-outcome";
import type { ToolContext } from "../tool-context";
import type { ToolStreamObserver } from "../tool-stream-observer";
import { ToolNames } from "./tool-naming";
import { type ProviderTools, providedName, type ToolProvider } from "./tool-provider";

export type ProviderInstructions = { provider: string; kind: string; text: string };

export type AssembledTools = {
  tools: ToolSet;
  observers: ToolStreamObserver[];
  instructions: ProviderInstructions[];
  /** Each offered tool's provider. */
  providers: Record<string, string>;
  /** How each engine tool shows (built-ins have none): the one source of a call's audience, approval cards included. */
  displays: Record<string, ToolDisplaySettings>;
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
  const order: { name: string; provider: string; raw?: Tool }[] = [];
  const engine: ResolvedTool[] = [];
  providers.forEach((provider, index) => {
    for (const provided of loaded[index].tools) {
      const name = providedName(provided);
      const claim = names.claim(name, { provider: provider.name, tool: provided.origin });
      if (!claim.ok) {
        context.publish("tool.collision", { name, kept: claim.holder, refused: { provider: provider.name, tool: provided.origin }, error: claim.message });
        continue;
      }
      if (provided.kind === "engine") {
        engine.push(provided.resolved);
        order.push({ name, provider: provided.resolved.provider });
      } else order.push({ name, provider: provider.name, raw: provided.tool });
    }
  });

  const { tools: engineTools, observer } = createEngineTools(context, engine);
  const budget = ContextBudget.of(context.config.limits);
  const tools: Record<string, Tool> = {};
  const owners: Record<string, string> = {};
  for (const entry of order) {
    const tool = entry.raw ?? engineTools[entry.name];
    tools[entry.name] = manageTool(context, entry.name, entry.provider, tool, budget);
    owners[entry.name] = entry.provider;
  }
  const instructions = providers.flatMap((provider, index) => {
    const text = loaded[index].instructions?.trim();
    return text ? [{ provider: provider.name, kind: provider.kind, text: text.slice(0, maxInstructionsChars) }] : [];
  });
  const displays = Object.fromEntries(engine.map((resolved) => [resolved.name, resolved.display]));
  return { tools, observers: [...loaded.flatMap((entry) => entry.observers ?? []), observer], instructions, providers: owners, displays };
}

/** One tool, wrapped for the output limit, the step's context budget and the statistics. */
function manageTool(context: ToolContext, name: string, provider: string, tool: Tool, budget: ContextBudget): Tool {
  const execute = tool.execute;
  if (!execute) return tool;
  return {
    ...tool,
    execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
      const toolCallId = context.callIds.idFor(options.toolCallId);
      const startedAt = Date.now();
      let outcome: ToolOutcome;
      try {
        const value: unknown = await execute(input as never, options);
        outcome = isToolOutcome(value) ? value : succeeded(value);
      } catch (error) {
        console.error("tool threw", name, toolCallId, error);
        outcome = failed(`Tool "${name}" failed unexpectedly; the gateway logged the cause`, "internal");
      }
      const call = { toolCallId, toolName: name };
      outcome = await limitOutput(context, call, outcome);
      outcome = await budget.apply(context, call, outcome);
      const bytesIn = byteLength(JSON.stringify(input ?? null));
      outcome = withMeta(outcome, { provider: outcome.meta?.provider ?? provider, bytesIn });
      context.toolRuntime.recordCall({
        toolName: name,
        provider: outcome.meta?.provider ?? provider,
        status: outcomeStatus(outcome),
        failureKind: outcomeFailureKind(outcome),
        latencyMs: Date.now() - startedAt,
        bytesIn,
        bytesOut: outcome.meta?.bytesOut ?? modelBytes(outcome),
        cacheHit: outcome.meta?.cacheHit ?? false,
        at: Date.now(),
      });
      return outcome;
    },
  } as Tool;
}
