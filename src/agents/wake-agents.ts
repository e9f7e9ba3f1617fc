/**
 * The wake rules of §7. A person's (or service's) message wakes every agent
 * member of the space; an agent's message wakes only the agents it mentions;
 * nobody wakes themselves. Delivery is awaited: when this returns, the event
 * is durable in every target's inbox.
 */
import type { Database } from "../db/client";
import { listAgentMembers } from "../db/spaces";
import type { AppEnv } from "../env";
import type { Message } from "../protocol/message";
import { agentStub } from "./agent-stub";
import type { InboxEvent } from "./inbox-event";

export type Speaker = { entityId: string; name?: string; type?: "human" | "agent" | "service" };

function spaceMessageEvent(message: Message, speaker: Speaker, spaceName: string | undefined, hop: number): InboxEvent {
  return {
    type: "space_message",
    spaceId: message.spaceId,
    ...(spaceName !== undefined && { spaceName }),
    messageId: message.id,
    seq: message.seq,
    entityId: message.entityId,
    ...(speaker.name !== undefined && { entityName: speaker.name }),
    text: message.text ?? "",
    ...(message.mentions?.length ? { mentions: message.mentions } : {}),
    ...(hop > 0 && { hop }),
  };
}

async function deliver(env: AppEnv, targets: { agentId: string }[], event: InboxEvent, eventId: string, origin?: string): Promise<void> {
  await Promise.all(targets.map((target) => agentStub(env, target.agentId).deliver(event, eventId, origin)));
}

/** After a message is posted: wake the agents the rules say. */
export async function wakeAgentsForMessage(
  env: AppEnv,
  database: Database,
  input: { message: Message; speaker: Speaker; spaceName?: string; agentMembers?: { agentId: string; entityId: string }[]; hop?: number; origin?: string },
): Promise<void> {
  const { message, speaker } = input;
  const mentions = new Set(message.mentions ?? []);
  if (speaker.type === "agent" && mentions.size === 0) return;
  const agents = input.agentMembers ?? (await listAgentMembers(database, message.spaceId));
  const targets = agents.filter(
    (agent) => agent.entityId !== speaker.entityId && (speaker.type !== "agent" || mentions.has(agent.entityId)),
  );
  if (targets.length === 0) return;
  // The message id makes redelivery idempotent: an inbox ignores an event id it already holds.
  await deliver(env, targets, spaceMessageEvent(message, speaker, input.spaceName, input.hop ?? 0), `evt_${message.id}`, input.origin);
}

/** An agent's `send_message` with mentions (its events are one hop further than the cycle that sent it). */
export async function wakeMentionedAgents(
  env: AppEnv,
  database: Database,
  input: { message: Message; speaker: { entityId: string; name: string }; spaceName?: string; hop: number },
): Promise<void> {
  await wakeAgentsForMessage(env, database, { ...input, speaker: { ...input.speaker, type: "agent" } });
}
