/**
 * What `useSpace` gives a component: a copy of a space's state at one moment.
 * The SDK's `SpaceState` changes its messages in place (a streamed delta is
 * appended to the draft it belongs to); React compares by identity, so every
 * change gets new message and part objects, and a memoised child sees it.
 */
import type { RunFailure, SpaceMember, SpaceState, StreamStatus, SwitchboardError, TimelineItem, TimelineMessage, ToolCallPart } from "@switchboard/client";
import { waitsForAnswer } from "./answer-permission.js";

/** A card waiting for an answer, with the message it is on. */
export type PendingCard = { message: TimelineMessage; call: ToolCallPart };

export type SpaceSnapshot = {
  spaceId: string;
  /** Messages (stored, and drafts while they stream) and failed runs, by seq. */
  timeline: readonly TimelineItem[];
  /** The timeline's messages alone. */
  messages: readonly TimelineMessage[];
  /** Cards in `requires_action`, oldest first (whoever they wait for). */
  pendingCards: readonly PendingCard[];
  /** Entity ids of the agents in a cycle now. */
  thinking: readonly string[];
  failures: readonly RunFailure[];
  /** The space's members (names, types, roles), read when the space opens and again when someone joins or leaves. */
  members: readonly SpaceMember[];
  /** The stream's connection: `connecting`, `open`, `reconnecting` (it resumes after `lastSeq` by itself), or `closed`. */
  status: StreamStatus;
  /** Why the stream ended (`status` is `closed`), or why the last connection failed while it reconnects. */
  error: SwitchboardError | undefined;
  /** The highest seq in the timeline: where the stream resumes. */
  lastSeq: number;
};

export function spaceSnapshot(state: SpaceState, connection: { status: StreamStatus; error: SwitchboardError | undefined; members: readonly SpaceMember[] }): SpaceSnapshot {
  const timeline = state.timeline.map(
    (item): TimelineItem => (item.kind === "message" ? { ...item, message: copyMessage(item.message) } : { ...item, failure: { ...item.failure } }),
  );
  const messages = timeline.flatMap((item) => (item.kind === "message" ? [item.message] : []));
  const pendingCards: PendingCard[] = [];
  for (const message of messages) {
    for (const part of message.parts ?? []) if (part.type === "tool_call" && waitsForAnswer(part, message.draft)) pendingCards.push({ message, call: part });
  }
  return {
    spaceId: state.spaceId,
    timeline,
    messages,
    pendingCards,
    thinking: [...state.thinking.keys()],
    failures: timeline.flatMap((item) => (item.kind === "run_failed" ? [item.failure] : [])),
    members: connection.members,
    status: connection.status,
    error: connection.error,
    lastSeq: state.lastSeq,
  };
}

/** A snapshot of a space that is not open (no space chosen yet). */
export function emptySnapshot(spaceId: string): SpaceSnapshot {
  return { spaceId, timeline: [], messages: [], pendingCards: [], thinking: [], failures: [], members: [], status: "closed", error: undefined, lastSeq: 0 };
}

function copyMessage(message: TimelineMessage): TimelineMessage {
  return message.parts ? { ...message, parts: message.parts.map((part) => ({ ...part })) } : { ...message };
}
