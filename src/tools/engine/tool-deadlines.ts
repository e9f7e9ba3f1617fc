/**
 * The deadlines the tool engine keeps in its agent's alarm table: a sync
 * wait's backstop, a pending call's expiry, a webhook's next attempt. The
 * agent object's deadline union is made of these and its own.
 */
import { z } from "zod";

const toolCall = z.object({ toolCallId: z.string() });

export const ToolTimeoutDeadline = z.object({ id: z.string(), kind: z.literal("tool_timeout"), dueAt: z.number(), payload: toolCall });
export const CallExpiryDeadline = z.object({ id: z.string(), kind: z.literal("call_expiry"), dueAt: z.number(), payload: toolCall });
export const WebhookDeadline = z.object({
  id: z.string(),
  kind: z.literal("webhook"),
  dueAt: z.number(),
  payload: z.object({ toolCallId: z.string(), url: z.string(), body: z.string(), attempt: z.number().int() }),
});

export type ToolDeadline = z.infer<typeof ToolTimeoutDeadline> | z.infer<typeof CallExpiryDeadline> | z.infer<typeof WebhookDeadline>;
export type WebhookDeadline = z.infer<typeof WebhookDeadline>;

/** Where the engine keeps its deadlines (the agent object's table). */
export type DeadlineStore = { setDeadline(deadline: ToolDeadline): void; deleteDeadline(id: string): void };
