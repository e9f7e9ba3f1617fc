/**
 * A gateway tool call that acts as a person (`execution.auth`, owner
 * `person`): the person whose message started the run. Connected, the
 * request goes out with their token (`send-as-person.ts`). Not connected (or
 * revoked, or short of scopes), the call becomes a pending call that waits
 * until the tool's timeout (ten minutes when it sets none) for that person
 * to connect: a flow is begun for them, linked to this call, and the call's
 * card asks them (`account` on the card: the service, the scopes, the flow;
 * never the start link, which only they get from
 * `GET /api/me/connections/flows/{flowId}`).
 *
 * When the callback has stored their tokens it tells the agent object,
 * which sends the request once (`resumeGatewayAsPerson`, under the pending
 * call's lock) and settles the call with its answer; the waiting cycle goes
 * on with it. Nobody connected in time: the model is told so. Done again
 * after a restart, the call finds its flow begun and waits on, to the same
 * deadline.
 */
import { beginAccountFlow } from "../../accounts/begin-account-flow";
import type { AppEnv } from "../../env";
import type { GatewayAuth } from "../config/gateway-auth-config";
import type { GatewayExecutionInput, ToolConfig } from "../config/tool-config";
import { createPendingCall, getPendingCall, type PendingCall } from "../engine/pending-calls";
import type { PendingCallContext } from "../engine/run-pending-call";
import type { InlineCall } from "../engine/resolved-tool";
import type { SettingsAccess } from "../engine/tool-context";
import { failed, type ToolOutcome } from "../engine/tool-outcome";
import type { GatewayToolResult, SendOptions } from "./execute-gateway-tool";
import { type AsPersonResult, type GatewayAccount, gatewayAccount, gatewayAuthority, registrationFor, sendAsPerson } from "./send-as-person";

/** How long a call waits for a person to connect when the tool sets no `timeout`. */
export const accountWaitDefaultMs = 10 * 60_000;

/** After the deadline, the alarm's backstop expires a call nobody waits for any more. */
const backstopGraceMs = 1_000;

type PersonGateway = Extract<ToolConfig, { executionType: "gateway" }> & { execution: { auth: GatewayAuth } };

/** A gateway tool that acts as a person. */
export function actsAsPerson(config: ToolConfig): config is PersonGateway {
  return config.executionType === "gateway" && config.execution.auth !== undefined;
}

function outcomeOf(result: GatewayToolResult): Extract<ToolOutcome, { type: "ok" | "error" }> {
  return result.ok ? { type: "ok", value: result.value === undefined ? null : result.value } : { type: "error", message: result.error, kind: result.kind };
}

function gatewayOriginOf(context: { publicOrigin?(): string | undefined; env: AppEnv }): string | undefined {
  const configured = context.env.PUBLIC_URL;
  return (typeof configured === "string" && configured !== "" ? configured : undefined) ?? context.publicOrigin?.();
}

const nobodyConnected = (account: GatewayAccount, toolName: string, waitedMs: number) =>
  `Nobody connected ${account.serviceName} in time: "${toolName}" waited ${Math.round(waitedMs / 1000)}s for the person who asked to connect their account, and was not run`;

export async function runGatewayAsPerson(context: PendingCallContext & SettingsAccess, config: PersonGateway, call: InlineCall, send: SendOptions): Promise<ToolOutcome> {
  const entityId = context.initiatorEntityId;
  if (entityId === undefined) {
    return failed(
      `"${call.toolName}" acts as the person who asked for it, and no person's message started this run (it came from an event from outside): there is no one whose account it could use`,
      "permission",
    );
  }
  const account = gatewayAccount(config.execution, entityId);
  if (account === undefined) return failed("The tool's URL must be an absolute http(s) URL", "validation");
  const gatewayOrigin = gatewayOriginOf(context);

  // Done again after a restart: the flow was begun and the card shows it; wait on to the same deadline.
  const previous = context.journal.previous(call.toolCallId);
  if (previous?.announced) {
    const row = await getPendingCall(context.database, call.toolCallId);
    if (row !== undefined) return waitForConnection(context, call, account, row.expiresAt ? Date.parse(row.expiresAt) : Date.now(), previous.startedAt);
  }

  const sent = await sendAsPerson(config.execution, call.args, account, { ...send, env: context.env, gatewayOrigin });
  if (sent.kind === "sent") return outcomeOf(sent.result);
  if (sent.kind === "failed") return failed(sent.error, sent.failureKind);
  return askToConnect(context, config, call, account, sent, gatewayOrigin);
}

async function askToConnect(
  context: PendingCallContext & SettingsAccess,
  config: PersonGateway,
  call: InlineCall,
  account: GatewayAccount,
  needed: Extract<AsPersonResult, { kind: "not_connected" }>,
  gatewayOrigin: string | undefined,
): Promise<ToolOutcome> {
  const { card } = call;
  const notConnected = `${account.serviceName} is not connected for the person who asked (${needed.reason})`;
  if (card === undefined) return failed(`${notConnected}, and this call shows in no space where they could connect it`, "permission");
  if (gatewayOrigin === undefined) return failed(`${notConnected}, and the gateway does not know its public address to send them to (set PUBLIC_URL)`, "permission");
  const authority = await gatewayAuthority(config.execution.auth, context.env);
  if (!authority.ok) return failed(`${notConnected}, and the authorization server cannot be used: ${authority.error}`, "upstream");
  const registration = await registrationFor(config.execution.auth, authority.discovery, gatewayOrigin, context.env, needed.scopes);
  if (!registration.ok) return failed(`${notConnected}, and the gateway cannot sign in there: ${registration.error.message}`, "upstream");

  const startedAt = Date.now();
  const waitMs = config.timeout ?? accountWaitDefaultMs;
  const deadline = startedAt + waitMs;
  const began = await beginAccountFlow(context.env, {
    entityId: account.entityId,
    connectionKey: account.connectionKey,
    serviceName: account.serviceName,
    gatewayOrigin,
    discovery: authority.discovery,
    registration: registration.value,
    scopes: needed.scopes,
    waiting: { agentId: context.agent.agentId, toolCallId: call.toolCallId },
    lifetimeMs: waitMs,
    now: startedAt,
  });
  // The start link is dropped here: the person gets their own from the flow's route, nobody else ever sees one.
  if (!began.ok) return failed(`${notConnected}, and connecting could not begin: ${began.error.message}`, "upstream");

  const expiresAt = new Date(deadline).toISOString();
  await createPendingCall(context.database, {
    toolCallId: call.toolCallId,
    modelToolCallId: call.modelToolCallId,
    runId: context.runId,
    agentId: context.agent.agentId,
    agentEntityId: context.agent.entityId,
    toolName: call.toolName,
    executionType: "gateway",
    args: call.args,
    status: "waiting",
    expiresAt,
    initiatorEntityId: account.entityId,
  });
  context.toolRuntime.deadlines.set({ id: `expiry:${call.toolCallId}`, kind: "call_expiry", dueAt: deadline + backstopGraceMs, payload: { toolCallId: call.toolCallId } });
  const request = { entityId: account.entityId, service: account.serviceName, scopes: needed.scopes, flowId: began.value.flowId, expiresAt };
  await context.spaceEvents
    .ordered(card.spaceId)
    .updateToolPart(
      card.messageId,
      call.toolCallId,
      { status: "requires_action", answeredBy: { kind: "initiator", entityId: account.entityId }, account: request },
      "requires_action",
    );
  context.publish("tool.pending", {
    runId: context.runId,
    toolCallId: call.toolCallId,
    modelToolCallId: call.modelToolCallId,
    toolName: call.toolName,
    executionType: "gateway",
    status: "waiting",
    expiresAt,
    spaceId: card.spaceId,
    messageId: card.messageId,
    account: request,
  });
  context.journal.markAnnounced(call.toolCallId);
  return waitForConnection(context, call, account, deadline, startedAt);
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

/**
 * The request of a call that waited for its person's account, sent now that
 * they connected it (from the agent object, under the call's lock): the
 * tool as the agent's config has it now. Its answer settles the call.
 */
export async function resumeGatewayAsPerson(
  env: AppEnv,
  tools: readonly ToolConfig[],
  call: PendingCall,
  options: { toolTimeoutMs: number; maxResponseBytes: number; gatewayOrigin?: string },
): Promise<Extract<ToolOutcome, { type: "ok" | "error" }>> {
  const tool = tools.find((candidate) => candidate.name === call.toolName);
  if (tool === undefined || !actsAsPerson(tool)) return { type: "error", message: `"${call.toolName}" no longer acts as a person: it was not run`, kind: "validation" };
  const entityId = call.initiatorEntityId;
  const account = entityId ? gatewayAccount(tool.execution, entityId) : undefined;
  if (account === undefined) return { type: "error", message: `"${call.toolName}" has no person to act as: it was not run`, kind: "permission" };
  const execution: GatewayExecutionInput & { auth: GatewayAuth } = tool.execution;
  const sent = await sendAsPerson(execution, call.args, account, {
    env,
    gatewayOrigin: options.gatewayOrigin,
    timeoutMs: tool.timeout ?? options.toolTimeoutMs,
    maxResponseBytes: tool.execution.maxResponseBytes ?? options.maxResponseBytes,
    extraHeaders: { "idempotency-key": call.toolCallId },
  });
  if (sent.kind === "sent") return outcomeOf(sent.result);
  if (sent.kind === "failed") return { type: "error", message: sent.error, kind: sent.failureKind };
  return { type: "error", message: `${account.serviceName} was connected, and still refused: ${sent.reason}`, kind: "permission" };
}
