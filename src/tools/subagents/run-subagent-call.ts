/**
 * A sub-agent call: the task goes to the other agent's inbox as an
 * `agent_task` event (its id derived from this call's gateway id, so a
 * delivery done again is ignored) and the call waits for that agent's final
 * answer through the same pending-call machinery as an external tool: in
 * time → the result inline; past `timeout` → `pending`, and the late answer
 * reaches this agent's inbox as a `tool_result` event. The other agent's run
 * end sends the answer (`src/agents/subagent-answers.ts`). Calls nest at most
 * `maxDepth` agents deep, so agents that call each other stop. With
 * `inherit`, the task carries those parts of this agent's config (its model,
 * its limits): the other agent's run on it uses them instead of its own.
 */
import type { AgentTask } from "../../protocol/agent-task";
import type { InheritablePart } from "../config/subagent-inherit";
import { getPendingCall } from "../engine/pending-calls";
import type { InlineCall } from "../engine/resolved-tool";
import { type PendingCallContext, runPendingCall } from "../engine/run-pending-call";
import type { SettingsAccess } from "../engine/tool-context";
import { failed, type ToolOutcome } from "../engine/tool-outcome";

export const defaultMaxDepth = 3;
/** No configuration goes deeper than this (the hop guard's bound). */
export const maxSubagentDepth = 8;

export type SubagentSettings = {
  agentId: string;
  isAsync: boolean;
  timeoutMs: number;
  expiresIn?: number;
  maxDepth?: number;
  /** Parts of this agent's config the task carries. */
  inherit?: readonly InheritablePart[];
};

/** The task text the other agent sees: `task` when that is all the arguments hold, else the arguments as JSON. */
export function taskText(args: unknown): string {
  if (typeof args === "object" && args !== null && !Array.isArray(args)) {
    const entries = Object.entries(args);
    if (entries.length === 1 && entries[0][0] === "task" && typeof entries[0][1] === "string") return entries[0][1];
  }
  return JSON.stringify(args ?? null);
}

/** What the task carries of this agent's config: the parts `inherit` names, as this cycle has them (an inherited model hands on again). */
export function inheritedSettings(config: SettingsAccess["config"], parts: readonly InheritablePart[] | undefined): AgentTask["inherited"] {
  if (!parts || parts.length === 0) return undefined;
  return {
    ...(parts.includes("model") && config.model !== undefined && { model: config.model }),
    ...(parts.includes("limits") && { limits: config.limits }),
  };
}

export async function runSubagentCall(context: PendingCallContext & SettingsAccess, settings: SubagentSettings, call: InlineCall): Promise<ToolOutcome> {
  const maxDepth = Math.min(settings.maxDepth ?? defaultMaxDepth, maxSubagentDepth);
  const depth = context.depth + 1;
  if (depth > maxDepth) {
    return failed(
      `Tool "${call.toolName}" cannot hand a task on: sub-agent calls may nest ${maxDepth} deep and this cycle already works on a task ${context.depth} deep`,
      "permission",
    );
  }
  const inherited = inheritedSettings(context.config, settings.inherit);
  return runPendingCall(
    context,
    {
      executionType: "agent",
      isAsync: settings.isAsync,
      timeoutMs: settings.timeoutMs,
      expiresIn: settings.expiresIn,
      handOff: async () => {
        const delivered = await context.toolRuntime.outbox.delegate(settings.agentId, {
          type: "agent_task",
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          fromAgentId: context.agent.agentId,
          fromEntityId: context.agent.entityId,
          fromName: context.agent.name,
          fromRunId: context.runId,
          task: taskText(call.args),
          depth,
          hop: context.hop + 1,
          // The trace goes on in the sub-agent: its run is a child of this call's span.
          ...(call.span?.traceparent !== undefined && { traceparent: call.span.traceparent }),
          ...(inherited !== undefined && { inherited }),
        });
        if (delivered.ok) return undefined;
        // The row must not stay open: it is resolved with the failure, through its owner.
        const message = `Tool "${call.toolName}" could not hand the task to agent "${settings.agentId}": ${delivered.error}`;
        const row = await getPendingCall(context.database, call.toolCallId);
        if (row) await context.toolRuntime.calls.submit(row, { type: "error", message });
        return context.journal.outcome(call.toolCallId) ?? failed(message, "upstream");
      },
    },
    call,
    call.card,
  );
}
