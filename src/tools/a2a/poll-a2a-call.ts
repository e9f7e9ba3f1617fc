/**
 * A remote A2A task's next look, outside the cycle that started it: from
 * the alarm (the `a2a_poll` deadline) when no cycle waits on the call, or at
 * once when the remote agent pushes an update (`POST /a2a/callbacks/:token`).
 * A push only says "look now": the task is read with `GetTask`, never taken
 * from the push's body (an update rarely carries the answer). A finished
 * task settles the call through its owner; one still under way is looked at
 * again later, each wait twice the last up to a bound, until the call's
 * expiry, when it expires with a clear error.
 */
import type { Database } from "../../db/client";
import type { A2aProviderConfig } from "../config/provider-config";
import type { PendingCallPort } from "../engine/pending-call-port";
import { getPendingCall } from "../engine/pending-calls";
import type { A2aPollDeadline } from "../engine/tool-deadlines";
import { readRemoteTask } from "./a2a-rpc";

/** The longest wait between two polls. */
export const maxPollDelayMs = 60_000;

export const a2aPollId = (toolCallId: string) => `a2a:${toolCallId}`;

export type A2aPoll = A2aPollDeadline["payload"];

/** Where a push for a call comes in (the rest is its signed callback token). */
export const a2aCallbackPath = "/a2a/callbacks/";

export const remoteNamed = (poll: Pick<A2aPoll, "provider" | "toolName">) => `The remote agent of provider "${poll.provider}" ("${poll.toolName}")`;

/** What the model is told when the remote never finished in time. */
export const notFinished = (poll: A2aPoll, state: string) =>
  `${remoteNamed(poll)} did not finish its task ${poll.remoteTaskId} within ${Math.round((poll.expiresAt - poll.startedAt) / 1000)}s (last seen ${state}); the call expired`;

export type A2aPollHost = {
  env: Record<string, unknown>;
  database: Database;
  calls: Pick<PendingCallPort, "settleWith" | "expire">;
  deadlines: { set(deadline: A2aPollDeadline): void; delete(id: string): void };
  /** A cycle of this object waits on the call and polls it itself. */
  isAwaited(toolCallId: string): boolean;
  publish(type: string, data: Record<string, unknown>): void;
};

/** Looks at the task once; `why`: the alarm (skipped while a cycle waits on the call) or a push (looked at now). */
export async function pollA2aCall(host: A2aPollHost, deadline: A2aPollDeadline, providers: readonly A2aProviderConfig[], why: "alarm" | "push"): Promise<void> {
  const poll = deadline.payload;
  const row = await getPendingCall(host.database, poll.toolCallId);
  if (row === undefined || (row.status !== "waiting" && row.status !== "pending")) return host.deadlines.delete(deadline.id);
  const now = Date.now();
  if (now >= poll.expiresAt) {
    await host.calls.expire(poll.toolCallId, notFinished(poll, poll.state));
    return host.deadlines.delete(deadline.id);
  }
  const later = (state: string, delayMs: number) =>
    host.deadlines.set({ ...deadline, dueAt: Math.min(poll.expiresAt, Date.now() + delayMs), payload: { ...poll, state, delayMs } });
  // The waiting cycle polls on its own timers (the alarm cannot fire while it runs); a push still looks now.
  if (why === "alarm" && host.isAwaited(poll.toolCallId)) return later(poll.state, poll.delayMs);
  const provider = providers.find((entry) => entry.name === poll.provider);
  if (provider === undefined) {
    await host.calls.expire(poll.toolCallId, `${remoteNamed(poll)} is no longer in the agent's config: its task ${poll.remoteTaskId} was not followed`);
    return host.deadlines.delete(deadline.id);
  }
  const reading = await readRemoteTask(provider, host.env, poll, remoteNamed(poll));
  host.publish("a2a.task.polled", {
    toolCallId: poll.toolCallId,
    provider: poll.provider,
    remoteTaskId: poll.remoteTaskId,
    why,
    ...("error" in reading ? { error: reading.error } : { state: "done" in reading ? "done" : reading.working }),
  });
  if ("done" in reading) {
    const { done } = reading;
    await host.calls.settleWith(row.toolCallId, async () => done);
    return host.deadlines.delete(deadline.id);
  }
  // Still under way, or not readable now (the remote may be back later): looked at again, less often.
  later("working" in reading ? reading.working : poll.state, why === "alarm" ? Math.min(poll.delayMs * 2, maxPollDelayMs) : poll.delayMs);
}
