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

/**
 * The earlier design's form, rewritten before the config is checked and
 * stored as it is here: `provider: "dall-e"` is OpenAI's images API with the
 * `dall-e-3` model (unless `model` names another), and a top-level `quality`
 * is passed to the provider like any of its options (`providerOptions.quality`).
 */
export function normalizeImageModel(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const { quality, ...config } = raw;
  const named = config.provider === "dall-e" ? { ...config, provider: "openai", model: config.model ?? "dall-e-3" } : config;
  if (quality === undefined) return named;
  const options = named.providerOptions;
  if (options === undefined) return { ...named, providerOptions: { quality } };
  // A quality given twice, or beside options that are not an object, is left as written for the check to refuse.
  return isRecord(options) && !("quality" in options) ? { ...named, providerOptions: { ...options, quality } } : { ...named, quality };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const ImageModelFields = z
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
  .strict();

export const ImageModelConfig = z.preprocess(normalizeImageModel, ImageModelFields).openapi("ImageModelConfig");

export type ImageModelConfig = z.infer<typeof ImageModelFields>;

/** What an agent with the `images` group and no `images` config draws with. */
export const defaultImageModelConfig: ImageModelConfig = { provider: "workers-ai" };
