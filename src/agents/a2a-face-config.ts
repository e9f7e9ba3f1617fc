/**
 * `a2a` in the agent config: whether the agent answers the Agent2Agent
 * protocol at `/a2a/agents/:agentId` (off unless enabled), who besides the
 * secret key may talk to it there, and what its Agent Card says of it.
 */
import { z } from "@hono/zod-openapi";

const SkillText = z.string().trim().min(1);

export const A2aSkillConfig = z
  .object({
    id: z.string().regex(/^[a-zA-Z0-9_.-]{1,64}$/, "Letters, digits, '_', '-' and '.', at most 64"),
    name: SkillText.max(100),
    description: SkillText.max(2000),
    tags: z.array(SkillText.max(50)).max(20).default([]),
    examples: z.array(SkillText.max(500)).max(10).optional(),
  })
  .strict();
export type A2aSkillConfig = z.infer<typeof A2aSkillConfig>;

export const A2aFaceConfig = z
  .object({
    enabled: z.boolean(),
    /**
     * People (by entity id) who may start a conversation with their own JWT, or "anyone" with a valid
     * token. The secret key always may; a person continues only conversations whose space they are in.
     */
    people: z.union([z.literal("anyone"), z.array(z.string().min(1).max(100)).max(1000)]).default([]),
    /** The card's skills; without them the card has one skill made from the agent's description and tools. */
    skills: z.array(A2aSkillConfig).min(1).max(32).optional(),
    /** The card's `version` of this agent (not the protocol's). */
    version: z.string().trim().min(1).max(40).default("1.0.0"),
  })
  .strict()
  .openapi({ description: "The Agent2Agent (A2A) face of this agent: off unless `enabled`; docs/a2a.md" });
export type A2aFaceConfig = z.infer<typeof A2aFaceConfig>;
