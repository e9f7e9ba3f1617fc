/**
 * A call that acts as a person whose account is not connected (never, or
 * revoked, or short of scopes) waits for them to connect it: a flow is begun
 * for that person and linked to the call, the call becomes a pending call
 * with a deadline (the tool's timeout, ten minutes when it sets none), and
 * its card asks them (`account` on the card: the service, the scopes, the
 * flow; never the start link, which only they get from
 * `GET /api/me/connections/flows/{flowId}`).
 *
 * When the callback has stored their tokens it tells the agent object, which
 * runs the call once with them and settles it; the waiting cycle goes on
 * with that. Nobody connected in time: the model is told so. Done again
 * after a restart, the call finds its flow begun and waits on, to the same
 * deadline (`resumeAccountWait`).
 */
import { beginAccountFlow } from "../../accounts/begin-account-flow";
import { FlowStore } from "../../accounts/flow-store";
import { tokenCipherFor } from "../../accounts/token-cipher";
import type { OAuthDiscovery } from "../../accounts/oauth-discovery";
import type { AppEnv } from "../../env";
import type { GatewayAuth } from "../config/gateway-auth-config";
import { type GatewayAccount, registrationFor } from "../gateway/send-as-person";
import { KeyedLock } from "./keyed-lock";
import { createPendingCall, getPendingCall } from "./pending-calls";
import type { InlineCall } from "./resolved-tool";
import type { PendingCallContext } from "./run-pending-call";
import { failed, type ToolOutcome } from "./tool-outcome";

/** How long a call waits for a person to connect when the tool sets no `timeout`. */
export const accountWaitDefaultMs = 10 * 60_000;

/** Flows looked for and begun one at a time per person and connection. */
const flowLock = new KeyedLock();

/** After the deadline, the alarm's backstop expires a call nobody waits for any more. */
const backstopGraceMs = 1_000;

export function gatewayOriginOf(context: { publicOrigin?(): string | undefined; env: AppEnv }): string | undefined {
  const configured = context.env.PUBLIC_URL;
  return (typeof configured === "string" && configured !== "" ? configured : undefined) ?? context.publicOrigin?.();
}

const nobodyConnected = (account: GatewayAccount, toolName: string, waitedMs: number) =>
  `Nobody connected ${account.serviceName} in time: "${toolName}" waited ${Math.round(waitedMs / 1000)}s for the person who asked to connect their account, and was not run`;

/** Done again after a restart: the call's flow was begun and its card shows it, so it waits on to the same deadline. Undefined when it was not. */
export async function resumeAccountWait(context: PendingCallContext, call: InlineCall, account: GatewayAccount): Promise<ToolOutcome | undefined> {
  const previous = context.journal.previous(call.toolCallId);
  if (!previous?.announced) return undefined;
  const row = await getPendingCall(context.database, call.toolCallId);
  if (row === undefined) return undefined;
  return waitForConnection(context, call, account, row.expiresAt ? Date.parse(row.expiresAt) : Date.now(), previous.startedAt);
}

export type AccountRequest = {
  account: GatewayAccount;
  /** Why the call cannot go out now, for people. */
  reason: string;
  scopes: string[];
  /** The configured client, if any (else the gateway registers itself). */
  auth: Pick<GatewayAuth, "client">;
  /** Where the tokens come from. */
  authority(): Promise<{ ok: true; discovery: OAuthDiscovery } | { ok: false; error: string }>;
  waitMs: number;
  executionType: string;
};

/** Begins the person's flow, makes the call a pending call with a card that asks them, and waits for them. */
export async function askToConnect(context: PendingCallContext, call: InlineCall, request: AccountRequest): Promise<ToolOutcome> {
  const { card } = call;
  const { account } = request;
  const gatewayOrigin = gatewayOriginOf(context);
  const notConnected = `${account.serviceName} is not connected for the person who asked (${request.reason})`;
  if (card === undefined) return failed(`${notConnected}, and this call shows in no space where they could connect it`, "permission");
  if (gatewayOrigin === undefined) return failed(`${notConnected}, and the gateway does not know its public address to send them to (set PUBLIC_URL)`, "permission");
  const startedAt = Date.now();
  const deadline = startedAt + request.waitMs;
  // Calls of this isolate that need the same account at once (two in one step) share one flow; calls elsewhere
  // may begin another, and connecting through either resumes them all (the callback finds them by their account).
  const flow = await flowLock.run(JSON.stringify([account.entityId, account.connectionKey]), () => flowFor(context, call, request, gatewayOrigin, startedAt, deadline));
  if (!flow.ok) return failed(`${notConnected}, and ${flow.error}`, "upstream");

  const expiresAt = new Date(deadline).toISOString();
  await createPendingCall(context.database, {
    toolCallId: call.toolCallId,
    modelToolCallId: call.modelToolCallId,
    runId: context.runId,
    agentId: context.agent.agentId,
    agentEntityId: context.agent.entityId,
    toolName: call.toolName,
    executionType: request.executionType,
    args: call.args,
    status: "waiting",
    expiresAt,
    initiatorEntityId: account.entityId,
    accountKey: account.connectionKey,
    // The request made once the person connects, from the agent object, carries the call's trace.
    ...(call.span?.traceparent !== undefined && { traceparent: call.span.traceparent }),
  });
  context.toolRuntime.deadlines.set({ id: `expiry:${call.toolCallId}`, kind: "call_expiry", dueAt: deadline + backstopGraceMs, payload: { toolCallId: call.toolCallId } });
  const accountPart = { entityId: account.entityId, service: account.serviceName, scopes: flow.scopes, flowId: flow.flowId, expiresAt };
  await context.spaceEvents
    .ordered(card.spaceId)
    .updateToolPart(
      card.messageId,
      call.toolCallId,
      { status: "requires_action", answeredBy: { kind: "initiator", entityId: account.entityId }, account: accountPart },
      "requires_action",
    );
  context.publish("tool.pending", {
    runId: context.runId,
    toolCallId: call.toolCallId,
    modelToolCallId: call.modelToolCallId,
    toolName: call.toolName,
    executionType: request.executionType,
    args: call.args,
    status: "waiting",
    expiresAt,
    spaceId: card.spaceId,
    messageId: card.messageId,
    account: accountPart,
  });
  // An A2A task waiting on this is `auth-required`: its push configs hear so. Not webhook subscriptions: no answer they could send settles it.
  context.toolRuntime.outbox.notify(
    {
      id: `evt_${call.toolCallId}_awaiting_account`,
      type: "call.awaiting_input",
      timestamp: new Date().toISOString(),
      data: { agentId: context.agent.agentId, kind: "account", runId: context.runId, toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, expiresAt },
    },
    [],
    true,
  );
  context.journal.markAnnounced(call.toolCallId);
  return waitForConnection(context, call, account, deadline, startedAt);
}

/**
 * The flow the person connects through: one already open for the same
 * person and connection that asks for every scope this call needs (a
 * second call that needs the account waits on it, made to last as long as
 * this call waits), else a new one linked to this call. The start link of a
 * new one is dropped here: the person gets their own from the flow's route,
 * nobody else ever sees one.
 */
async function flowFor(
  context: PendingCallContext,
  call: InlineCall,
  request: AccountRequest,
  gatewayOrigin: string,
  now: number,
  deadline: number,
): Promise<{ ok: true; flowId: string; scopes: string[] } | { ok: false; error: string }> {
  const { account } = request;
  const flows = new FlowStore(context.database, await tokenCipherFor(context.env));
  const open = await flows.adoptOpen(account.entityId, account.connectionKey, deadline, now);
  if (open !== undefined && request.scopes.every((scope) => open.scopes.includes(scope))) return { ok: true, flowId: open.flowId, scopes: open.scopes };

  const authority = await request.authority();
  if (!authority.ok) return { ok: false, error: `the authorization server cannot be used: ${authority.error}` };
  const registration = await registrationFor(request.auth, authority.discovery, gatewayOrigin, context.env, request.scopes);
  if (!registration.ok) return { ok: false, error: `the gateway cannot sign in there: ${registration.error.message}` };
  const scopes = request.scopes.length > 0 ? request.scopes : authority.discovery.scopes;
  const began = await beginAccountFlow(context.env, {
    entityId: account.entityId,
    connectionKey: account.connectionKey,
    serviceName: account.serviceName,
    gatewayOrigin,
    discovery: authority.discovery,
    registration: registration.value,
    scopes,
    waiting: { agentId: context.agent.agentId, toolCallId: call.toolCallId },
    lifetimeMs: deadline - now,
    now,
  });
  return began.ok ? { ok: true, flowId: began.value.flowId, scopes } : { ok: false, error: `connecting could not begin: ${began.error.message}` };
}

async function waitForConnection(context: PendingCallContext, call: InlineCall, account: GatewayAccount, deadline: number, startedAt: number): Promise<ToolOutcome> {
  const calls = context.toolRuntime.calls;
  const outcome = await calls.await(call.toolCallId, deadline, call.abortSignal);
  if (outcome) return outcome;
  // The cycle itself ended (its deadline, a delete): the call stays for whoever comes next.
  if (call.abortSignal?.aborted) return failed(`The wait for "${call.toolName}" ended with its cycle`);
  const reason = nobodyConnected(account, call.toolName, deadline - startedAt);
  await calls.expire(call.toolCallId, reason);
  // Settled just before (the person connected as time ran out): that outcome stands.
  return (await calls.await(call.toolCallId, 0)) ?? failed(reason, "timeout");
}
