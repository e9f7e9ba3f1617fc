/**
 * Gateway ids for the model's tool calls. A model's own call id is not unique
 * (providers reuse them across runs and agents), so every call gets a
 * gateway-generated `call_…` id the moment the cycle first hears of it; the
 * model's id is kept beside it. Records derived from a call (its space card,
 * a `send_message` reply) take their ids from it, so doing the call again
 * after a restart finds the same records instead of making new ones.
 */
import { createId } from "../../ids";

export class CallIds {
  readonly #byModelId = new Map<string, string>();
  readonly #modelIds = new Map<string, string>();

  constructor(known: { toolCallId: string; modelToolCallId: string }[] = []) {
    for (const call of known) this.#remember(call.modelToolCallId, call.toolCallId);
  }

  /** The gateway id of a model call id (made on first use). */
  idFor(modelToolCallId: string): string {
    let id = this.#byModelId.get(modelToolCallId);
    if (!id) {
      id = createId("call");
      this.#remember(modelToolCallId, id);
    }
    return id;
  }

  /**
   * Names a call the cycle makes itself (a call inside `batch`) with an id
   * derived from its parent's, so doing the parent again finds the same ids.
   */
  derive(modelToolCallId: string, toolCallId: string): string {
    const known = this.#byModelId.get(modelToolCallId);
    if (known) return known;
    this.#remember(modelToolCallId, toolCallId);
    return toolCallId;
  }

  modelIdOf(toolCallId: string): string | undefined {
    return this.#modelIds.get(toolCallId);
  }

  #remember(modelToolCallId: string, toolCallId: string): void {
    this.#byModelId.set(modelToolCallId, toolCallId);
    this.#modelIds.set(toolCallId, modelToolCallId);
  }
}

/** The id of the message a call posts (its card, or a `send_message` reply): derived, so a retried post finds it. */
export function messageIdForCall(toolCallId: string): string {
  return `msg_${toolCallId.replace(/^call_/, "")}`;
}
