/**
 * A call's `answeredBy` policy as its card says it (`ToolCallPart.answeredBy`),
 * so a UI can offer the answer only to those the gateway will take it from
 * (`api/who-may-answer.ts` decides; this only describes the same rule). Any
 * member of the space — the default — needs no description.
 */
import type { CardAnsweredBy } from "../../protocol/message";
import { AnsweredBy } from "../config/wait-policy-config";

export function answeredByOnCard(policy: unknown, initiatorEntityId: string | null | undefined): { answeredBy?: CardAnsweredBy } {
  const parsed = AnsweredBy.safeParse(policy ?? "members");
  if (!parsed.success || parsed.data === "members") return {};
  if (parsed.data === "initiator") return { answeredBy: { kind: "initiator", ...(initiatorEntityId && { entityId: initiatorEntityId }) } };
  if ("entities" in parsed.data) return { answeredBy: { kind: "entities", entityIds: parsed.data.entities } };
  return { answeredBy: { kind: "roles", roles: parsed.data.roles } };
}
