/**
 * `inherit` on a sub-agent tool (an `agent` tool's `execution`, an `agents`
 * provider): the parts of the caller's config its tasks carry, so the run
 * that works on a task uses them instead of the sub-agent's own. Only these
 * parts, named one by one: the sub-agent keeps who it is, its tools, its
 * instructions and its loop, and no secret travels (a model names the Worker
 * secret of its key; the sub-agent reads it from the same env).
 */
import { z } from "@hono/zod-openapi";

export const inheritableParts = ["model", "limits"] as const;
export type InheritablePart = (typeof inheritableParts)[number];

export const SubagentInherit = z
  .array(z.enum(inheritableParts))
  .max(inheritableParts.length)
  .refine((parts) => new Set(parts).size === parts.length, "Name each part once")
  .openapi({
    description: 'The caller\'s config parts a task carries: "model" (provider, model, sampling settings) and "limits"; the sub-agent\'s run on it uses them instead of its own',
  });
