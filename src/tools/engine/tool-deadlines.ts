/**
 * The deadlines the tool engine keeps in its agent's alarm table: a sync
 * wait's backstop and a pending call's expiry. The agent object's deadline
 * union is made of these, a webhook's next attempt (`webhooks/webhook-deadline.ts`)
 * and its own.
 */
import { z } from "zod";

const toolCall = z.object({ toolCallId: z.string() });

export const ToolTimeoutDeadline = z.object({ id: z.string(), kind: z.literal("tool_timeout"), dueAt: z.number(), payload: toolCall });
export const CallExpiryDeadline = z.object({ id: z.string(), kind: z.literal("call_expiry"), dueAt: z.number(), payload: toolCall });
export type ToolDeadline = z.infer<typeof ToolTimeoutDeadline> | z.infer<typeof CallExpiryDeadline>;
