/**
 * `useSpace(spaceId)`: a space live, as a person sees it. The timeline
 * (messages, an agent's text word by word as it streams, tool cards with
 * their status, failed runs), the members, which agents are thinking, the
 * connection, and `send(text)`.
 *
 * Built on the SDK's live space and shared through the provider: every
 * component that shows the same space uses one connection. It reconnects by
 * itself and resumes after the last seq it has; a component that goes away
 * and comes back (a remount) finds the timeline as it was and reads only
 * what it missed. `spaceId` may be undefined (nothing chosen yet): the
 * snapshot is then empty and closed.
 */
import type { Message } from "@switchboard/client";
import { useCallback, useMemo, useSyncExternalStore } from "react";
import type { SpaceOptions } from "./space-entry.js";
import { emptySnapshot, type SpaceSnapshot } from "./space-snapshot.js";
import { useSwitchboardStore } from "./switchboard-context.js";

export type SendOptions = {
  /** Entity ids to mention (a mentioned agent wakes). */
  mentions?: string[];
};

export type SpaceView = SpaceSnapshot & {
  /** Posts a message as the signed-in person; it shows in the timeline when the space's stream brings it. Rejects with a `SwitchboardError`. */
  send(text: string, options?: SendOptions): Promise<Message>;
};

const noSpace = { subscribe: () => () => undefined, getSnapshot: () => closedSnapshot };
const closedSnapshot = emptySnapshot("");

/** `options` apply when the space is first opened in this provider (`afterSeq`: where its first opening starts; `transport`, `reconnect`, `idleTimeoutMs`). */
export function useSpace(spaceId: string | null | undefined, options?: SpaceOptions): SpaceView {
  const store = useSwitchboardStore("useSpace");
  // The entry is looked up by id alone: options are read once, when the space is first asked for.
  // biome-ignore lint/correctness/useExhaustiveDependencies: options are read at the first ask only (see above)
  const entry = useMemo(() => (spaceId ? store.space(spaceId, options) : undefined), [store, spaceId]);
  const source = entry ?? noSpace;
  const snapshot = useSyncExternalStore(source.subscribe, source.getSnapshot, source.getSnapshot);
  const send = useCallback(
    async (text: string, sendOptions: SendOptions = {}): Promise<Message> => {
      if (!spaceId) throw new TypeError("useSpace: no space to send to (spaceId is not set)");
      return store.client.messages.send(spaceId, { text, ...(sendOptions.mentions && { mentions: sendOptions.mentions }) });
    },
    [store, spaceId],
  );
  return useMemo(() => ({ ...snapshot, send }), [snapshot, send]);
}
