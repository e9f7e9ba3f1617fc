/**
 * Turns an MCP `tools/call` answer into a typed outcome (`isError` is a
 * failure, whatever the content says). An answer nested deeper than the
 * gateway accepts anywhere becomes a failure too, so it never reaches storage
 * or comparison.
 */
import { checkJsonDepth } from "../../json";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";

type McpContent = { type: string; text?: string; [key: string]: unknown };

export function mcpToolOutcome(answer: { isError?: boolean; content?: unknown; structuredContent?: unknown; toolResult?: unknown }): ToolOutcome {
  const outcome = answerOutcome(answer);
  if (outcome.type !== "ok") return outcome;
  const depth = checkJsonDepth(outcome.value);
  return depth.ok ? outcome : failed(`The MCP tool's answer was refused: ${depth.message}`);
}

function answerOutcome(answer: { isError?: boolean; content?: unknown; structuredContent?: unknown; toolResult?: unknown }): ToolOutcome {
  // Servers on the 2024-10-07 protocol answer with `toolResult`.
  if (answer.content === undefined && "toolResult" in answer) return succeeded(answer.toolResult);
  const content = Array.isArray(answer.content) ? (answer.content as McpContent[]) : [];
  const text = content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
  if (answer.isError) return failed(text || "The MCP tool reported an error");
  if (answer.structuredContent !== undefined) return succeeded(answer.structuredContent);
  if (content.length > 0 && content.every((part) => part.type === "text")) return succeeded({ text });
  return succeeded({ content });
}
