/**
 * PendingToolCall rows (calls waiting for a result from outside). Every
 * status change is a conditional update, so when several parties race (50
 * submissions, a submission against a timeout, an expiry) exactly one of
 * them wins.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client";
import { pendingToolCalls } from "../../db/schema";
import type { AnsweredBy } from "../config/wait-policy-config";

export type PendingCallStatus = "waiting" | "pending" | "resolved" | "expired";

export type PendingCall = typeof pendingToolCalls.$inferSelect;

export async function createPendingCall(
  database: Database,
  call: {
    toolCallId: string;
    modelToolCallId: string;
    runId: string;
    agentId: string;
    agentEntityId: string;
    toolName: string;
    kind?: "call" | "approval";
    executionType: string;
    args: unknown;
    status: "waiting" | "pending";
    spaceId?: string;
    messageId?: string;
    displayMode?: string;
    expiresAt?: string;
    answeredBy?: AnsweredBy;
    initiatorEntityId?: string;
    /** The connection the call waits for its person to connect. */
    accountKey?: string;
    /** The call span's W3C `traceparent`, kept for what happens after its cycle (a resumed request, the run a late answer wakes). */
    traceparent?: string;
  },
): Promise<void> {
  // The id is the gateway's own, so a conflict can only be this call written before (a continued cycle).
  await database
    .insert(pendingToolCalls)
    .values({
      ...call,
      spaceId: call.spaceId ?? null,
      messageId: call.messageId ?? null,
      displayMode: call.displayMode ?? null,
      expiresAt: call.expiresAt ?? null,
      answeredBy: call.answeredBy ?? null,
      initiatorEntityId: call.initiatorEntityId ?? null,
      accountKey: call.accountKey ?? null,
      traceparent: call.traceparent ?? null,
      updatedAt: new Date().toISOString(),
    })
    .onConflictDoNothing({ target: pendingToolCalls.toolCallId });
}

/**
 * Whether an open call waits on someone outside the gateway: an approval, a
 * `space` or `external` call's answer, or a person connecting an account.
 * A call to a sub-agent or a remote A2A agent waits too, but on work the
 * gateway settles itself: nobody is asked for it.
 */
export function waitsOnSomeone(call: Pick<PendingCall, "kind" | "executionType" | "accountKey">): boolean {
  return call.kind === "approval" || call.accountKey !== null || call.executionType === "space" || call.executionType === "external";
}

export async function getPendingCall(database: Database, toolCallId: string): Promise<PendingCall | undefined> {
  return database.select().from(pendingToolCalls).where(eq(pendingToolCalls.toolCallId, toolCallId)).get();
}

/**
 * Moves a call from one of `from` to `to`, only if it is still there.
 * Returns the row after the change, or undefined when another party won.
 */
export async function transitionPendingCall(
  database: Database,
  toolCallId: string,
  from: PendingCallStatus[],
  to: PendingCallStatus,
  changes: { result?: unknown } = {},
): Promise<PendingCall | undefined> {
  const now = new Date().toISOString();
  const rows = await database
    .update(pendingToolCalls)
    .set({
      status: to,
      updatedAt: now,
      ...(to === "resolved" && { resolvedAt: now }),
      ...("result" in changes && { result: changes.result ?? null }),
    })
    .where(and(eq(pendingToolCalls.toolCallId, toolCallId), inArray(pendingToolCalls.status, from)))
    .returning();
  return rows[0];
}

/** A deleted agent's open calls can never be answered: they expire (a later result gets 410). */
export function expireOpenCallsOfAgent(database: Database, agentId: string) {
  const now = new Date().toISOString();
  return database
    .update(pendingToolCalls)
    .set({ status: "expired", updatedAt: now })
    .where(and(eq(pendingToolCalls.agentId, agentId), inArray(pendingToolCalls.status, ["waiting", "pending"])));
}

/** The calls still waiting for `entityId` to connect `accountKey`, of every agent (at most `limit`). */
export async function callsWaitingForAccount(database: Database, entityId: string, accountKey: string, limit = 100): Promise<Pick<PendingCall, "toolCallId" | "agentId">[]> {
  return database
    .select({ toolCallId: pendingToolCalls.toolCallId, agentId: pendingToolCalls.agentId })
    .from(pendingToolCalls)
    .where(and(eq(pendingToolCalls.accountKey, accountKey), eq(pendingToolCalls.initiatorEntityId, entityId), eq(pendingToolCalls.status, "waiting")))
    .limit(limit)
    .all();
}
