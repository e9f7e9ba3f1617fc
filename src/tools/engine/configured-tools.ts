/**
 * The agent's configured tools (§5, §6) as engine tools: how each shows,
 * waits, queues and caches, and how one call runs. `internal`, `prebuilt`
 * and `gateway` answer inline; `external` and `space` wait on a
 * PendingToolCall; `agent` gives the task to another agent and waits for its
 * final answer the same way.
 */
import { runGatewayTool } from "../gateway/execute-gateway-tool";
import { prebuiltTools } from "../prebuilt/prebuilt-registry";
import { runSubagentCall } from "../subagents/run-subagent-call";
import type { ToolContext } from "../tool-context";
import { defaultVisible, type ToolConfig } from "../tool-config";
import { hopHeader } from "./hop";
import type { ResolvedTool } from "./resolved-tool";
import { runPendingCall } from "./run-pending-call";
import { failed, succeeded } from "./tool-outcome";

/** The provider name configured tools report (they keep their own names, unprefixed). */
export const configuredProviderName = "tools";

export function resolveConfiguredTool(config: ToolConfig): ResolvedTool {
  const description = config.executionType === "prebuilt" ? (config.description ?? prebuiltTools[config.execution.action].description) : (config.description ?? "");
  const inputSchema =
    config.executionType === "prebuilt"
      ? (config.inputSchema ?? prebuiltTools[config.execution.action].inputSchema)
      : config.executionType === "agent"
        ? (config.inputSchema ?? subagentInputSchema)
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
      answeredInSpace: config.executionType === "space",
    },
    policy: { queue: config.queue, cache: config.cache },
  };
  const timeoutOf = (context: ToolContext) => config.timeout ?? context.config.limits.toolTimeout;

  switch (config.executionType) {
    case "internal":
      return { ...base, run: async (_context, call) => succeeded({ success: true, args: call.args }) };
    case "prebuilt":
      return { ...base, run: (context, call) => prebuiltTools[config.execution.action].execute(context, call.args) };
    case "gateway":
      return {
        ...base,
        run: async (context, call) => {
          const answer = await runGatewayTool({
            execution: config.execution,
            args: call.args,
            env: context.env,
            timeoutMs: timeoutOf(context),
            maxResponseBytes: context.config.limits.toolOutputMaxBytes ?? context.config.limits.toolResponseMaxBytes,
            signal: call.abortSignal,
            // Upstreams may de-duplicate a call done again after a restart; the hop stops loops through the gateway.
            extraHeaders: { "idempotency-key": call.toolCallId, [hopHeader]: String(context.hop + 1) },
          });
          return answer.ok ? succeeded(answer.value) : failed(answer.error, answer.kind);
        },
      };
    case "external":
    case "space":
      return {
        ...base,
        pending: { cardStatus: "requires_action" },
        run: (context, call) =>
          runPendingCall(
            context,
            { executionType: config.executionType, isAsync: config.isAsync ?? false, timeoutMs: timeoutOf(context), expiresIn: config.execution?.expiresIn, webhook: config.execution?.webhook },
            call,
            call.card,
          ),
      };
    case "agent":
      return {
        ...base,
        pending: { cardStatus: "running" },
        run: (context, call) =>
          runSubagentCall(context, { agentId: config.execution.agentId, isAsync: config.isAsync ?? false, timeoutMs: timeoutOf(context), expiresIn: config.execution.expiresIn, maxDepth: undefined }, call),
      };
  }
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
