/**
 * An agent's `send_message` with mentions wakes the agents it mentions,
 * one hop further than the cycle that sent it. People's messages are woken
 * from the space object itself (`spaces/wake-members.ts`), which knows the
 * members; here they are read from D1.
 */
import type { Database } from "../db/client";
import { listAgentMembers } from "../db/spaces";
import type { AppEnv } from "../env";
import type { Message } from "../protocol/message";
import { deliverToAgents, spaceMessageEvent, wakeTargets } from "../spaces/wake-members";

export async function wakeMentionedAgents(
  env: AppEnv,
  database: Database,
  input: { message: Message; speaker: { entityId: string; name: string }; spaceName?: string; hop: number },
): Promise<void> {
  const speaker = { ...input.speaker, type: "agent" as const };
  if (!input.message.mentions?.length) return;
  const targets = wakeTargets(await listAgentMembers(database, input.message.spaceId), input.message, speaker);
  if (targets.length === 0) return;
  await deliverToAgents(env, targets, spaceMessageEvent(input.message, speaker, input.spaceName, input.hop), `evt_${input.message.id}`);
}
