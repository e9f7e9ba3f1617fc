/**
 * Turns an image model config into an AI SDK image model. Keys come from
 * Worker secrets by the secret policy, a `baseURL` by the URL policy (checked
 * here as well as at save), exactly as for language models. Provider
 * packages are imported on use, as in create-model.ts.
 */
import type { ImageModelV4 } from "@ai-sdk/provider";
import type { AppEnv } from "../env";
import { describeSecretRefusal, readSecret } from "../security/secret-policy";
import { outboundUrlProblem, urlPolicyOf } from "../security/url-policy";
import { defaultImageModels, type ImageModelConfig } from "./image-model-config";
import { createScriptedImageModel } from "./scripted-image-model";

export type ImageModelResult = { ok: true; model: ImageModelV4 } | { ok: false; error: string };

export async function createImageModel(config: ImageModelConfig, env: AppEnv): Promise<ImageModelResult> {
  const modelId = config.model ?? defaultImageModels[config.provider];
  switch (config.provider) {
    case "openai": {
      if (config.baseURL !== undefined) {
        const problem = outboundUrlProblem(config.baseURL, urlPolicyOf(env));
        if (problem !== undefined) return { ok: false, error: `The image model's baseURL cannot be used: ${problem}` };
      }
      const name = config.apiKeyEnv ?? "OPENAI_API_KEY";
      const secret = readSecret(env, name);
      if (!secret.ok) {
        return {
          ok: false,
          error:
            secret.refusal === "unset"
              ? `The openai image provider needs an API key: set the ${name} secret`
              : `The openai image provider cannot use ${describeSecretRefusal(name, secret.refusal)}`,
        };
      }
      const { createOpenAI } = await import("@ai-sdk/openai");
      return { ok: true, model: createOpenAI({ apiKey: secret.value, baseURL: config.baseURL }).image(modelId) };
    }
    case "workers-ai": {
      const binding = env.AI;
      if (!binding) return { ok: false, error: 'The workers-ai image provider needs the Workers AI binding: add `[ai] binding = "AI"` to wrangler.toml' };
      const { createWorkersAI } = await import("workers-ai-provider");
      return { ok: true, model: createWorkersAI({ binding }).image(modelId) };
    }
    case "scripted":
      return { ok: true, model: createScriptedImageModel(modelId) };
  }
}
