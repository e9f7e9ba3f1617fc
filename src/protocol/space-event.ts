/** The space event types (docs/api-reference.md, "Space events"), spelled exactly as clients read them. */
export const spaceEventTypes = [
  "space.message",
  "space.message.streaming",
  "space.message.updated",
  "space.member.joined",
  "space.member.left",
  "agent.cycle.started",
  "agent.cycle.finished",
  "tool.started",
  "tool.streaming",
  "tool.done",
  "tool.error",
] as const;

export type SpaceEventType = (typeof spaceEventTypes)[number];

/** An event to emit: its data, and optionally the redacted data public-key clients get. */
export type SpaceEventInput = { type: SpaceEventType; data: unknown; publicData?: unknown };
