/**
 * The span names and attributes of a run, after the OpenTelemetry semantic
 * conventions for generative AI (version 1.41.0: `gen_ai.provider.name`,
 * `invoke_agent`, `chat`, `execute_tool`). What is recorded are ids, names,
 * counts and fixed words: never a message's text, a tool's arguments or
 * result, a token or a secret (docs/observability.md).
 */
import type { Attributes } from "./span-record";

export const semanticConventionsVersion = "1.41.0";
export const instrumentationScope = { name: "switchboard", version: semanticConventionsVersion };

/** `gen_ai.provider.name`: the convention's names where it has one for the model's provider. */
export function providerName(provider: string): string {
  if (provider === "workers-ai") return "cloudflare.workers_ai";
  return provider;
}

export function invokeAgentSpan(agent: { id: string; name: string }, conversationId: string, model: { provider: string; name?: string }) {
  return {
    name: `invoke_agent ${agent.name}`,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": agent.id,
      "gen_ai.agent.name": agent.name,
      "gen_ai.conversation.id": conversationId,
      "gen_ai.provider.name": providerName(model.provider),
      ...(model.name && { "gen_ai.request.model": model.name }),
    } satisfies Attributes,
  };
}

export function chatSpan(model: { provider: string; name?: string }, conversationId: string | undefined) {
  const requested = model.name ?? model.provider;
  return {
    name: `chat ${requested}`,
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": providerName(model.provider),
      "gen_ai.request.model": requested,
      ...(conversationId && { "gen_ai.conversation.id": conversationId }),
    } satisfies Attributes,
  };
}

/** After the step: tokens as counts, the finish reason as the provider's word. */
export function chatResult(usage: { inputTokens?: number; outputTokens?: number }, finishReason: string | undefined): Attributes {
  return {
    ...(usage.inputTokens !== undefined && { "gen_ai.usage.input_tokens": usage.inputTokens }),
    ...(usage.outputTokens !== undefined && { "gen_ai.usage.output_tokens": usage.outputTokens }),
    ...(finishReason && { "gen_ai.response.finish_reasons": [finishReason] }),
  };
}

/**
 * `gen_ai.tool.type`: `function` for a tool the gateway runs itself (a
 * built-in, an internal or prebuilt tool), `extension` for one that reaches
 * an outside service (HTTP, MCP, OpenAPI, a pushed call), `datastore` for a
 * stored output read back.
 */
export function executeToolSpan(tool: { name: string; callId: string; type: "function" | "extension" | "datastore"; provider: string }) {
  return {
    name: `execute_tool ${tool.name}`,
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool.name,
      "gen_ai.tool.call.id": tool.callId,
      "gen_ai.tool.type": tool.type,
      "switchboard.tool.provider": tool.provider,
    } satisfies Attributes,
  };
}

/** What a call waits for: a person's or a service's answer, an approval, a slot in a named queue. */
export type WaitKind = "pending_call" | "approval" | "queue";

export function waitSpan(kind: WaitKind, callId: string, extra: Attributes = {}) {
  return { name: `wait ${kind}`, attributes: { "switchboard.wait.kind": kind, "gen_ai.tool.call.id": callId, ...extra } satisfies Attributes };
}
