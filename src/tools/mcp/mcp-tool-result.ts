/**
 * Turns an MCP `tools/call` answer into the value the model gets (a failing
 * tool is `{error}` data). An answer nested deeper than the gateway accepts
 * anywhere becomes an error too, so it never reaches storage or comparison.
 */
import { checkJsonDepth } from "../../json";

type McpContent = { type: string; text?: string; [key: string]: unknown };

export function mcpToolResult(answer: { isError?: boolean; content?: unknown; structuredContent?: unknown; toolResult?: unknown }): unknown {
  const value = answerValue(answer);
  const depth = checkJsonDepth(value);
  return depth.ok ? value : { error: `The MCP tool's answer was refused: ${depth.message}` };
}

function answerValue(answer: { isError?: boolean; content?: unknown; structuredContent?: unknown; toolResult?: unknown }): unknown {
  // Servers on the 2024-10-07 protocol answer with `toolResult`.
  if (answer.content === undefined && "toolResult" in answer) return answer.toolResult;
  const content = Array.isArray(answer.content) ? (answer.content as McpContent[]) : [];
  const text = content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
  if (answer.isError) return { error: text || "The MCP tool reported an error" };
  if (answer.structuredContent !== undefined) return answer.structuredContent;
  if (content.length > 0 && content.every((part) => part.type === "text")) return { text };
  return { content };
}
