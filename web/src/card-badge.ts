/**
 * What a card's badge says, and its tone (the badge's and the card's colour):
 * one place that reads every state a card can be in. A call someone said no
 * to is `declined` (an approval denied, by a person or by its timeout; a
 * card a person declined), one that broke is `failed`, and neither is ever
 * drawn like a call that went well.
 */
import { decisionOf } from "./approval-card";
import type { ToolCardContext } from "./card-context";

export type BadgeTone = "running" | "waiting" | "complete" | "declined" | "failed" | "ended";
export type CardBadge = { text: string; tone: BadgeTone };

/** The text the page's Decline button sent before declines were reported as errors: such cards were declined too. */
export const legacyDeclineText = "Declined by the person asked";

export function cardBadge(context: ToolCardContext): CardBadge {
  const { part, message, permission } = context;
  if (message.draft) return { text: "streaming…", tone: "running" };
  switch (part.status) {
    case "running":
      return { text: "running", tone: "running" };
    case "requires_action":
      if (part.kind === "approval") return { text: "needs approval", tone: "waiting" };
      if (part.account) return permission.ok ? { text: "connect your account", tone: "waiting" } : { text: "waiting for an account", tone: "waiting" };
      return permission.ok ? { text: "waiting for you", tone: "waiting" } : { text: "waiting for an answer", tone: "waiting" };
    case "complete": {
      if (part.kind === "approval") {
        const decision = decisionOf(part.result);
        if (decision) return decision.approved ? { text: "approved", tone: "complete" } : { text: "declined", tone: "declined" };
        return { text: "complete", tone: "complete" };
      }
      const error = errorOf(part.result);
      if (error === undefined) return { text: "complete", tone: "complete" };
      return error === legacyDeclineText ? { text: "declined", tone: "declined" } : { text: "failed", tone: "failed" };
    }
    case "error":
      if (part.escalatedTo) return { text: "escalated", tone: "ended" };
      if (part.expiredAt) return { text: "expired", tone: "ended" };
      // A person who answers a card with an error says no; anything else that ends a call in error is a failure.
      return part.answerer !== undefined && declinesAsPerson(context, part.answerer) ? { text: "declined", tone: "declined" } : { text: "failed", tone: "failed" };
  }
}

/** A result's `error`, when it carries one (a tool that reports its failure in its result). */
export function errorOf(result: unknown): unknown {
  return typeof result === "object" && result !== null && "error" in result ? (result as { error: unknown }).error : undefined;
}

/** People decline; agents and services that answer with an error failed. Someone no longer in the space is taken for a person. */
function declinesAsPerson(context: ToolCardContext, entityId: string): boolean {
  const type = context.entityType(entityId);
  return type === undefined || type === "human";
}
