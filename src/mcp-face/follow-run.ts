/**
 * Waits on an agent's stream for the run that takes one inbox event (the
 * question `ask_agent` delivered): the run is the one whose trigger holds
 * that event's id, and it is over at its `agent.cycle.finished`. While it
 * works, each step and tool call is reported to `progress`; the messages it
 * sends (`send_message`) into a given space are collected by id, and each
 * call that begins to wait on someone is handed to `onWaiting`. A message
 * the agent refused to wake for (too many hops) ends the wait at once.
 */
import type { AgentEvents, AgentStreamEvent } from "./agent-events";

export type RunFollowed =
  | { kind: "finished"; runId: string; status: string; error?: string; sentMessageIds: string[] }
  | { kind: "deadline"; runId?: string }
  | { kind: "refused"; reason: string }
  | { kind: "aborted" }
  | { kind: "closed"; runId?: string };

export type FollowOptions = {
  eventId: string;
  /** The question's message id, when it is a space message (a refused wake names it). */
  messageId?: string;
  /** Collect the ids of the messages the run sends into this space. */
  spaceId?: string;
  deadline: number;
  signal: AbortSignal;
  progress: (message: string) => Promise<void>;
  /** Name the tools the run calls in progress messages (the secret key sees them all; a person may not see every tool). */
  namesTools: boolean;
  /** The run, when it is known to have started already (a task's `tasks/result`): its start is not waited for. */
  runId?: string;
  /** A call or approval of the run began to wait on someone (its pending call id): the face may put it to its person. */
  onWaiting?: (callId: string) => Promise<unknown>;
};

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function triggeredBy(event: AgentStreamEvent, eventId: string): boolean {
  const trigger = event.data.trigger;
  return Array.isArray(trigger) && trigger.some((entry: unknown) => typeof entry === "object" && entry !== null && "id" in entry && entry.id === eventId);
}

export async function followRun(events: AgentEvents, options: FollowOptions): Promise<RunFollowed> {
  let runId = options.runId;
  const sentMessageIds: string[] = [];
  for (;;) {
    const next = await events.next(options.deadline, options.signal);
    if (next.kind === "deadline") return { kind: "deadline", runId };
    if (next.kind === "aborted") return { kind: "aborted" };
    if (next.kind === "closed") return { kind: "closed", runId };
    const { event } = next;
    if (event.type === "agent.wake.refused" && options.messageId !== undefined && event.data.messageId === options.messageId) {
      return { kind: "refused", reason: text(event.data.reason) ?? "the agent was not woken" };
    }
    if (runId === undefined) {
      if ((event.type === "agent.cycle.started" || event.type === "agent.cycle.resumed") && triggeredBy(event, options.eventId)) {
        runId = text(event.data.runId);
        if (runId) await options.progress(`The agent started working (run ${runId})`);
      }
      continue;
    }
    if (event.data.runId !== runId) continue;
    switch (event.type) {
      case "agent.step.finished":
        await options.progress(`Step ${Number(event.data.stepNumber ?? 0) + 1} done`);
        break;
      case "tool.requested":
        await options.progress(options.namesTools ? `Calling ${text(event.data.toolName) ?? "a tool"}` : "Calling a tool");
        break;
      case "tool.pending":
      case "tool.approval.requested": {
        const callId = text(event.type === "tool.pending" ? event.data.toolCallId : event.data.approvalId);
        if (callId && options.onWaiting) await options.onWaiting(callId);
        break;
      }
      case "agent.cycle.retrying":
        await options.progress("Retrying after an error");
        break;
      case "tool.completed": {
        const result = event.data.result;
        if (event.data.toolName === "send_message" && typeof result === "object" && result !== null && "messageId" in result && "spaceId" in result) {
          if (result.spaceId === options.spaceId && typeof result.messageId === "string") sentMessageIds.push(result.messageId);
        }
        break;
      }
      case "agent.cycle.finished":
        return { kind: "finished", runId, status: text(event.data.status) ?? "completed", error: text(event.data.error), sentMessageIds };
    }
  }
}
