/**
 * All built-in tools of a cycle. Built-ins take effect one at a time in the
 * order the model called them, so `enter_space` then `send_message` in one
 * parallel step behaves as written.
 */
import type { Tool, ToolSet } from "ai";
import type { ToolContext } from "../tool-context";
import { SerialQueue } from "../serial-queue";
import { createKnowledgeTools } from "./knowledge-tools";
import { createSpaceTools, selfOrderedTools } from "./space-tools";

export function createBuiltinTools(context: ToolContext, queue: SerialQueue): ToolSet {
  const tools: Record<string, Tool> = { ...createSpaceTools(context, queue), ...createKnowledgeTools(context) };
  for (const [name, definition] of Object.entries(tools)) {
    const execute = definition.execute;
    if (!execute || selfOrderedTools.has(name)) continue;
    tools[name] = { ...definition, execute: (input, options) => queue.run(() => execute(input, options)) } as Tool;
  }
  return tools;
}
