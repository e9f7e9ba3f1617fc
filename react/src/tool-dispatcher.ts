/**
 * Tool handlers in the browser: cards in the open spaces that wait for this
 * person (`requires_action`, and `answeredBy` lets them) are handed to the
 * handler registered for their tool. Each call runs once, through the SDK's
 * `ToolRunner` (what `handleTools` uses on a server): what the handler
 * returns is posted as the result; a throw or a timeout is posted as the
 * call's error, so the card shows it and the agent reads a tool error.
 */
import { type Switchboard, type ToolHandler, type ToolOutcome, ToolRunner } from "@switchboard/client";
import { answerPermission } from "./answer-permission.js";
import type { MeEntry } from "./me-entry.js";
import type { SpaceEntry } from "./space-entry.js";

export type ToolHandlerRegistration = {
  /** The tool whose cards this handler answers. */
  name: string;
  /** Only cards in this space (default: every space the page has open). */
  spaceId?: string;
  handler: ToolHandler;
  /** How long the handler may take before its call is answered with a timeout error. Default 30 s. */
  timeoutMs?: number;
  onOutcome?: (outcome: ToolOutcome) => void;
};

type Handling = { registration: ToolHandlerRegistration; runner: ToolRunner };

export class ToolDispatcher {
  #handlings: Handling[] = [];
  /** Calls handed to a handler already: a card is taken once, whichever handler took it and whatever came of it. */
  #taken = new Set<string>();

  constructor(
    private readonly client: Switchboard,
    private readonly me: MeEntry,
  ) {}

  /** Adds a handler (the newest one for a tool takes its cards); returns the function that removes it. */
  register(registration: ToolHandlerRegistration): () => void {
    const runner = new ToolRunner(
      { [registration.name]: registration.handler },
      (runId, callId, answer) => ("error" in answer ? this.client.submitToolError(runId, callId, answer.error) : this.client.submitToolResult(runId, callId, answer.result)),
      { timeoutMs: registration.timeoutMs, onOutcome: registration.onOutcome },
    );
    const handling = { registration, runner };
    this.#handlings.push(handling);
    return () => {
      this.#handlings = this.#handlings.filter((candidate) => candidate !== handling);
      // Stops taking calls; one already running still gets its answer posted.
      void runner.close();
    };
  }

  /** Hands the space's waiting cards that a handler takes and this person may answer to that handler. */
  async dispatch(space: SpaceEntry): Promise<void> {
    if (this.#handlings.length === 0 || !space.live) return;
    const me = this.me.getSnapshot().me ?? (await this.me.read());
    if (!me) return;
    for (const { message, part } of space.state.pendingCalls) {
      // An approval is a decision about another tool's call, not a call a handler can answer.
      if (part.kind === "approval" || this.#taken.has(part.toolCallId)) continue;
      const handling = this.#handlings.findLast(({ registration }) => registration.name === part.toolName && (registration.spaceId ?? space.spaceId) === space.spaceId);
      if (!handling || !answerPermission(part, me.entity.id, space.members).ok) continue;
      const runId = space.state.runOf(part.toolCallId);
      if (!runId) continue;
      this.#taken.add(part.toolCallId);
      const call = {
        runId,
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        executionType: "space" as const,
        args: part.args,
        status: "pending" as const,
        spaceId: space.spaceId,
        messageId: message.id,
        resultUrl: `/api/runs/${runId}/tool-results`,
      };
      // In a browser the call's `agentId` is the agent's entity id: the card's author.
      void handling.runner.run(call, message.entityId);
    }
  }
}
