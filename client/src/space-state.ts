/**
 * The state of one space as a person sees it, built from its events: persisted
 * messages in seq order, an agent's streaming text merged into a draft message
 * until the persisted message replaces it, tool cards that move through
 * `running` / `requires_action` / `complete` / `error` with their streamed
 * arguments, which agents are thinking, and the runs that failed.
 *
 * Pure and synchronous: `apply` an event (in any order the stream gives them,
 * repeated or not) and read the result. The page, the CLI and `openSpace` share it.
 */
import type { Message, SpaceEvent, SpaceEventOf, ToolCallPart } from "./types.js";

/** A message of the timeline: persisted, or a draft still streaming. */
export type TimelineMessage = Message & {
  /** True while text or tool arguments are still streaming in. */
  draft?: boolean;
};

export type RunFailure = { runId: string; agentEntityId: string; error: string; seq: number; at: string };

export type TimelineItem = { kind: "message"; seq: number; message: TimelineMessage } | { kind: "run_failed"; seq: number; failure: RunFailure };

type Draft = TimelineMessage & { firstSeq: number };

export class SpaceState {
  readonly spaceId: string;
  #messages = new Map<string, TimelineMessage>();
  /** Text drafts by streamId (the id the persisted message will have). */
  #textDrafts = new Map<string, Draft>();
  /** Tool card drafts by toolCallId, before their card message exists. */
  #toolDrafts = new Map<string, Draft>();
  /** Which message holds a tool call's card. */
  #cardOf = new Map<string, string>();
  #failures = new Map<string, RunFailure>();
  /** The run of each tool call seen (a `minimal` card carries none; `tool.started` does). */
  #runOf = new Map<string, string>();
  /** Who joined (and did not leave) since the events began. */
  #members = new Set<string>();
  /** Agents in a cycle now: agentEntityId → runId. */
  #thinking = new Map<string, string>();
  #lastSeq = 0;

  constructor(spaceId: string) {
    this.spaceId = spaceId;
  }

  /** The highest seq applied (events or loaded messages). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Agents whose cycle has started and not finished: entity id → run id. */
  get thinking(): ReadonlyMap<string, string> {
    return this.#thinking;
  }

  /** Entity ids that joined and have not left, as far as the events applied say. */
  get memberIds(): ReadonlySet<string> {
    return this.#members;
  }

  get failures(): RunFailure[] {
    return [...this.#failures.values()].sort((a, b) => a.seq - b.seq);
  }

  /** Persisted messages and drafts, oldest first. */
  get messages(): TimelineMessage[] {
    return this.timeline.flatMap((item) => (item.kind === "message" ? [item.message] : []));
  }

  /** Messages, drafts and run failures in one list, by seq. */
  get timeline(): TimelineItem[] {
    const items: TimelineItem[] = [];
    for (const message of this.#messages.values()) items.push({ kind: "message", seq: message.seq, message });
    for (const draft of [...this.#textDrafts.values(), ...this.#toolDrafts.values()]) items.push({ kind: "message", seq: draft.firstSeq, message: draft });
    for (const failure of this.#failures.values()) items.push({ kind: "run_failed", seq: failure.seq, failure });
    return items.sort((a, b) => a.seq - b.seq);
  }

  /** The card part of a tool call, wherever it is (persisted or draft). */
  toolCall(toolCallId: string): ToolCallPart | undefined {
    const messageId = this.#cardOf.get(toolCallId);
    const message = messageId ? this.#messages.get(messageId) : this.#toolDrafts.get(toolCallId);
    return message?.parts?.find((part): part is ToolCallPart => part.type === "tool_call" && part.toolCallId === toolCallId);
  }

  /** The run a tool call belongs to (needed to answer it). */
  runOf(toolCallId: string): string | undefined {
    return this.toolCall(toolCallId)?.runId ?? this.#runOf.get(toolCallId);
  }

  /** Tool calls waiting for a person's answer. */
  get pendingCalls(): { message: TimelineMessage; part: ToolCallPart }[] {
    const pending: { message: TimelineMessage; part: ToolCallPart }[] = [];
    for (const message of this.#messages.values()) {
      for (const part of message.parts ?? []) if (part.type === "tool_call" && part.status === "requires_action") pending.push({ message, part });
    }
    return pending.sort((a, b) => a.message.seq - b.message.seq);
  }

  /** Adds messages read with `GET …/messages` (history older than the stream's replay). */
  loadMessages(messages: Message[]): void {
    for (const message of messages) this.#putMessage(message);
  }

  /** Applies one event; returns whether anything visible changed. */
  apply(event: SpaceEvent): boolean {
    this.#lastSeq = Math.max(this.#lastSeq, event.seq);
    switch (event.type) {
      case "space.message":
      case "space.message.updated":
        return this.#putMessage(event.data);
      case "space.message.streaming":
        return this.#streamText(event);
      case "tool.started":
        return this.#startTool(event);
      case "tool.streaming":
        return this.#streamTool(event);
      case "tool.done":
      case "tool.error":
        return this.#finishTool(event);
      case "space.member.joined":
        this.#members.add(event.data.entityId);
        return true;
      case "space.member.left":
        this.#members.delete(event.data.entityId);
        this.#thinking.delete(event.data.entityId);
        return true;
      case "agent.cycle.started":
        this.#thinking.set(event.data.agentEntityId, event.data.runId);
        return true;
      case "agent.cycle.finished": {
        if (this.#thinking.get(event.data.agentEntityId) === event.data.runId) this.#thinking.delete(event.data.agentEntityId);
        // A cycle that ended drops the drafts it never persisted (a failed send_message).
        for (const [id, draft] of this.#textDrafts) if (draft.entityId === event.data.agentEntityId) this.#textDrafts.delete(id);
        for (const [id, draft] of this.#toolDrafts) if (toolPart(draft.parts?.[0])?.runId === event.data.runId) this.#toolDrafts.delete(id);
        if (event.data.status === "failed") {
          this.#failures.set(event.data.runId, {
            runId: event.data.runId,
            agentEntityId: event.data.agentEntityId,
            error: event.data.error ?? "The run failed (no error message)",
            seq: event.seq,
            at: event.at,
          });
        }
        return true;
      }
      default:
        return false;
    }
  }

  #putMessage(message: Message): boolean {
    const current = this.#messages.get(message.id);
    // An update never goes back in time: keep the newer of two versions.
    if (current && (current.updatedAt ?? "") > (message.updatedAt ?? "") && current.status !== message.status) return false;
    this.#messages.set(message.id, message);
    this.#lastSeq = Math.max(this.#lastSeq, message.seq);
    this.#textDrafts.delete(message.id);
    for (const part of message.parts ?? []) {
      if (part.type !== "tool_call") continue;
      this.#cardOf.set(part.toolCallId, message.id);
      this.#toolDrafts.delete(part.toolCallId);
    }
    return true;
  }

  #streamText(event: SpaceEventOf<"space.message.streaming">): boolean {
    const { streamId, entityId, delta } = event.data;
    if (this.#messages.has(streamId)) return false; // already persisted: a late replay
    const draft = this.#textDrafts.get(streamId);
    if (draft) {
      draft.text = (draft.text ?? "") + delta;
      return true;
    }
    this.#textDrafts.set(streamId, {
      id: streamId,
      spaceId: this.spaceId,
      seq: event.seq,
      firstSeq: event.seq,
      entityId,
      role: "assistant",
      text: delta,
      status: "streaming",
      createdAt: event.at,
      draft: true,
    });
    return true;
  }

  #startTool(event: SpaceEventOf<"tool.started">): boolean {
    const { toolCallId, toolName, agentEntityId, runId } = event.data;
    this.#runOf.set(toolCallId, runId);
    if (this.#cardOf.has(toolCallId) || this.#toolDrafts.has(toolCallId)) return false;
    this.#toolDrafts.set(toolCallId, {
      id: `draft_${toolCallId}`,
      spaceId: this.spaceId,
      seq: event.seq,
      firstSeq: event.seq,
      entityId: agentEntityId,
      role: "tool",
      parts: [{ type: "tool_call", toolCallId, toolName, status: "running", runId }],
      status: "streaming",
      createdAt: event.at,
      draft: true,
    });
    return true;
  }

  #streamTool(event: SpaceEventOf<"tool.streaming">): boolean {
    const draft = this.#toolDrafts.get(event.data.toolCallId);
    const part = toolPart(draft?.parts?.[0]);
    if (!part || !("partialArgs" in event.data)) return false;
    part.args = event.data.partialArgs;
    return true;
  }

  #finishTool(event: SpaceEventOf<"tool.done"> | SpaceEventOf<"tool.error">): boolean {
    const { toolCallId } = event.data;
    const messageId = this.#cardOf.get(toolCallId);
    const message = messageId ? this.#messages.get(messageId) : this.#toolDrafts.get(toolCallId);
    if (!message?.parts) return false;
    const status = event.type === "tool.done" ? "complete" : "error";
    let changed = false;
    message.parts = message.parts.map((part) => {
      if (part.type !== "tool_call" || part.toolCallId !== toolCallId || part.status === status) return part;
      changed = true;
      const next: ToolCallPart = { ...part, status };
      if (event.type === "tool.done" && "result" in event.data) next.result = event.data.result;
      if (event.type === "tool.error" && "error" in event.data) next.result = { error: event.data.error };
      return next;
    });
    return changed;
  }
}

/** A message part, if it is a tool card (messages may also carry image parts). */
function toolPart(part: NonNullable<Message["parts"]>[number] | undefined): ToolCallPart | undefined {
  return part?.type === "tool_call" ? part : undefined;
}
