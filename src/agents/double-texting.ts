/**
 * Double texting: what happens to messages that arrive while an agent is
 * busy, or in a burst. Pure decisions over the inbox, tested on their own:
 *
 * | strategy | the next cycle |
 * |---|---|
 * | `queue` (default) | takes every event queued meanwhile, each as it came |
 * | `latest` | takes only the newest message of each space; older ones are dropped (noted on the run) |
 * | `merge` | takes every event, consecutive messages of one speaker in one space shown as one |
 * | `{debounceMs}` | starts once no event has arrived for `debounceMs` (at most 10× that after the first) |
 * | `interrupt` | a new message ends the running cycle at its next step; the next one starts over with everything |
 */
import type { AgentConfig } from "./agent-config";
import type { QueuedEvent } from "./inbox-event";

export type DoubleTexting = AgentConfig["loop"]["doubleTexting"];

/** When a debounced cycle may start, or undefined when it may start now. */
export function debounceUntil(strategy: DoubleTexting, ready: QueuedEvent[], now: number): number | undefined {
  if (typeof strategy !== "object" || ready.length === 0) return undefined;
  const arrivals = ready.map((queued) => Date.parse(queued.receivedAt));
  const quiet = Math.max(...arrivals) + strategy.debounceMs;
  const cap = Math.min(...arrivals) + strategy.debounceMs * 10;
  const at = Math.min(quiet, cap);
  return at > now ? at : undefined;
}

/** `latest`: the ids of space messages a newer message of the same space supersedes. */
export function supersededEvents(strategy: DoubleTexting, events: QueuedEvent[]): QueuedEvent[] {
  if (strategy !== "latest") return [];
  const newest = new Map<string, string>();
  for (const queued of events) if (queued.event.type === "space_message") newest.set(queued.event.spaceId, queued.id);
  return events.filter((queued) => queued.event.type === "space_message" && newest.get(queued.event.spaceId) !== queued.id);
}

/** The events as the model sees them: `merge` joins consecutive messages of one speaker in one space. */
export function presentEvents(strategy: DoubleTexting, events: QueuedEvent[]): QueuedEvent[] {
  if (strategy !== "merge") return events;
  const merged: QueuedEvent[] = [];
  for (const queued of events) {
    const previous = merged[merged.length - 1];
    if (
      previous?.event.type === "space_message" &&
      queued.event.type === "space_message" &&
      previous.event.spaceId === queued.event.spaceId &&
      previous.event.entityId === queued.event.entityId
    ) {
      merged[merged.length - 1] = { ...queued, event: { ...queued.event, text: `${previous.event.text}\n${queued.event.text}` } };
    } else merged.push(queued);
  }
  return merged;
}

/** `interrupt`: whether events that arrived during the cycle end it at this step boundary. */
export function interrupts(strategy: DoubleTexting, ready: QueuedEvent[]): boolean {
  return strategy === "interrupt" && ready.some((queued) => queued.event.type === "space_message");
}
