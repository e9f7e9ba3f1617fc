/**
 * `useToolHandler(name, handler)`: this browser answers the tool's cards by
 * itself. Every card of that tool in a space the page has open (`useSpace`),
 * waiting for the signed-in person (its `answeredBy` lets them; none: any
 * member), is handed to `handler(args, call)` once; what it returns is posted
 * as the result, and a throw or a timeout as the call's error (the card
 * shows it, the agent reads a tool error). The SDK's tool runner does the
 * work, as `handleTools` does on a server.
 *
 * The handler may change from render to render (the newest is called);
 * while two components register the same tool, the one that registered last
 * takes its cards.
 */
import type { ToolHandler, ToolOutcome } from "@switchboard/client";
import { useEffect, useRef, useState } from "react";
import { useSwitchboardStore } from "./switchboard-context.js";

export type ToolHandlerOptions = {
  /** Only cards in this space; the space is kept open while the handler is (default: every space the page has open). */
  spaceId?: string;
  /** How long the handler may take before its call is answered with a timeout error. Default 30 s. */
  timeoutMs?: number;
  /** Told about each call handled: answered, the handler failed (posted as an error), or the answer could not be posted. */
  onOutcome?: (outcome: ToolOutcome) => void;
};

export type ToolHandlerState = {
  /** The calls handled since the component mounted, oldest first. */
  outcomes: readonly ToolOutcome[];
};

export function useToolHandler(name: string, handler: ToolHandler, options: ToolHandlerOptions = {}): ToolHandlerState {
  const store = useSwitchboardStore("useToolHandler");
  const latest = useRef({ handler, onOutcome: options.onOutcome });
  latest.current = { handler, onOutcome: options.onOutcome };
  const [outcomes, setOutcomes] = useState<readonly ToolOutcome[]>([]);
  const { spaceId, timeoutMs } = options;
  // A space named here stays open while the handler is registered.
  useEffect(() => (spaceId ? store.space(spaceId).retain() : undefined), [store, spaceId]);
  useEffect(
    () =>
      store.registerToolHandler({
        name,
        spaceId,
        timeoutMs,
        handler: (args, call) => latest.current.handler(args, call),
        onOutcome: (outcome) => {
          setOutcomes((previous) => [...previous, outcome]);
          latest.current.onOutcome?.(outcome);
        },
      }),
    [store, name, spaceId, timeoutMs],
  );
  return { outcomes };
}
