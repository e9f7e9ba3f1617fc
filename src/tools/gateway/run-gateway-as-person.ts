/**
 * A gateway tool call that acts as a person (`execution.auth`, owner
 * `person`): the person whose message started the run. Connected, the
 * request goes out with their token (`send-as-person.ts`). Not connected (or
 * revoked, or short of scopes), the call waits for that person to connect
 * (`engine/ask-to-connect.ts`); when they have, the agent object sends the
 * request once (`resumeGatewayAsPerson`, under the pending call's lock) and
 * settles the call with its answer.
 */
import type { AppEnv } from "../../env";
import type { GatewayAuth } from "../config/gateway-auth-config";
import type { GatewayExecutionInput, ToolConfig } from "../config/tool-config";
import { accountWaitDefaultMs, askToConnect, gatewayOriginOf, resumeAccountWait } from "../engine/ask-to-connect";
import type { PendingCall } from "../engine/pending-calls";
import type { PendingCallContext } from "../engine/run-pending-call";
import type { InlineCall } from "../engine/resolved-tool";
import type { SettingsAccess } from "../engine/tool-context";
import { failed, type ToolOutcome } from "../engine/tool-outcome";
import type { GatewayToolResult, SendOptions } from "./execute-gateway-tool";
import { accountOwnerOf, agentNotConnected, clientCredentialsGrant, gatewayAccount, gatewayAuthority, sendAsPerson } from "./send-as-person";

type PersonGateway = Extract<ToolConfig, { executionType: "gateway" }> & { execution: { auth: GatewayAuth } };

/** A gateway tool that acts as a person. */
export function actsAsPerson(config: ToolConfig): config is PersonGateway {
  return config.executionType === "gateway" && config.execution.auth !== undefined;
}

function outcomeOf(result: GatewayToolResult): Extract<ToolOutcome, { type: "ok" | "error" }> {
  return result.ok ? { type: "ok", value: result.value === undefined ? null : result.value } : { type: "error", message: result.error, kind: result.kind };
}

export async function runGatewayAsPerson(context: PendingCallContext & SettingsAccess, config: PersonGateway, call: InlineCall, send: SendOptions): Promise<ToolOutcome> {
  const { auth } = config.execution;
  const entityId = accountOwnerOf(auth, context);
  if (entityId === undefined) {
    return failed(
      `"${call.toolName}" acts as the person who asked for it, and no person's message started this run (it came from an event from outside): there is no one whose account it could use`,
      "permission",
    );
  }
  const account = gatewayAccount(config.execution, entityId);
  if (account === undefined) return failed("The tool's URL must be an absolute http(s) URL", "validation");

  const waiting = await resumeAccountWait(context, call, account);
  if (waiting !== undefined) return waiting;

  const grant = clientCredentialsGrant(auth, () => gatewayAuthority(auth, context.env), context.env);
  const sent = await sendAsPerson(config.execution, call.args, account, { ...send, env: context.env, gatewayOrigin: gatewayOriginOf(context), grant });
  if (sent.kind === "sent") return outcomeOf(sent.result);
  if (sent.kind === "failed") return failed(sent.error, sent.failureKind);
  // The agent's own account: nobody to ask now; an operator connects it.
  if (auth.owner === "agent") return failed(agentNotConnected(account.serviceName, sent.reason, auth, context.agent.agentId, { tool: config.name }), "permission");
  return askToConnect(context, call, {
    account,
    reason: sent.reason,
    scopes: sent.scopes,
    auth: config.execution.auth,
    authority: () => gatewayAuthority(config.execution.auth, context.env),
    waitMs: config.timeout ?? accountWaitDefaultMs,
    executionType: "gateway",
  });
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
    // The span of the call that waited (kept with the pending call): the request is still that call's.
    extraHeaders: { "idempotency-key": call.toolCallId, ...(call.traceparent !== null && { traceparent: call.traceparent }) },
  });
  if (sent.kind === "sent") return outcomeOf(sent.result);
  if (sent.kind === "failed") return { type: "error", message: sent.error, kind: sent.failureKind };
  return { type: "error", message: `${account.serviceName} was connected, and still refused: ${sent.reason}`, kind: "permission" };
}
