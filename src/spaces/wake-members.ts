/**
 * The wake rules (docs/agents.md, "Wake rules"), applied where the members are
 * known: a person's (or service's) message wakes every agent member of the
 * space; an agent's message wakes only the agents it mentions; nobody wakes
 * themselves. Delivery is awaited: when this returns, the event is durable in
 * every target's inbox (idempotent by the message id: a redelivery is ignored).
 */
import type { AppEnv } from "../env";
import type { AgentInboxPort, SpaceMessageInboxEvent } from "../protocol/agent-inbox-port";
import type { Message } from "../protocol/message";

export type Speaker = { entityId: string; name?: string; type?: "human" | "agent" | "service" };

export function agentInbox(env: AppEnv, agentId: string): AgentInboxPort {
  return env.AGENT.get(env.AGENT.idFromName(agentId)) as unknown as AgentInboxPort;
}

export function spaceMessageEvent(message: Message, speaker: Speaker, spaceName: string | undefined, hop: number, traceparent?: string): SpaceMessageInboxEvent {
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
    ...(traceparent !== undefined && { traceparent }),
  };
}

/** The agents a message wakes, among the space's agent members. */
export function wakeTargets(agentMembers: readonly { agentId: string; entityId: string }[], message: Message, speaker: Speaker): { agentId: string; entityId: string }[] {
  const mentions = new Set(message.mentions ?? []);
  if (speaker.type === "agent" && mentions.size === 0) return [];
  return agentMembers.filter((agent) => agent.entityId !== speaker.entityId && (speaker.type !== "agent" || mentions.has(agent.entityId)));
}

export async function deliverToAgents(env: AppEnv, targets: readonly { agentId: string }[], event: SpaceMessageInboxEvent, eventId: string, origin?: string): Promise<void> {
  await Promise.all(targets.map((target) => agentInbox(env, target.agentId).deliver(event, eventId, origin)));
}
