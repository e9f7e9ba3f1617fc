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
import type { PendingCall } from "../engine/pending-calls";
import type { PendingCallContext } from "../engine/run-pending-call";
import type { InlineCall } from "../engine/resolved-tool";
import type { SettingsAccess } from "../engine/tool-context";
import type { ToolOutcome } from "../engine/tool-outcome";
import { actAsAccountOwner, resumedOutcome } from "./act-as-account-owner";
import type { SendOptions } from "./execute-gateway-tool";
import { gatewayAccount, sendAsPerson } from "./send-as-person";

type PersonGateway = Extract<ToolConfig, { executionType: "gateway" }> & { execution: { auth: GatewayAuth } };

/** A gateway tool that acts as a person. */
export function actsAsPerson(config: ToolConfig): config is PersonGateway {
  return config.executionType === "gateway" && config.execution.auth !== undefined;
}

export function runGatewayAsPerson(context: PendingCallContext & SettingsAccess, config: PersonGateway, call: InlineCall, send: SendOptions): Promise<ToolOutcome> {
  return actAsAccountOwner(context, call, {
    auth: config.execution.auth,
    account: (entityId) => gatewayAccount(config.execution, entityId),
    noAccount: "The tool's URL must be an absolute http(s) URL",
    send: (account, options) => sendAsPerson(config.execution, call.args, account, options),
    options: send,
    connectWith: { tool: config.name },
    waitMs: config.timeout,
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
  return resumedOutcome(sent, account.serviceName);
}
