/**
 * Reflection (after a task, the agent notes what it learned): after a completed
 * cycle that did real work, the agent queues itself a `reflection` event; the
 * pass that runs on it has only the notes tools that write, the agent's notes
 * index and an instruction to consolidate what it learned. That run is marked
 * by its trigger (`{type: "reflection", runId}`), is shown in no space,
 * delivers no mention (it has no tool that could), never queues another
 * reflection, and leaves the consciousness as the reflected cycle left it.
 */
import type { AgentIdentity } from "../../tools";
import type { AgentConfig } from "../agent-config";
import type { RunNote } from "../../db/runs";
import type { StepRecord } from "../cycle-journal";
import type { InboxEvent, QueuedEvent } from "../inbox-event";

export const defaultReflectionInstruction =
  "Look back on your last cycle (the conversation above). Write what is worth keeping into your notes: facts you learned, decisions and why, what worked and what failed, open threads. Patch or append to an existing note rather than writing a second one on the same subject; keep each note focused, with a one-line > Summary:. When you are done, or if nothing is worth keeping, answer with one short sentence and no tool call.";

export const defaultReflectionSteps = 3;

export const reflectionEventId = (runId: string) => `evt_reflect_${runId}`;

export function reflectionEvent(runId: string): InboxEvent {
  return { type: "reflection", runId };
}

/** A run whose trigger is a reflection event is a reflection pass. */
export function isReflectionRun(events: QueuedEvent[]): boolean {
  return events.length > 0 && events.every((queued) => queued.event.type === "reflection");
}

/** Whether a completed cycle earns a reflection pass: turned on, not itself a reflection, and real work done. */
export function shouldReflect(config: AgentConfig, records: StepRecord[], reflection: boolean): boolean {
  const settings = config.reflection;
  if (!settings?.enabled || reflection) return false;
  const work = records.flatMap((record) => record.toolCalls).filter((call) => call.toolName !== "skip").length;
  return work >= settings.minToolCalls;
}

/**
 * The pass's answer in the catalogue's shape, kept as a `reflection` note on
 * its run record: `assessment` is the text of its last step that has text,
 * `toolCallsCount` the tool calls it made, `runId` the run it reflected on.
 */
export function reflectionNote(records: StepRecord[], claimed: QueuedEvent[], at = new Date()): RunNote {
  const assessment =
    [...records]
      .reverse()
      .find((record) => record.step.text.trim().length > 0)
      ?.step.text.trim() ?? "";
  const reflected = claimed.find((queued) => queued.event.type === "reflection")?.event;
  const report = {
    assessment,
    toolCallsCount: records.reduce((count, record) => count + record.toolCalls.length, 0),
    ...(reflected?.type === "reflection" && { runId: reflected.runId }),
  };
  return { at: at.toISOString(), kind: "reflection", message: assessment.slice(0, 200), report };
}

export function buildReflectionPrompt(input: { system?: string; agent: AgentIdentity; instruction?: string; sections: string[]; now: Date }): string {
  return [
    input.system?.trim() || "You are a helpful agent.",
    `## Who you are\nYou are the agent "${input.agent.name}" (entity id ${input.agent.entityId}). The time is ${input.now.toISOString()}.`,
    `## Reflection\nThis is a short reflection pass after your last cycle, not a new task: nobody sees it and you cannot message anyone.\n${input.instruction ?? defaultReflectionInstruction}`,
    ...input.sections,
  ].join("\n\n");
}
