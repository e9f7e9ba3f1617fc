/**
 * `router: {destinations}`: the agents this one may hand a conversation to
 * with `router__handoff-to`. A destination is an agent id, or
 * `{agentId, name?, description?}` (the model may name it by either).
 */
import { z } from "@hono/zod-openapi";

const agentId = z.string().min(1).max(64);

export const RouterDestination = z.union([
  agentId,
  z
    .object({
      agentId,
      name: z
        .string()
        .regex(/^[a-zA-Z0-9_-]{1,64}$/)
        .optional(),
      description: z.string().max(1_000).optional(),
    })
    .strict(),
]);

export const RouterConfig = z
  .object({ destinations: z.array(RouterDestination).min(1).max(32) })
  .strict()
  .openapi({ description: "Agents this one may hand a conversation to (router__handoff-to): agent ids, or {agentId, name?, description?}" });

export type RouterConfig = z.infer<typeof RouterConfig>;

export type Destination = { agentId: string; name?: string; description?: string };

export const destinationsOf = (router: RouterConfig): Destination[] => router.destinations.map((entry) => (typeof entry === "string" ? { agentId: entry } : entry));
