/**
 * One call of an engine tool (configured, MCP, OpenAPI, sub-agent), following
 * the decision flow of §6: validate → decide where it shows → the card →
 * the response cache and the tool's queue → run. Inline tools answer now and
 * their card is settled here; pending tools (external, space, sub-agents)
 * wait on a PendingToolCall whose owner settles the card. Returns a typed
 * outcome, never throws.
 */
import type { ToolContext } from "../tool-context";
import { stripTargetSpaceId } from "../display-tool-schema";
import { formatArgumentError, validateToolArguments } from "../validate-tool-arguments";
import { answeredByOnCard } from "./answered-by-on-card";
import { messageIdForCall } from "./call-ids";
import type { CallTrack } from "./engine-tools";
import { decideDisplay } from "./decide-display";
import type { MessagePart } from "../../protocol/message";
import type { InlineCall, ResolvedTool } from "./resolved-tool";
import { runWithPolicy } from "./run-with-policy";
import { cardPart, settleCard, type ToolCard, toolFinished, toolProgress, toolStarted } from "./tool-events";
import { failed, outcomeError, type ToolOutcome } from "./tool-outcome";

export type ToolCallInput = { toolCallId: string; modelToolCallId: string; input: unknown; abortSignal?: AbortSignal };

export async function executeToolCall(context: ToolContext, resolved: ResolvedTool, call: ToolCallInput, track: CallTrack): Promise<ToolOutcome> {
  const { display } = resolved;
  // Streamed events of this call reach the space before anything below.
  await context.inputSettled(call.modelToolCallId);
  const { args, targetSpaceId } = display.displayTool ? stripTargetSpaceId(call.input) : { args: call.input, targetSpaceId: undefined };
  const identity = { toolCallId: call.toolCallId, toolName: resolved.name, args };

  const decision = await decideDisplay(display, context, targetSpaceId);
  if (!decision.ok) {
    if (track.card) await failEarly(context, track.card, identity, decision.error);
    return failed(decision.error, "permission");
  }
  const card = decision.card;
  if (card && track.card?.spaceId !== card.spaceId) {
    toolStarted(context.spaceEvents, card, { toolCallId: call.toolCallId, toolName: resolved.name, agentEntityId: context.agent.entityId, runId: context.runId });
  }

  const validation = validateToolArguments(resolved.inputSchema, args);
  if (!validation.ok) {
    const error = formatArgumentError(resolved.name, validation.problems);
    if (card) await failEarly(context, card, identity, error);
    return failed(error, "validation");
  }

  let messageId: string | undefined;
  if (card) {
    const status = resolved.pending?.cardStatus ?? "running";
    const stub = context.spaceEvents.ordered(card.spaceId);
    // The card's id comes from the call: posting it again after a restart finds the same message.
    const message = await context.spaceEvents.track(
      stub.postMessage({
        id: messageIdForCall(call.toolCallId),
        entityId: context.agent.entityId,
        role: "tool",
        parts: [{ ...cardPart(card, { ...identity, runId: context.runId }, status), ...answeredByOnCard(resolved.pending?.answeredBy, context.initiatorEntityId) }],
        status,
      }),
    );
    messageId = message.id;
    context.journal.markCard(call.toolCallId, card.spaceId, card.minimal);
  }

  const placed = card && messageId ? { ...card, messageId } : undefined;
  const cardParts: MessagePart[] = [];
  const inline: InlineCall = {
    ...identity,
    modelToolCallId: call.modelToolCallId,
    abortSignal: call.abortSignal,
    card: placed,
    addCardParts: (parts) => cardParts.push(...parts),
    progress: (update) => {
      context.publish("tool.progress", { runId: context.runId, toolCallId: call.toolCallId, toolName: resolved.name, ...update });
      if (placed) toolProgress(context.spaceEvents, placed, call.toolCallId, args, update);
    },
  };
  const outcome = await runWithPolicy(context, resolved, inline);
  // A pending call's card belongs to the pending-call owner, which settles it when the result comes.
  if (placed && !resolved.pending) {
    const error = outcomeError(outcome);
    try {
      await settleCard(context.spaceEvents.ordered(placed.spaceId), placed, identity, error !== undefined ? { error } : { result: outcome.type === "ok" ? outcome.value : null }, cardParts);
    } catch (cardError) {
      // The call ran: its outcome goes to the model even if the card could not be updated.
      console.error("could not settle the tool card", call.toolCallId, cardError);
    }
  }
  return outcome;
}

/** A call that fails before it runs: the card that started streaming gets `tool.error`. */
async function failEarly(context: ToolContext, card: ToolCard, call: { toolCallId: string; toolName: string; args: unknown }, error: string): Promise<void> {
  await toolFinished(context.spaceEvents.ordered(card.spaceId), card, call, { error });
}
