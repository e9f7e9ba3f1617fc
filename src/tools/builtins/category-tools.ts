/**
 * `list_by_category` (group `categories`): the catalogue's `listByCategory`
 * as a tool. It lists the tools this cycle offers (built-ins, the agent's own
 * tools, MCP and other providers' tools, aliases), each with its category,
 * those of one category when asked, and counts every category.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import { type ToolCategory, toolCategories } from "../config/tool-categories";
import type { CycleAccess } from "../engine/tool-context";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";

const ListByCategoryInput = z
  .object({
    category: z
      .string()
      .max(40)
      .optional()
      .describe(`One of ${toolCategories.join(", ")}; leave it out for every tool`),
  })
  .strict();

const isCategory = (value: string): value is ToolCategory => (toolCategories as readonly string[]).includes(value);

export function createCategoryTools(context: Pick<CycleAccess, "listTools">) {
  return {
    list_by_category: tool({
      description: "List the tools you have, each with its category (system, file, network, data, memory, code, mcp, custom), or only those of one category.",
      inputSchema: zodSchema(ListByCategoryInput),
      execute: async ({ category }): Promise<ToolOutcome> => {
        if (category !== undefined && !isCategory(category)) return failed(`Unknown category "${category}": the categories are ${toolCategories.join(", ")}`, "validation");
        const all = context.listTools?.() ?? [];
        const byCategory: Partial<Record<ToolCategory, number>> = {};
        for (const entry of all) byCategory[entry.category] = (byCategory[entry.category] ?? 0) + 1;
        const tools = category === undefined ? all : all.filter((entry) => entry.category === category);
        return succeeded({ ...(category !== undefined && { category }), tools, byCategory });
      },
    }),
  };
}
