/**
 * What a `SwitchboardProvider` holds for the components under it: the
 * client, one shared connection per open space, who the client acts as, and
 * the tool handlers.
 */
import type { Switchboard } from "@switchboard/client";
import { MeEntry } from "./me-entry.js";
import { SpaceEntry, type SpaceOptions } from "./space-entry.js";
import { ToolDispatcher, type ToolHandlerRegistration } from "./tool-dispatcher.js";

export class SwitchboardStore {
  readonly me: MeEntry;
  readonly #tools: ToolDispatcher;
  readonly #spaces = new Map<string, SpaceEntry>();

  constructor(readonly client: Switchboard) {
    this.me = new MeEntry(client);
    this.#tools = new ToolDispatcher(client, this.me);
  }

  /** The space's entry (made at the first ask, with that ask's options; opened by whoever subscribes to it). */
  space(spaceId: string, options: SpaceOptions = {}): SpaceEntry {
    let entry = this.#spaces.get(spaceId);
    if (!entry) {
      entry = new SpaceEntry(this.client, spaceId, options, (changed) => void this.#tools.dispatch(changed));
      this.#spaces.set(spaceId, entry);
    }
    return entry;
  }

  /** The run a card belongs to (needed to answer it), from whichever space shows it. */
  runOf(toolCallId: string): string | undefined {
    for (const entry of this.#spaces.values()) {
      const runId = entry.state.runOf(toolCallId);
      if (runId) return runId;
    }
    return undefined;
  }

  /** Adds a tool handler and hands it the cards already waiting; returns the function that removes it. */
  registerToolHandler(registration: ToolHandlerRegistration): () => void {
    const remove = this.#tools.register(registration);
    for (const entry of this.#spaces.values()) void this.#tools.dispatch(entry);
    return remove;
  }
}
