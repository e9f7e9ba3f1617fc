/**
 * What a space object asks of an agent object: put a space message in its
 * inbox (the AgentDO's `deliver`), declared here so the space layer need not
 * import the agent layer. The event's id makes delivery idempotent.
 */
export type SpaceMessageInboxEvent = {
  type: "space_message";
  spaceId: string;
  spaceName?: string;
  messageId: string;
  seq: number;
  entityId: string;
  entityName?: string;
  text: string;
  mentions?: string[];
  hop?: number;
  traceparent?: string;
};

export type AgentInboxPort = {
  deliver(event: SpaceMessageInboxEvent, eventId?: string, origin?: string): Promise<{ eventId: string; ignored?: true }>;
};
