/**
 * Draws one image with an image model (AI SDK `generateImage`: OpenAI,
 * Workers AI, or `scripted`) and keeps it in R2 under
 * `images/<agentId>/<callId>`. Idempotent per call: a call done again after a
 * restart finds its image and does not pay for another. Bounded in time (the
 * tool timeout) and size; never throws.
 */
import { generateImage } from "ai";
import { createImageModel } from "../../models/create-image-model";
import type { ImageModelConfig } from "../../models/image-model-config";
import type { MessagePart } from "../../protocol/message";
import { signFileLink, maxFileLinkSeconds } from "../../security/file-links";
import { servableContentType } from "../files/media-type";
import type { PlatformAccess, RunIdentity, SettingsAccess } from "../engine/tool-context";

export const maxImageBytes = 10_000_000;

export type StoredImage = { key: string; mediaType: string; size: number; prompt: string; model: string };
export type ImageResult = { ok: true; image: StoredImage } | { ok: false; error: string };

export const imageKey = (agentId: string, toolCallId: string) => `images/${agentId}/${toolCallId}`;

export async function generateImageFile(
  context: RunIdentity & PlatformAccess & SettingsAccess,
  config: ImageModelConfig,
  input: { prompt: string; size?: string; toolCallId: string; abortSignal?: AbortSignal },
): Promise<ImageResult> {
  const bucket = context.env.FILES;
  const key = imageKey(context.agent.agentId, input.toolCallId);
  const existing = await bucket.head(key);
  if (existing) {
    return {
      ok: true,
      image: {
        key,
        mediaType: servableContentType(existing.httpMetadata?.contentType, "image/png"),
        size: existing.size,
        prompt: input.prompt,
        model: existing.customMetadata?.model ?? "",
      },
    };
  }
  const made = await createImageModel(config, context.env);
  if (!made.ok) return { ok: false, error: made.error };
  const timeoutMs = context.config.limits.toolTimeout;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(input.abortSignal ? [input.abortSignal] : [])]);
  const size = (input.size ?? config.size) as `${number}x${number}` | undefined;
  try {
    const result = await generateImage({
      model: made.model,
      prompt: input.prompt,
      n: 1,
      ...(size && { size }),
      ...(config.aspectRatio && { aspectRatio: config.aspectRatio as `${number}:${number}` }),
      ...(config.providerOptions && { providerOptions: { [config.provider]: config.providerOptions } }),
      maxRetries: 1,
      abortSignal: signal,
    });
    const bytes = result.image.uint8Array;
    if (bytes.byteLength > maxImageBytes) return { ok: false, error: `The image is ${bytes.byteLength} bytes, over the ${maxImageBytes}-byte limit` };
    // The SDK reads the type from the bytes; it is kept with the file and served as its content-type.
    const mediaType = servableContentType(result.image.mediaType || "image/png");
    await bucket.put(key, bytes, {
      httpMetadata: { contentType: mediaType },
      customMetadata: { prompt: input.prompt.slice(0, 500), model: made.model.modelId, toolCallId: input.toolCallId },
    });
    return { ok: true, image: { key, mediaType, size: bytes.byteLength, prompt: input.prompt, model: made.model.modelId } };
  } catch (error) {
    if (signal.aborted && !input.abortSignal?.aborted) return { ok: false, error: `Image generation timed out after ${timeoutMs}ms` };
    console.error("image generation failed", input.toolCallId, error);
    return { ok: false, error: `Image generation failed: ${error instanceof Error ? error.message.slice(0, 500) : "unknown error"}` };
  }
}

/** The image part a space shows for a stored image (a signed link for that space's members, valid 30 days). */
export async function imagePartFor(
  context: PlatformAccess,
  image: StoredImage,
  spaceId: string,
  toolCallId: string,
  minimal = false,
): Promise<Extract<MessagePart, { type: "image" }>> {
  const link = await signFileLink(context.env, { key: image.key, spaceId, seconds: maxFileLinkSeconds });
  return {
    type: "image",
    url: link.url,
    mediaType: image.mediaType,
    alt: image.prompt.slice(0, 500),
    expiresAt: link.expiresAt,
    toolCallId,
    ...(minimal && { displayMode: "minimal" as const }),
  };
}
