/**
 * The consciousness: an agent's model messages across cycles, kept in its
 * object's storage and trimmed to a token budget. Trimming drops whole cycles
 * from the oldest end (a cycle starts at a user message), so a tool call is
 * never separated from its result.
 */
import type { ModelMessage, ToolResultPart } from "ai";

/** Roughly four characters a token. */
export function estimateTokens(messages: ModelMessage[]): number {
  return Math.ceil(JSON.stringify(messages).length / 4);
}

/** Splits messages into cycles, each starting at a user message. */
function cycles(messages: ModelMessage[]): ModelMessage[][] {
  const groups: ModelMessage[][] = [];
  for (const message of messages) {
    if (message.role === "user" || groups.length === 0) groups.push([message]);
    else groups[groups.length - 1].push(message);
  }
  return groups;
}

/**
 * Keeps the newest cycles that fit in `budgetTokens`. The newest cycle is
 * always kept whole, even when it alone is over the budget.
 */
export function trimConsciousness(messages: ModelMessage[], budgetTokens: number): ModelMessage[] {
  const groups = cycles(messages);
  const kept: ModelMessage[][] = [];
  let total = 0;
  for (let index = groups.length - 1; index >= 0; index -= 1) {
    const size = estimateTokens(groups[index]);
    if (kept.length > 0 && total + size > budgetTokens) break;
    kept.unshift(groups[index]);
    total += size;
  }
  return kept.flat();
}

/** Tool results bigger than this are shortened in the consciousness (the model saw them whole in their cycle). */
export const maxRememberedResultChars = 16_000;

/**
 * Shortens large tool results before they are stored, so one cycle full of big
 * answers cannot outgrow the object's storage or crowd out every older cycle.
 */
export function compactToolResults(messages: ModelMessage[], maxChars = maxRememberedResultChars): ModelMessage[] {
  return messages.map((message) => {
    if (message.role !== "tool") return message;
    return {
      ...message,
      content: message.content.map((original) => {
        if (original.type !== "tool-result") return original;
        // Media the model saw in its cycle is remembered as a note, never as base64 text.
        const part = original.output.type === "content" ? { ...original, output: { ...original.output, value: original.output.value.map(describeMedia) } } : original;
        const text = JSON.stringify(part.output);
        if (text.length <= maxChars) return part;
        return {
          ...part,
          output: { type: "text" as const, value: `[${text.length} characters; shortened in memory] ${text.slice(0, maxChars)}…` },
        };
      }),
    };
  });
}

type ContentPart = Extract<ToolResultPart["output"], { type: "content" }>["value"][number];

function describeMedia(part: ContentPart): ContentPart {
  if (part.type === "text") return part;
  const mediaType = "mediaType" in part ? part.mediaType : "media";
  return { type: "text", text: `[${mediaType} shown to the model in its cycle; not kept in memory]` };
}
