/**
 * Turns an agent's model config (contract §5) into an AI SDK language model.
 * API keys come only from Worker secrets, never from the config; a missing one
 * fails with a message that says which secret to set.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { createWorkersAI } from "workers-ai-provider";
import type { ModelConfig } from "../agents/agent-config";
import type { AppEnv } from "../env";
import { createScriptedModel, type ScriptedCursor } from "./scripted-model";

/**
 * The model an agent thinks with. `scripted` is where a `scripted` model keeps
 * its place in the script; other providers ignore it. Sampling settings
 * (`temperature`, `maxOutputTokens`) are call settings: pass them to `streamText`.
 */
export function createModel(config: ModelConfig, env: AppEnv, scripted: ScriptedCursor): LanguageModelV4 {
  switch (config.provider) {
    case "openai": {
      const apiKey = requireSecret(env, config.apiKeyEnv ?? "OPENAI_API_KEY", config.provider);
      return createOpenAI({ apiKey, baseURL: config.baseURL })(config.name);
    }
    case "anthropic": {
      const apiKey = requireSecret(env, config.apiKeyEnv ?? "ANTHROPIC_API_KEY", config.provider);
      return createAnthropic({ apiKey, baseURL: config.baseURL })(config.name);
    }
    case "openai-compatible": {
      const apiKey = config.apiKeyEnv ? requireSecret(env, config.apiKeyEnv, config.provider) : undefined;
      return createOpenAICompatible({ name: "openai-compatible", baseURL: config.baseURL, apiKey })(config.name);
    }
    case "workers-ai": {
      if (!env.AI) {
        throw new Error('The workers-ai provider needs the Workers AI binding: add `[ai] binding = "AI"` to wrangler.toml');
      }
      return createWorkersAI({ binding: env.AI })(config.name);
    }
    case "scripted":
      return createScriptedModel({ ...scripted, turns: config.turns, modelId: config.name });
  }
}

function requireSecret(env: AppEnv, name: string, provider: ModelConfig["provider"]): string {
  const value = env[name];
  if (typeof value === "string" && value.length > 0) return value;
  throw new Error(`The ${provider} provider needs an API key: set the ${name} secret (wrangler secret put ${name})`);
}
