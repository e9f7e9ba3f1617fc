/**
 * One call of a configured tool, following the decision flow of §6:
 * validate → decide where it shows → internal / prebuilt / gateway answer
 * inline; external and space calls become PendingToolCalls (async: pending at
 * once; sync: wait up to `timeout`).
 */
import type { CycleContext } from "../../agents/cycle-context";
import { stripTargetSpaceId } from "../display-tool-schema";
import { executeGatewayTool } from "../gateway/execute-gateway-tool";
import { prebuiltTools } from "../prebuilt/prebuilt-registry";
import { formatArgumentError, validateToolArguments } from "../validate-tool-arguments";
import { capResult, resultError } from "./cap-result";
import type { CallTrack, ResolvedTool } from "./configured-tools";
import { decideDisplay } from "./decide-display";
import { runPendingCall } from "./run-pending-call";
import { cardPart, settleCard, type ToolCard, toolFinished, toolStarted } from "./tool-events";

export type ToolCallInput = { toolCallId: string; input: unknown; abortSignal?: AbortSignal };

export async function executeToolCall(context: CycleContext, resolved: ResolvedTool, call: ToolCallInput, track: CallTrack): Promise<unknown> {
  const { config } = resolved;
  // Streamed events of this call reach the space before anything below.
  await context.inputSettled(call.toolCallId);
  const { args, targetSpaceId } = config.displayTool ? stripTargetSpaceId(call.input) : { args: call.input, targetSpaceId: undefined };
  const identity = { toolCallId: call.toolCallId, toolName: config.name, args };

  const decision = await decideDisplay(config, context, targetSpaceId);
  if (!decision.ok) {
    if (track.card) await failEarly(context, track.card, identity, decision.error);
    return { error: decision.error };
  }
  const card = decision.card;
  if (card && track.card?.spaceId !== card.spaceId) {
    toolStarted(context.spaceEvents, card, { toolCallId: call.toolCallId, toolName: config.name, agentEntityId: context.agent.entityId, runId: context.runId });
  }

  const validation = validateToolArguments(resolved.inputSchema, args);
  if (!validation.ok) {
    const error = formatArgumentError(config.name, validation.problems);
    if (card) await failEarly(context, card, identity, error);
    return { error };
  }

  const pendingFlow = config.executionType === "external" || config.executionType === "space";
  let messageId: string | undefined;
  if (card) {
    const status = pendingFlow ? "requires_action" : "running";
    const stub = context.spaceEvents.ordered(card.spaceId);
    const message = await context.spaceEvents.track(stub.postMessage(card.spaceId, {
      entityId: context.agent.entityId,
      role: "tool",
      parts: [cardPart(card, { ...identity, runId: context.runId }, status)],
      status,
    }));
    messageId = message.id;
  }

  if (pendingFlow) {
    return runPendingCall(context, config, { ...identity, abortSignal: call.abortSignal }, card && messageId ? { ...card, messageId } : undefined);
  }

  const result = capResult(await runInline(context, resolved, args, call.abortSignal), context.config.limits.toolResponseMaxBytes);
  if (card && messageId) {
    const error = resultError(result);
    try {
      await settleCard(context.spaceEvents.ordered(card.spaceId), { ...card, messageId }, identity, error !== undefined ? { error } : { result });
    } catch (cardError) {
      // The call ran: its result goes to the model even if the card could not be updated.
      console.error("could not settle the tool card", call.toolCallId, cardError);
    }
  }
  return result;
}

async function runInline(context: CycleContext, resolved: ResolvedTool, args: unknown, abortSignal: AbortSignal | undefined): Promise<unknown> {
  const { config } = resolved;
  try {
    switch (config.executionType) {
      case "internal":
        return { success: true, args };
      case "prebuilt":
        return await prebuiltTools[config.execution.action].execute(context, args);
      case "gateway":
        return await executeGatewayTool({
          execution: config.execution,
          args,
          env: context.env,
          timeoutMs: config.timeout ?? context.config.limits.toolTimeout,
          maxResponseBytes: context.config.limits.toolResponseMaxBytes,
          signal: abortSignal,
        });
      default:
        return { error: `Tool "${config.name}" cannot run inline` };
    }
  } catch (error) {
    return { error: `Tool "${config.name}" failed: ${(error as Error).message}` };
  }
}

/** A call that fails before it runs: the card that started streaming gets `tool.error`. */
async function failEarly(context: CycleContext, card: ToolCard, call: { toolCallId: string; toolName: string; args: unknown }, error: string): Promise<void> {
  await toolFinished(context.spaceEvents.ordered(card.spaceId), card, call, { error });
}
