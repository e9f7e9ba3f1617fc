/**
 * How a call that waits on a person or a service behaves (its tool's config and
 * the agent's `approvals`): who may answer it, what happens when nobody does in
 * time, when to remind, where to escalate; and approvals, which put any tool's
 * call behind a person's yes.
 */
import { z } from "@hono/zod-openapi";
import { JsonSchemaObject } from "./json-schema-object";

const entityId = z.string().min(1).max(100);
const role = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, "Roles are lowercase words such as approver or admin");

/** Who may answer: any member of the card's space (default), listed entities, members with a role, or the person whose message started the run. */
export const AnsweredBy = z
  .union([
    z.literal("members"),
    z.literal("initiator"),
    z.object({ entities: z.array(entityId).min(1).max(100) }).strict(),
    z.object({ roles: z.array(role).min(1).max(20) }).strict(),
  ])
  .openapi("AnsweredBy");
export type AnsweredBy = z.infer<typeof AnsweredBy>;

/** Where an unanswered card goes next: another space the agent belongs to, and people to mention there. */
export const Escalation = z
  .object({ spaceId: entityId.optional(), mentions: z.array(entityId).min(1).max(50).optional() })
  .strict()
  .refine((escalation) => escalation.spaceId !== undefined || escalation.mentions !== undefined, { message: "Give spaceId, mentions or both" });
export type Escalation = z.infer<typeof Escalation>;

export const OnTimeout = z.enum(["error", "deny", "approve", "escalate"]);
export type OnTimeout = z.infer<typeof OnTimeout>;

/** Before the deadline: milliseconds ahead of it at which the card is brought up again. */
const Reminders = z
  .array(
    z
      .number()
      .int()
      .min(1_000)
      .max(14 * 24 * 3600 * 1000),
  )
  .min(1)
  .max(5);

export const WaitPolicyFields = {
  onTimeout: OnTimeout.optional(),
  escalateTo: Escalation.optional(),
  reminders: Reminders.optional(),
};

export const ApprovalConfig = z
  .object({
    /** Always, or only when the arguments match this JSON Schema. */
    required: z.union([z.literal(true), z.object({ when: JsonSchemaObject }).strict()]),
    /** How long the cycle waits for a decision (default `limits.toolTimeout`). */
    timeout: z
      .number()
      .int()
      .positive()
      .max(15 * 60 * 1000)
      .optional(),
    answeredBy: AnsweredBy.optional(),
    ...WaitPolicyFields,
  })
  .strict()
  .superRefine((approval, context) => {
    if (approval.onTimeout === "escalate" && !approval.escalateTo) context.addIssue({ code: "custom", path: ["escalateTo"], message: 'Required with onTimeout "escalate"' });
  })
  .openapi("ApprovalConfig");
export type ApprovalConfig = z.infer<typeof ApprovalConfig>;

/** The policy a wait runs under, once defaults are applied. */
export type WaitPolicy = { timeoutMs: number; onTimeout: OnTimeout; escalateTo?: Escalation; reminders?: number[] };
