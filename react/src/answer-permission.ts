/**
 * Whether the signed-in person may answer a card: read from the card's
 * `answeredBy` (listed people, members with a role, or the person whose
 * message started the run; none: any member) and the person's role in the
 * space. The gateway decides every answer again (a 403 says why): this only
 * keeps a page from offering, or a tool handler from taking, what would be
 * refused.
 */
import type { SpaceMember, ToolCallPart } from "@switchboard/client";

/** `ok`, or who may answer instead, as the start of a sentence ("Only Ada", "Only members with the role approver"). */
export type AnswerPermission = { ok: true } | { ok: false; who: string };

export function answerPermission(call: ToolCallPart, myEntityId: string | undefined, members: readonly SpaceMember[]): AnswerPermission {
  const policy = call.answeredBy;
  if (!policy) return myEntityId === undefined ? { ok: false, who: "Only a member of the space" } : { ok: true };
  const nameOf = (entityId: string) => members.find((member) => member.id === entityId)?.name ?? entityId;
  switch (policy.kind) {
    case "entities":
      return myEntityId !== undefined && policy.entityIds.includes(myEntityId) ? { ok: true } : { ok: false, who: `Only ${listed(policy.entityIds.map(nameOf))}` };
    case "roles": {
      const role = members.find((member) => member.id === myEntityId)?.role;
      return role !== undefined && policy.roles.includes(role) ? { ok: true } : { ok: false, who: `Only members with the role ${listed(policy.roles)}` };
    }
    case "initiator":
      if (policy.entityId !== undefined && policy.entityId === myEntityId) return { ok: true };
      return {
        ok: false,
        who: policy.entityId ? `Only ${nameOf(policy.entityId)} (whose message started this run)` : "Only a server with the secret key (no person's message started this run)",
      };
  }
}

/** Whether a card waits for an answer now: `requires_action`, and stored (not a draft whose arguments still stream). */
export function waitsForAnswer(call: ToolCallPart, draft: boolean | undefined): boolean {
  return call.status === "requires_action" && draft !== true;
}

function listed(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}
