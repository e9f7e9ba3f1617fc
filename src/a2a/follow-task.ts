/**
 * Follows a task on its agent's own event stream (opened before the message
 * that starts it is posted, so the run cannot be missed): first the run that
 * takes the message (its trigger holds the message's inbox event), then
 * each change worth reading the task again for (a step done, a call that
 * waits, an answer taken, the run's end). The stream only says when to read:
 * what a caller is shown is always read from durable state (`task-view.ts`).
 */
import type { AgentEvents, AgentStreamEvent } from "../mcp-face/agent-events";

export type RunStart = { kind: "started"; runId: string } | { kind: "refused"; reason: string } | { kind: "deadline" } | { kind: "closed" } | { kind: "aborted" };
export type RunChange = { kind: "changed" } | { kind: "finished" } | { kind: "deadline" } | { kind: "closed" } | { kind: "aborted" };

function triggeredBy(event: AgentStreamEvent, eventId: string): boolean {
  const trigger = event.data.trigger;
  return Array.isArray(trigger) && trigger.some((entry: unknown) => typeof entry === "object" && entry !== null && "id" in entry && entry.id === eventId);
}

/** The run that takes the message `messageId` (its inbox event is `evt_<messageId>`). */
export async function waitForRun(events: AgentEvents, messageId: string, deadline: number, signal: AbortSignal): Promise<RunStart> {
  for (;;) {
    const next = await events.next(deadline, signal);
    if (next.kind !== "event") return next;
    const { event } = next;
    if (event.type === "agent.wake.refused" && event.data.messageId === messageId) {
      return { kind: "refused", reason: typeof event.data.reason === "string" ? event.data.reason : "the agent was not woken" };
    }
    if ((event.type === "agent.cycle.started" || event.type === "agent.cycle.resumed") && triggeredBy(event, `evt_${messageId}`) && typeof event.data.runId === "string") {
      return { kind: "started", runId: event.data.runId };
    }
  }
}

const changes = new Set(["agent.step.finished", "tool.pending", "tool.result.received", "agent.cycle.retrying", "agent.cycle.interrupted", "agent.cycle.resumed"]);

/** The next change of run `runId`. */
export async function nextChange(events: AgentEvents, runId: string, deadline: number, signal: AbortSignal): Promise<RunChange> {
  for (;;) {
    const next = await events.next(deadline, signal);
    if (next.kind !== "event") return next;
    const { event } = next;
    if (event.data.runId !== runId) continue;
    if (event.type === "agent.cycle.finished") return { kind: "finished" };
    if (changes.has(event.type)) return { kind: "changed" };
  }
}
