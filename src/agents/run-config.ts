/**
 * The config one run works with. A task whose sub-agent tool says `inherit`
 * carries parts of its caller's config (its `model`, its `limits`): the run
 * that works on it uses them instead of the agent's own, and everything else
 * (who the agent is, its tools, its instructions, its loop, and the two
 * limits that span its runs: `maxCyclesPerMinute`, `consciousnessTokens`)
 * stays its own.
 * Such a task is claimed alone (`agent-storage.ts`), so one run never mixes
 * two callers' settings. The parts ride on the task, which waits in the
 * inbox, so a restart between its arrival and its run changes nothing; they
 * are checked here, as each attempt starts, with the schemas the agent's own
 * config is checked with. A part that does not pass fails the run at once
 * (trying again would not change it), and so the task, saying which part and why.
 */
import type { z } from "zod";
import { ModelConfig } from "../models/model-config";
import { type AgentConfig, AgentLimits } from "./agent-config";
import type { AgentTask } from "../protocol/agent-task";
import type { QueuedEvent } from "./inbox-event";

export type InheritedFrom = { fromAgentId: string; fromName: string; fromRunId?: string; toolCallId: string; toolName: string; parts: ("model" | "limits")[] };

export type RunConfig = { ok: true; config: AgentConfig; inherited?: InheritedFrom } | { ok: false; error: string };

/** A run whose task brought settings that do not pass: it fails at once, with the message (no other attempt). */
export class InheritedSettingsError extends Error {}

/** Where an inherited scripted model keeps its place: apart from the agent's own script (`scripted_turn`), so neither moves the other. */
export const inheritedScriptedTurnKey = "inherited_scripted_turn";

type InheritingTask = AgentTask & { inherited: NonNullable<AgentTask["inherited"]> };

function inheritingTask(events: readonly QueuedEvent[]): InheritingTask | undefined {
  for (const { event } of events) if (event.type === "agent_task" && event.inherited !== undefined) return { ...event, inherited: event.inherited };
  return undefined;
}

/** Where a scripted model's place in its script is kept for a run of these events. */
export function scriptedTurnKey(events: readonly QueuedEvent[]): string {
  return inheritingTask(events)?.inherited.model !== undefined ? inheritedScriptedTurnKey : "scripted_turn";
}

/** The agent's own config, or the one a task it took brings parts of; a failure when a part does not pass its schema. */
export function runConfigOf(own: AgentConfig, events: readonly QueuedEvent[]): RunConfig {
  const task = inheritingTask(events);
  if (!task) return { ok: true, config: own };
  const problems: string[] = [];
  const check = <S extends z.ZodType>(part: string, schema: S, value: unknown): z.infer<S> | undefined => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues.slice(0, 5)) problems.push(`${[part, ...issue.path.map(String)].join(".")}: ${issue.message}`);
    return undefined;
  };
  const model = task.inherited.model === undefined ? undefined : check("model", ModelConfig, task.inherited.model);
  const limits = task.inherited.limits === undefined ? undefined : check("limits", AgentLimits, task.inherited.limits);
  if (problems.length > 0) {
    return {
      ok: false,
      error: `The task from agent "${task.fromName}" (${task.fromAgentId}) brings settings this agent cannot run with, checked as its own config would be: ${problems.join("; ")}`,
    };
  }
  const parts: InheritedFrom["parts"] = [...(model ? ["model" as const] : []), ...(limits ? ["limits" as const] : [])];
  if (parts.length === 0) return { ok: true, config: own };
  return {
    ok: true,
    config: {
      ...own,
      ...(model && { model }),
      // Two limits govern the agent across its runs, not the run: how often runs start, and how much it keeps between them.
      ...(limits && { limits: { ...limits, maxCyclesPerMinute: own.limits.maxCyclesPerMinute, consciousnessTokens: own.limits.consciousnessTokens } }),
    },
    inherited: {
      fromAgentId: task.fromAgentId,
      fromName: task.fromName,
      ...(task.fromRunId !== undefined && { fromRunId: task.fromRunId }),
      toolCallId: task.toolCallId,
      toolName: task.toolName,
      parts,
    },
  };
}

/** The run record's note: which settings the run took, whose, and through which call. */
export function inheritedNote(config: AgentConfig, inherited: InheritedFrom): string {
  const model = `${config.model.provider}${config.model.name !== undefined ? ` "${config.model.name}"` : ""}`;
  const what = [...(inherited.parts.includes("model") ? [`the model (${model})`] : []), ...(inherited.parts.includes("limits") ? ["the limits"] : [])].join(" and ");
  const run = inherited.fromRunId !== undefined ? ` in its run ${inherited.fromRunId}` : "";
  return `Ran with ${what} of agent "${inherited.fromName}" (${inherited.fromAgentId}), inherited through its call ${inherited.toolCallId} of "${inherited.toolName}"${run}`;
}
