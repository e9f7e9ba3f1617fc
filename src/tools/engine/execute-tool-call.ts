/**
 * One call of a configured tool, following the decision flow of §6:
 * validate → decide where it shows → internal / prebuilt / gateway answer
 * inline; external and space calls become PendingToolCalls (async: pending at
 * once; sync: wait up to `timeout`). Returns a typed outcome, never throws.
 */
import type { ToolContext } from "../tool-context";
import { stripTargetSpaceId } from "../display-tool-schema";
import { runGatewayTool } from "../gateway/execute-gateway-tool";
import { prebuiltTools } from "../prebuilt/prebuilt-registry";
import { formatArgumentError, validateToolArguments } from "../validate-tool-arguments";
import { capResult } from "./cap-result";
import { messageIdForCall } from "./call-ids";
import type { CallTrack, ResolvedTool } from "./configured-tools";
import { decideDisplay } from "./decide-display";
import { hopHeader } from "./hop";
import { runPendingCall } from "./run-pending-call";
import { cardPart, settleCard, type ToolCard, toolFinished, toolStarted } from "./tool-events";
import { failed, outcomeError, succeeded, type ToolOutcome } from "./tool-outcome";
import type { MessagePart } from "../../protocol/message";
import type { ToolConfig } from "../tool-config";
import { generateImageFile, imagePartFor } from "../images/generate-image-file";

export type ToolCallInput = { toolCallId: string; modelToolCallId: string; input: unknown; abortSignal?: AbortSignal };

export async function executeToolCall(context: ToolContext, resolved: ResolvedTool, call: ToolCallInput, track: CallTrack): Promise<ToolOutcome> {
  const { config } = resolved;
  // Streamed events of this call reach the space before anything below.
  await context.inputSettled(call.modelToolCallId);
  const { args, targetSpaceId } = config.displayTool ? stripTargetSpaceId(call.input) : { args: call.input, targetSpaceId: undefined };
  const identity = { toolCallId: call.toolCallId, toolName: config.name, args };

  const decision = await decideDisplay(config, context, targetSpaceId);
  if (!decision.ok) {
    if (track.card) await failEarly(context, track.card, identity, decision.error);
    return failed(decision.error);
  }
  const card = decision.card;
  if (card && track.card?.spaceId !== card.spaceId) {
    toolStarted(context.spaceEvents, card, { toolCallId: call.toolCallId, toolName: config.name, agentEntityId: context.agent.entityId, runId: context.runId });
  }

  const validation = validateToolArguments(resolved.inputSchema, args);
  if (!validation.ok) {
    const error = formatArgumentError(config.name, validation.problems);
    if (card) await failEarly(context, card, identity, error);
    return failed(error);
  }

  const pendingFlow = config.executionType === "external" || config.executionType === "space";
  let messageId: string | undefined;
  if (card) {
    const status = pendingFlow ? "requires_action" : "running";
    const stub = context.spaceEvents.ordered(card.spaceId);
    // The card's id comes from the call: posting it again after a restart finds the same message.
    const message = await context.spaceEvents.track(
      stub.postMessage({
        id: messageIdForCall(call.toolCallId),
        entityId: context.agent.entityId,
        role: "tool",
        parts: [cardPart(card, { ...identity, runId: context.runId }, status)],
        status,
      }),
    );
    messageId = message.id;
    context.journal.markCard(call.toolCallId, card.spaceId);
  }

  if (pendingFlow) {
    return runPendingCall(context, config, { ...identity, modelToolCallId: call.modelToolCallId, abortSignal: call.abortSignal }, card && messageId ? { ...card, messageId } : undefined);
  }

  if (config.executionType === "image-generator") return runImageGenerator(context, config, { ...identity, abortSignal: call.abortSignal }, card && messageId ? { ...card, messageId } : undefined);

  const outcome = await runInline(context, resolved, call.toolCallId, args, call.abortSignal);
  if (card && messageId) {
    const error = outcomeError(outcome);
    try {
      await settleCard(context.spaceEvents.ordered(card.spaceId), { ...card, messageId }, identity, error !== undefined ? { error } : { result: outcome.type === "ok" ? outcome.value : null });
    } catch (cardError) {
      // The call ran: its outcome goes to the model even if the card could not be updated.
      console.error("could not settle the tool card", call.toolCallId, cardError);
    }
  }
  return outcome;
}

async function runInline(context: ToolContext, resolved: ResolvedTool, toolCallId: string, args: unknown, abortSignal: AbortSignal | undefined): Promise<ToolOutcome> {
  const { config } = resolved;
  const maxBytes = context.config.limits.toolResponseMaxBytes;
  try {
    switch (config.executionType) {
      case "internal":
        return succeeded({ success: true, args });
      case "prebuilt": {
        const outcome = await prebuiltTools[config.execution.action].execute(context, args);
        return outcome.type === "ok" ? succeeded(capResult(outcome.value, maxBytes)) : outcome;
      }
      case "gateway": {
        const answer = await runGatewayTool({
          execution: config.execution,
          args,
          env: context.env,
          timeoutMs: config.timeout ?? context.config.limits.toolTimeout,
          maxResponseBytes: maxBytes,
          signal: abortSignal,
          // Upstreams may de-duplicate a call done again after a restart; the hop stops loops through the gateway.
          extraHeaders: { "idempotency-key": toolCallId, [hopHeader]: String(context.hop + 1) },
        });
        return answer.ok ? succeeded(capResult(answer.value, maxBytes)) : failed(answer.error);
      }
      default:
        return failed(`Tool "${config.name}" cannot run inline`);
    }
  } catch (error) {
    console.error("tool failed", config.name, toolCallId, error);
    return failed(`Tool "${config.name}" failed unexpectedly; the gateway logged the cause`);
  }
}

/**
 * An `image-generator` call: the image is drawn and kept in R2; the card (if
 * the call shows in a space) completes with the image as an image part, its
 * link signed for that space's members.
 */
async function runImageGenerator(
  context: ToolContext,
  config: Extract<ToolConfig, { executionType: "image-generator" }>,
  call: { toolCallId: string; toolName: string; args: unknown; abortSignal?: AbortSignal },
  card: (ToolCard & { messageId: string }) | undefined,
): Promise<ToolOutcome> {
  const identity = { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args };
  const prompt = typeof call.args === "object" && call.args !== null && "prompt" in call.args && typeof call.args.prompt === "string" ? call.args.prompt : undefined;
  const size = typeof call.args === "object" && call.args !== null && "size" in call.args && typeof call.args.size === "string" && /^\d{2,5}x\d{2,5}$/.test(call.args.size) ? call.args.size : undefined;
  let outcome: ToolOutcome;
  let parts: MessagePart[] = [];
  if (!prompt) outcome = failed(`Tool "${config.name}" needs a prompt (a string argument named prompt)`);
  else {
    const made = await generateImageFile(context, config.execution, { prompt, size, toolCallId: call.toolCallId, abortSignal: call.abortSignal });
    if (!made.ok) outcome = failed(made.error);
    else {
      const part = card ? await imagePartFor(context, made.image, card.spaceId, call.toolCallId, card.minimal) : undefined;
      parts = part ? [part] : [];
      outcome = succeeded({ image: { mediaType: made.image.mediaType, size: made.image.size, ...(part && { url: part.url, expiresAt: part.expiresAt }) }, prompt });
    }
  }
  if (card) {
    const error = outcomeError(outcome);
    try {
      await settleCard(context.spaceEvents.ordered(card.spaceId), card, identity, error !== undefined ? { error } : { result: outcome.type === "ok" ? outcome.value : null }, parts);
    } catch (cardError) {
      console.error("could not settle the tool card", call.toolCallId, cardError);
    }
  }
  return outcome;
}

/** A call that fails before it runs: the card that started streaming gets `tool.error`. */
async function failEarly(context: ToolContext, card: ToolCard, call: { toolCallId: string; toolName: string; args: unknown }, error: string): Promise<void> {
  await toolFinished(context.spaceEvents.ordered(card.spaceId), card, call, { error });
}
