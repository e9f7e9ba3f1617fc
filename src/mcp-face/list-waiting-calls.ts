/**
 * The calls and approvals that wait on someone, as a face lists them: those
 * whose card is in a space (the space endpoint), or those of one agent (the
 * agent endpoint). A token sees only what it may answer (`mayAnswer`, the
 * result route's own rule) and, for a `minimal` tool, no arguments, as on
 * its card. Each call carries what answering it needs: the `resultSchema`
 * its answer must fit, or for an approval the shape `{approved, args?, reason?}`.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { getAgent } from "../agents/agent-record";
import { mayAnswer } from "../api/who-may-answer";
import { getDatabase } from "../db/client";
import { pendingToolCalls } from "../db/schema";
import { type PendingCall, waitsOnSomeone } from "../tools";
import type { FaceContext } from "./face-context";

/** At most this many calls a listing reads (oldest first); `truncated` says when more wait. */
export const maxWaitingCalls = 100;

export type WaitingCall = {
  toolCallId: string;
  kind: "call" | "approval";
  runId: string;
  agentId: string;
  agentEntityId: string;
  toolName: string;
  executionType: string;
  status: string;
  args?: unknown;
  spaceId: string | null;
  messageId: string | null;
  expiresAt: string | null;
  createdAt: string;
  resultSchema?: Record<string, unknown>;
  answerWith: "answer_call" | "approve_call or deny_call";
};

export async function listWaitingCalls(context: FaceContext, scope: { spaceId: string } | { agentId: string }) {
  const database = getDatabase(context.c.env.DB);
  const rows = await database
    .select()
    .from(pendingToolCalls)
    .where(
      and("spaceId" in scope ? eq(pendingToolCalls.spaceId, scope.spaceId) : eq(pendingToolCalls.agentId, scope.agentId), inArray(pendingToolCalls.status, ["waiting", "pending"])),
    )
    .orderBy(asc(pendingToolCalls.createdAt))
    .limit(maxWaitingCalls + 1);
  const answerable: PendingCall[] = [];
  for (const call of rows.slice(0, maxWaitingCalls)) {
    // A call to a sub-agent or a remote agent, or one that waits for an account, is settled by the gateway: nobody answers it.
    if (!waitsOnSomeone(call) || call.accountKey !== null) continue;
    if ((await mayAnswer(context.c.env, context.caller, call, call.toolCallId)).ok) answerable.push(call);
  }
  const resultSchemas = await resultSchemasOf(context, answerable);
  const calls = answerable.map((call): WaitingCall => {
    const hideArgs = context.caller.kind !== "secret" && call.displayMode === "minimal";
    const resultSchema = call.kind === "call" ? resultSchemas.get(`${call.agentId}/${call.toolName}`) : undefined;
    return {
      toolCallId: call.toolCallId,
      kind: call.kind,
      runId: call.runId,
      agentId: call.agentId,
      agentEntityId: call.agentEntityId,
      toolName: call.toolName,
      executionType: call.executionType,
      status: call.status,
      ...(!hideArgs && { args: call.args }),
      spaceId: call.spaceId,
      messageId: call.messageId,
      expiresAt: call.expiresAt,
      createdAt: call.createdAt,
      ...(resultSchema && { resultSchema }),
      answerWith: call.kind === "approval" ? "approve_call or deny_call" : "answer_call",
    };
  });
  return { calls, truncated: rows.length > maxWaitingCalls };
}

/** The `resultSchema` of each listed call's tool, from its agent's config (one read per agent). */
async function resultSchemasOf(context: FaceContext, calls: PendingCall[]): Promise<Map<string, Record<string, unknown>>> {
  const database = getDatabase(context.c.env.DB);
  const schemas = new Map<string, Record<string, unknown>>();
  for (const agentId of new Set(calls.map((call) => call.agentId))) {
    const agent = await getAgent(database, agentId);
    for (const tool of agent?.config.tools ?? []) {
      if (tool.resultSchema) schemas.set(`${agentId}/${tool.name}`, tool.resultSchema);
    }
  }
  return schemas;
}
