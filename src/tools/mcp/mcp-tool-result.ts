/**
 * Turns an MCP `tools/call` answer into a typed outcome (`isError` is a
 * failure, whatever the content says). Images and audio reach the model as
 * media parts when its provider takes media in tool results (`content` on
 * the outcome); otherwise, and in the run record and on streams, they are
 * described (type, media type, size) without their bytes. An answer nested
 * deeper than the gateway accepts anywhere becomes a failure too, so it never
 * reaches storage or comparison.
 */
import { checkJsonDepth } from "../../json";
import { failed, type ModelContentPart, succeeded, type ToolOutcome } from "../engine/tool-outcome";

type McpContent = { type: string; text?: string; data?: unknown; mimeType?: unknown; [key: string]: unknown };

/** Media larger than this (base64 characters, all parts of one answer together) is described, not passed. */
export const maxMediaChars = 1_500_000;

export type McpOutcomeOptions = { media: boolean };

export function mcpToolOutcome(
  answer: { isError?: boolean; content?: unknown; structuredContent?: unknown; toolResult?: unknown },
  options: McpOutcomeOptions = { media: false },
): ToolOutcome {
  const outcome = answerOutcome(answer, options);
  if (outcome.type !== "ok") return outcome;
  const depth = checkJsonDepth(outcome.value);
  return depth.ok ? outcome : failed(`The MCP tool's answer was refused: ${depth.message}`, "upstream");
}

const isMedia = (part: McpContent) => (part.type === "image" || part.type === "audio") && typeof part.data === "string" && typeof part.mimeType === "string";

function answerOutcome(answer: { isError?: boolean; content?: unknown; structuredContent?: unknown; toolResult?: unknown }, options: McpOutcomeOptions): ToolOutcome {
  // Servers on the 2024-10-07 protocol answer with `toolResult`.
  if (answer.content === undefined && "toolResult" in answer) return succeeded(answer.toolResult);
  const content = Array.isArray(answer.content) ? (answer.content as McpContent[]) : [];
  const text = content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
  if (answer.isError) return failed(text || "The MCP tool reported an error", "upstream");
  if (answer.structuredContent !== undefined) return succeeded(answer.structuredContent);
  if (content.length > 0 && content.every((part) => part.type === "text")) return succeeded({ text });
  if (!content.some(isMedia)) return succeeded({ content });

  const mediaChars = content.filter(isMedia).reduce((sum, part) => sum + String(part.data).length, 0);
  const passMedia = options.media && mediaChars <= maxMediaChars;
  const described = content.map((part) =>
    isMedia(part)
      ? {
          type: part.type,
          mimeType: part.mimeType,
          bytes: Math.floor((String(part.data).length * 3) / 4),
          note: passMedia
            ? "passed to the model as media"
            : options.media
              ? `not passed to the model: media over ${maxMediaChars} base64 characters`
              : "not passed to the model: its provider does not take media in tool results",
        }
      : part,
  );
  if (!passMedia) return succeeded({ content: described });
  const parts: ModelContentPart[] = content.map((part) =>
    isMedia(part)
      ? { type: "media", data: String(part.data), mediaType: String(part.mimeType) }
      : { type: "text", text: part.type === "text" ? String(part.text ?? "") : JSON.stringify(part) },
  );
  return { type: "ok", value: { content: described }, content: parts };
}
