/**
 * Whether the signed-in person may answer a card, read from the card's
 * `answeredBy` (listed people, members with a role, or the person whose
 * message started the run; none: any member) and the person's role in the
 * space. The gateway decides every answer again (403 with a reason): this
 * only keeps the page from offering buttons it would refuse, and says who may.
 */
import type { SpaceMember, ToolCallPart } from "../../client/src/index";

export type Viewer = { entityId: string; members: Map<string, SpaceMember> };

/** `who`: the people who may, as the start of a sentence ("Only Boss"). */
export type AnswerPermission = { ok: true } | { ok: false; who: string };

export function answerPermission(part: ToolCallPart, viewer: Viewer): AnswerPermission {
  const policy = part.answeredBy;
  if (!policy) return { ok: true };
  const nameOf = (entityId: string) => viewer.members.get(entityId)?.name ?? entityId;
  switch (policy.kind) {
    case "entities":
      return policy.entityIds.includes(viewer.entityId) ? { ok: true } : { ok: false, who: `Only ${listed(policy.entityIds.map(nameOf))}` };
    case "roles": {
      const role = viewer.members.get(viewer.entityId)?.role;
      const roles = listed(policy.roles);
      return role && policy.roles.includes(role) ? { ok: true } : { ok: false, who: `Only members with the role ${roles}` };
    }
    case "initiator":
      if (policy.entityId === viewer.entityId) return { ok: true };
      return {
        ok: false,
        who: policy.entityId ? `Only ${nameOf(policy.entityId)} (whose message started this run)` : "Only a server with the secret key (no person's message started this run)",
      };
  }
}

/** Whom a waiting card waits for, as the status line says it: "you" when the viewer may answer, else who may ("Ada or Bob"). */
export function waitingFor(part: ToolCallPart, viewer: Viewer): string {
  const policy = part.answeredBy;
  if (!policy || answerPermission(part, viewer).ok) return "you";
  const nameOf = (entityId: string) => viewer.members.get(entityId)?.name ?? entityId;
  switch (policy.kind) {
    case "entities":
      return listed(policy.entityIds.map(nameOf));
    case "roles":
      return `a member with the role ${listed(policy.roles)}`;
    case "initiator":
      return policy.entityId ? nameOf(policy.entityId) : "a server with the secret key";
  }
}

function listed(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}
