/**
 * The `images` group: `generate_image` draws with the agent's image model
 * (`images` in its config; default Workers AI) and shows the picture in the
 * active space (or a space the call names) as a message with an image part.
 * Its message id comes from the call, so a call done again finds it.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import { defaultImageModelConfig, ImageSize } from "../../models/image-model-config";
import type { JournalAccess, PlatformAccess, RunIdentity, SettingsAccess, SpaceAccess } from "../engine/tool-context";
import { messageIdForCall } from "../engine/call-ids";
import { failed, succeeded } from "../engine/tool-outcome";
import { generateImageFile, imagePartFor } from "../images/generate-image-file";

const schema = zodSchema(
  z.object({
    prompt: z.string().min(1).max(4_000).describe("What to draw"),
    size: ImageSize.optional().describe("e.g. 1024x1024 (default: the model's)"),
    spaceId: z.string().max(200).optional().describe("Where to show it (default: your active space)"),
  }),
);

export function createImageTools(context: RunIdentity & PlatformAccess & SettingsAccess & SpaceAccess & JournalAccess) {
  return {
    generate_image: tool({
      description: "Generate an image from a text prompt and show it in your active space (or spaceId). Returns a signed link to it.",
      inputSchema: schema,
      execute: async ({ prompt, size, spaceId }, { toolCallId: modelToolCallId, abortSignal }) => {
        const space = spaceId ?? context.getActiveSpaceId();
        if (!space) return failed("generate_image shows the image in a space: enter_space first, or give spaceId");
        if (!(await context.isMemberOf(space))) return failed(`You are not a member of space "${space}"`);
        const toolCallId = context.callIds.idFor(modelToolCallId);
        const made = await generateImageFile(context, context.config.images ?? defaultImageModelConfig, { prompt, size, toolCallId, abortSignal });
        if (!made.ok) return failed(made.error);
        const part = await imagePartFor(context, made.image, space, toolCallId);
        const message = await context.spaceEvents.track(
          context.spaceEvents.ordered(space).postMessage({ id: messageIdForCall(toolCallId), entityId: context.agent.entityId, role: "assistant", parts: [part] }),
        );
        return succeeded({ url: part.url, expiresAt: part.expiresAt, mediaType: made.image.mediaType, size: made.image.size, spaceId: space, messageId: message.id });
      },
    }),
  };
}
