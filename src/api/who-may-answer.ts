/**
 * Who may answer a pending call or an approval with a token (the secret key
 * always may): a member of the space its card is in, narrowed by the call's
 * `answeredBy` — listed entities, members with a role, or the person whose
 * message started the run. A token that may not see the call at all gets
 * the same answer whether or not it exists.
 */
import { and, eq } from "drizzle-orm";
import { getDatabase } from "../db/client";
import { members } from "../db/schema";
import type { AppEnv } from "../env";
import { AnsweredBy, type PendingCall } from "../tools";
import type { EntityCaller, SecretCaller } from "./route-access";

export type AnswerPermission = { ok: true } | { ok: false; reason: string };

export async function mayAnswer(env: AppEnv, principal: SecretCaller | EntityCaller, call: PendingCall | undefined, callId: string): Promise<AnswerPermission> {
  if (principal.kind === "secret") return { ok: true };
  const hidden = { ok: false as const, reason: `This token may not answer tool call "${callId}"` };
  if (!call?.spaceId) return hidden;
  const membership = await getDatabase(env.DB)
    .select({ role: members.role })
    .from(members)
    .where(and(eq(members.spaceId, call.spaceId), eq(members.entityId, principal.entityId)))
    .get();
  if (!membership) return hidden;
  const policy = AnsweredBy.safeParse(call.answeredBy ?? "members");
  if (!policy.success || policy.data === "members") return { ok: true };
  if (policy.data === "initiator") {
    if (call.initiatorEntityId === undefined || call.initiatorEntityId === null) {
      return {
        ok: false,
        reason: "Only the person whose message started this run may answer this call, and no person's message started it: only the secret key or the call's callback URL can",
      };
    }
    return principal.entityId === call.initiatorEntityId ? { ok: true } : { ok: false, reason: "Only the person whose message started this run may answer this call" };
  }
  if ("entities" in policy.data) {
    return policy.data.entities.includes(principal.entityId) ? { ok: true } : { ok: false, reason: `Only ${policy.data.entities.join(", ")} may answer this call` };
  }
  return membership.role && policy.data.roles.includes(membership.role)
    ? { ok: true }
    : { ok: false, reason: `Only members with the role ${policy.data.roles.join(" or ")} may answer this call` };
}
