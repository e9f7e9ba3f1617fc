/**
 * The agent object's side of sub-agent calls: handing a task to another
 * agent's object (idempotent by the call id), and, in the receiving object,
 * refusing a task whose call was already answered or expired (a delivery
 * done again after its answer must not be worked on twice).
 */
import { getDatabase } from "../db/client";
import type { AppEnv } from "../env";
import { getPendingCall } from "../tools";
import { type AgentTask, agentTaskEventId } from "../protocol/agent-task";
import { getAgent } from "./agent-record";
import { agentStub } from "./agent-stub";

export async function delegateTask(env: AppEnv, agentId: string, task: AgentTask): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    if (!(await getAgent(getDatabase(env.DB), agentId))) return { ok: false, error: `there is no agent "${agentId}"` };
    await agentStub(env, agentId).deliver(task, agentTaskEventId(task.toolCallId));
    return { ok: true };
  } catch (error) {
    console.error("could not hand a task on", agentId, task.toolCallId, error);
    return { ok: false, error: "the agent could not be reached" };
  }
}

/** Whether the call that gave a task still waits for its answer. */
export async function taskStillOpen(env: AppEnv, task: AgentTask): Promise<boolean> {
  const call = await getPendingCall(getDatabase(env.DB), task.toolCallId);
  return call !== undefined && (call.status === "waiting" || call.status === "pending");
}
