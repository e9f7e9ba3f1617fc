/**
 * `reflection` in the agent config (post-task reflection): after a
 * cycle that did real work, a short follow-up pass with only the notes tools
 * writes down what was learned. Off unless the config turns it on.
 */
import { z } from "@hono/zod-openapi";

export const ReflectionConfig = z
  .object({
    enabled: z.boolean().default(true),
    /** Model steps the reflection pass may take. */
    maxSteps: z.number().int().min(1).max(10).default(3),
    /** A cycle "did real work" with at least this many tool calls besides `skip`. */
    minToolCalls: z.number().int().min(1).max(100).default(1),
    /** Replaces the default instruction the pass is given. */
    instruction: z.string().min(1).max(4000).optional(),
  })
  .strict()
  .openapi("ReflectionConfig");

export type ReflectionConfig = z.infer<typeof ReflectionConfig>;
