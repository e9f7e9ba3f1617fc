/**
 * The one rule for a message's mentions, applied by the space object to
 * people's messages (`POST …/messages`) and to agents' (`send_message`) alike:
 * everyone mentioned must be a member of the space. A member agent may be
 * named by its agent id too; it is stored as its entity id. A refusal names
 * every mention that is not a member, and nothing is posted.
 */
import type { Member } from "./member-cache";

export type CheckedMentions = { ok: true; entityIds: string[] } | { ok: false; message: string };

export function checkMentions(mentions: readonly string[], byEntity: ReadonlyMap<string, Member>): CheckedMentions {
  const entityOfAgent = new Map<string, string>();
  for (const member of byEntity.values()) if (member.agentId) entityOfAgent.set(member.agentId, member.entityId);
  const entityIds: string[] = [];
  const strangers: string[] = [];
  for (const mention of mentions) {
    const entityId = byEntity.has(mention) ? mention : entityOfAgent.get(mention);
    if (entityId === undefined) strangers.push(mention);
    else if (!entityIds.includes(entityId)) entityIds.push(entityId);
  }
  if (strangers.length > 0) return { ok: false, message: `mentions: not members of this space: ${[...new Set(strangers)].join(", ")}` };
  return { ok: true, entityIds };
}
