/**
 * The agent's configured tools (its `tools`, docs/tools.md) as engine tools:
 * how each shows, waits, queues and caches, and how one call runs. `internal`,
 * `prebuilt` `gateway` and `image-generator` answer inline; `external` and
 * `space` wait on a PendingToolCall; `agent` gives the task to another agent
 * and waits for its final answer the same way.
 */
import { runGatewayTool } from "../gateway/execute-gateway-tool";
import { actsAsPerson, runGatewayAsPerson } from "../gateway/run-gateway-as-person";
import { prebuiltTools } from "../prebuilt/prebuilt-registry";
import { runSubagentCall } from "../subagents/run-subagent-call";
import type { PlatformAccess, RunIdentity, SettingsAccess } from "../engine/tool-context";
import { defaultVisible, type ToolConfig } from "../config/tool-config";
import { defaultModeOf } from "../engine/decide-display";
import { hopHeader } from "../../protocol/hop";
import { generateImageFile, imagePartFor } from "../images/generate-image-file";
import type { InlineCall, ResolvedTool } from "../engine/resolved-tool";
import { type PendingCallContext, runPendingCall } from "../engine/run-pending-call";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import { traceHeader } from "../../telemetry/tracer";

/** The provider name configured tools report (they keep their own names, unprefixed). */
export const configuredProviderName = "tools";

export function resolveConfiguredTool(config: ToolConfig): ResolvedTool {
  const description =
    config.executionType === "prebuilt"
      ? (config.description ?? prebuiltTools[config.execution.action].description)
      : config.executionType === "image-generator"
        ? (config.description ?? imageGeneratorDefaults.description)
        : // Left out (the design documents' examples often do): the name says at least what the tool is called.
          (config.description ?? config.name);
  const inputSchema =
    config.executionType === "prebuilt"
      ? (config.inputSchema ?? prebuiltTools[config.execution.action].inputSchema)
      : config.executionType === "agent"
        ? (config.inputSchema ?? subagentInputSchema)
        : config.executionType === "image-generator"
          ? (config.inputSchema ?? imageGeneratorDefaults.inputSchema)
          : (config.inputSchema ?? { type: "object", properties: {} });
  const base = {
    name: config.name,
    provider: configuredProviderName,
    description,
    inputSchema,
    display: {
      name: config.name,
      visible: config.visible,
      defaultVisible: defaultVisible(config.executionType),
      displayTool: config.displayTool,
      display: config.display,
      defaultMode: defaultModeOf(config.executionType),
      answeredInSpace: config.executionType === "space",
    },
    policy: { queue: config.queue, cache: config.cache },
  };
  const timeoutOf = (context: SettingsAccess) => config.timeout ?? context.config.limits.toolTimeout;

  switch (config.executionType) {
    case "internal":
      return { ...base, run: async (_context, call) => succeeded({ success: true, args: call.args }) };
    case "prebuilt":
      return { ...base, run: (context, call) => prebuiltTools[config.execution.action].execute(context, call) };
    case "gateway":
      return {
        ...base,
        run: async (context: PendingCallContext & SettingsAccess, call) => {
          const send = {
            timeoutMs: timeoutOf(context),
            maxResponseBytes: config.execution.maxResponseBytes ?? context.config.limits.toolOutputMaxBytes ?? context.config.limits.toolResponseMaxBytes,
            signal: call.abortSignal,
            // Upstreams may de-duplicate a call done again after a restart; the hop stops loops through the gateway.
            extraHeaders: { "idempotency-key": call.toolCallId, [hopHeader]: String(context.hop + 1), ...traceHeader(call.span) },
            // A streamed answer (NDJSON, SSE) reports each record as it comes: `tool.progress`, and `tool.streaming` on a card.
            onProgress: (update: { progress: number; message: string }) => call.progress(update),
          };
          // Acting as a person: their token, or a wait for them to connect the account.
          if (actsAsPerson(config)) return runGatewayAsPerson(context, config, call, send);
          const answer = await runGatewayTool({ execution: config.execution, args: call.args, env: context.env, ...send });
          return answer.ok ? succeeded(answer.value) : failed(answer.error, answer.kind);
        },
      };
    case "external":
    case "space":
      return {
        ...base,
        pending: { cardStatus: "requires_action", ...(config.executionType === "space" && config.answeredBy && { answeredBy: config.answeredBy }) },
        run: (context: PendingCallContext & SettingsAccess, call) =>
          runPendingCall(
            context,
            {
              executionType: config.executionType,
              isAsync: config.isAsync ?? false,
              timeoutMs: timeoutOf(context),
              expiresIn: config.execution?.expiresIn,
              webhook: config.execution?.webhook,
              policy: { onTimeout: config.onTimeout, escalateTo: config.escalateTo, reminders: config.reminders },
              answeredBy: config.executionType === "space" ? config.answeredBy : undefined,
            },
            call,
            call.card,
          ),
      };
    case "image-generator":
      return { ...base, run: (context: RunIdentity & PlatformAccess & SettingsAccess, call) => runImageGenerator(context, config, call) };
    case "agent":
      return {
        ...base,
        pending: { cardStatus: "running" },
        run: (context: PendingCallContext & SettingsAccess, call) =>
          runSubagentCall(
            context,
            {
              agentId: config.execution.agentId,
              isAsync: config.isAsync ?? false,
              timeoutMs: timeoutOf(context),
              expiresIn: config.execution.expiresIn,
              maxDepth: undefined,
              inherit: config.execution.inherit,
            },
            call,
          ),
      };
  }
}

/** What an `image-generator` tool offers the model when its config gives no description or schema. */
export const imageGeneratorDefaults = {
  description: "Generate an image from a text prompt",
  inputSchema: { type: "object", properties: { prompt: { type: "string", description: "What to draw" } }, required: ["prompt"] },
};

/**
 * An `image-generator` call: the image is drawn and kept in R2; the card (if
 * the call shows in a space) completes with the image as an image part, its
 * link signed for that space's members.
 */
async function runImageGenerator(
  context: RunIdentity & PlatformAccess & SettingsAccess,
  config: Extract<ToolConfig, { executionType: "image-generator" }>,
  call: InlineCall,
): Promise<ToolOutcome> {
  const args = call.args;
  const prompt = typeof args === "object" && args !== null && "prompt" in args && typeof args.prompt === "string" ? args.prompt : undefined;
  const size = typeof args === "object" && args !== null && "size" in args && typeof args.size === "string" && /^\d{2,5}x\d{2,5}$/.test(args.size) ? args.size : undefined;
  if (!prompt) return failed(`Tool "${config.name}" needs a prompt (a string argument named prompt)`, "validation");
  const made = await generateImageFile(context, config.execution, { prompt, size, toolCallId: call.toolCallId, abortSignal: call.abortSignal });
  if (!made.ok) return failed(made.error, "upstream");
  const part = call.card ? await imagePartFor(context, made.image, call.card.spaceId, call.toolCallId, call.card.minimal) : undefined;
  if (part) call.addCardParts([part]);
  return succeeded({ image: { mediaType: made.image.mediaType, size: made.image.size, ...(part && { url: part.url, expiresAt: part.expiresAt }) }, prompt });
}

/** What a sub-agent tool takes unless its config says otherwise. */
export const subagentInputSchema: Record<string, unknown> = {
  type: "object",
  properties: {
    task: { type: "string", minLength: 1, maxLength: 32_000, description: "What the agent should do, in full: it sees only this" },
  },
  required: ["task"],
  additionalProperties: false,
};
