/**
 * Turns an agent's model config (`model`) into an AI SDK language model.
 * API keys come only from Worker secrets, never from the config, and only by
 * the secret policy (never one of the gateway's own keys); a missing one fails
 * with a message that says which secret to set. A `baseURL` is checked by the
 * URL policy here too, so a config stored before a policy change cannot call
 * what the deployment now forbids, and the key it gets never leaves its
 * origin (`pinnedFetch`).
 *
 * Each provider package is imported when a model of its kind is made, never
 * at start-up: a Worker whose agents all use one provider never evaluates
 * the others (see docs/development.md, "Bundle and start-up").
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelConfig } from "./model-config";
import type { AppEnv } from "../env";
import { originOf, pinnedFetch } from "../security/pinned-request";
import { describeSecretRefusal, readSecret } from "../security/secret-policy";
import { outboundUrlProblem, urlPolicyOf } from "../security/url-policy";
import { createScriptedModel, type ScriptedCursor } from "./scripted-model";

/**
 * The model an agent thinks with. `scripted` is where a `scripted` model keeps
 * its place in the script; other providers ignore it. Sampling settings
 * (`temperature`, `maxOutputTokens`) are call settings: pass them to `streamText`.
 */
export async function createModel(config: ModelConfig, env: AppEnv, scripted: ScriptedCursor): Promise<LanguageModelV4> {
  // A configured baseURL gets the API key: every request stays on its origin, without redirects.
  let fetch: ReturnType<typeof pinnedFetch> | undefined;
  if ((config.provider === "openai" || config.provider === "anthropic" || config.provider === "openai-compatible") && config.baseURL !== undefined) {
    const policy = urlPolicyOf(env);
    const problem = outboundUrlProblem(config.baseURL, policy);
    const origin = originOf(config.baseURL);
    if (problem !== undefined || origin === undefined) throw new Error(`The model's baseURL cannot be used: ${problem ?? "not an absolute http(s) URL"}`);
    fetch = pinnedFetch({ origin, policy });
  }
  switch (config.provider) {
    case "openai": {
      const apiKey = requireSecret(env, config.apiKeyEnv ?? "OPENAI_API_KEY", config.provider);
      const { createOpenAI } = await import("@ai-sdk/openai");
      return createOpenAI({ apiKey, baseURL: config.baseURL, fetch })(config.name);
    }
    case "anthropic": {
      const apiKey = requireSecret(env, config.apiKeyEnv ?? "ANTHROPIC_API_KEY", config.provider);
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic({ apiKey, baseURL: config.baseURL, fetch })(config.name);
    }
    case "openai-compatible": {
      const apiKey = config.apiKeyEnv ? requireSecret(env, config.apiKeyEnv, config.provider) : undefined;
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({ name: "openai-compatible", baseURL: config.baseURL, apiKey, fetch })(config.name);
    }
    case "workers-ai": {
      if (!env.AI) {
        throw new Error('The workers-ai provider needs the Workers AI binding: add `[ai] binding = "AI"` to wrangler.toml');
      }
      const { createWorkersAI } = await import("workers-ai-provider");
      return createWorkersAI({ binding: env.AI })(config.name);
    }
    case "scripted":
      return createScriptedModel({ ...scripted, turns: config.turns, modelId: config.name });
  }
}

function requireSecret(env: AppEnv, name: string, provider: ModelConfig["provider"]): string {
  const secret = readSecret(env, name);
  if (secret.ok) return secret.value;
  if (secret.refusal === "unset") throw new Error(`The ${provider} provider needs an API key: set the ${name} secret (wrangler secret put ${name})`);
  throw new Error(`The ${provider} provider cannot use ${describeSecretRefusal(name, secret.refusal)}`);
}
