/**
 * Which image model an `image-generator` tool or the `generate_image`
 * built-in draws with: the AI SDK's OpenAI image models, Workers AI image
 * models (the `AI` binding), or `scripted` (a deterministic picture made
 * here, for tests and offline development). Keys are named, never given.
 */
import { z } from "@hono/zod-openapi";
import { OutboundUrl } from "../security/url-policy";
import { ApiKeyEnv } from "./model-config";

export const imageProviders = ["openai", "workers-ai", "scripted"] as const;

/** The model each provider uses when the config names none. */
export const defaultImageModels: Record<(typeof imageProviders)[number], string> = {
  openai: "gpt-image-1",
  "workers-ai": "@cf/black-forest-labs/flux-1-schnell",
  scripted: "scripted-image",
};

export const ImageSize = z.string().regex(/^\d{2,5}x\d{2,5}$/, "A size such as 1024x1024");

export const ImageModelConfig = z
  .object({
    provider: z.enum(imageProviders),
    model: z.string().min(1).max(200).optional(),
    size: ImageSize.optional(),
    aspectRatio: z
      .string()
      .regex(/^\d{1,3}:\d{1,3}$/, "An aspect ratio such as 16:9")
      .optional(),
    /** OpenAI only: the Worker secret with the key (default OPENAI_API_KEY). */
    apiKeyEnv: ApiKeyEnv.optional(),
    /** OpenAI only: another endpoint speaking its images API. */
    baseURL: OutboundUrl.optional(),
    /** Passed to the provider as its provider options (e.g. `{"quality": "hd"}`). */
    providerOptions: z.record(z.string().max(64), z.union([z.string().max(1000), z.number(), z.boolean()])).optional(),
  })
  .strict()
  .openapi("ImageModelConfig");

export type ImageModelConfig = z.infer<typeof ImageModelConfig>;

/** What an agent with the `images` group and no `images` config draws with. */
export const defaultImageModelConfig: ImageModelConfig = { provider: "workers-ai" };
