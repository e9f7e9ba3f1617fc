/**
 * A request that acts as an account's owner (a gateway tool's, an OpenAPI
 * operation's, with `auth`): the owner (the person whose message started the
 * run, or the agent itself), a call already waiting for their account taken
 * up again, then the request sent with their token (`send-as-person.ts`).
 * Without a token, a person is asked to connect where they are
 * (`engine/ask-to-connect.ts`); an agent's own account is an operator's to
 * connect, and the model is told how.
 */
import { accountWaitDefaultMs, askToConnect, gatewayOriginOf, resumeAccountWait } from "../engine/ask-to-connect";
import type { InlineCall } from "../engine/resolved-tool";
import type { PendingCallContext } from "../engine/run-pending-call";
import type { SettingsAccess } from "../engine/tool-context";
import { failed, type ToolOutcome } from "../engine/tool-outcome";
import type { GatewayAuth } from "../config/gateway-auth-config";
import type { GatewayToolResult, SendOptions } from "./execute-gateway-tool";
import { accountOwnerOf, agentNotConnected, type AsPersonOptions, type AsPersonResult, clientCredentialsGrant, type GatewayAccount, gatewayAuthority } from "./send-as-person";

export type AccountOwnerRequest = {
  auth: GatewayAuth;
  /** The account the request uses for this owner; undefined when the configured URL cannot name one. */
  account: (entityId: string) => GatewayAccount | undefined;
  /** What the model is told when `account` gives none. */
  noAccount: string;
  send: (account: GatewayAccount, options: AsPersonOptions) => Promise<AsPersonResult>;
  options: SendOptions;
  /** What an operator names to connect an agent's own account (`POST /api/agents/:agentId/connections`). */
  connectWith: { tool: string } | { provider: string };
  /** How long a person is waited for; the default when the config sets none. */
  waitMs?: number;
  executionType: "gateway" | "openapi";
};

/** A request's answer as the call's outcome (an empty answer is `null`). */
function outcomeOf(result: GatewayToolResult): Extract<ToolOutcome, { type: "ok" | "error" }> {
  return result.ok ? { type: "ok", value: result.value === undefined ? null : result.value } : { type: "error", message: result.error, kind: result.kind };
}

export async function actAsAccountOwner(context: PendingCallContext & SettingsAccess, call: InlineCall, request: AccountOwnerRequest): Promise<ToolOutcome> {
  const { auth } = request;
  const entityId = accountOwnerOf(auth, context);
  if (entityId === undefined) {
    return failed(
      `"${call.toolName}" acts as the person who asked for it, and no person's message started this run (it came from an event from outside): there is no one whose account it could use`,
      "permission",
    );
  }
  const account = request.account(entityId);
  if (account === undefined) return failed(request.noAccount, "validation");
  const waiting = await resumeAccountWait(context, call, account);
  if (waiting !== undefined) return waiting;

  const authority = () => gatewayAuthority(auth, context.env);
  const grant = clientCredentialsGrant(auth, authority, context.env);
  const sent = await request.send(account, { ...request.options, env: context.env, gatewayOrigin: gatewayOriginOf(context), grant });
  if (sent.kind === "sent") return outcomeOf(sent.result);
  if (sent.kind === "failed") return failed(sent.error, sent.failureKind);
  // The agent's own account: nobody to ask now; an operator connects it.
  if (auth.owner === "agent") return failed(agentNotConnected(account.serviceName, sent.reason, auth, context.agent.agentId, request.connectWith), "permission");
  return askToConnect(context, call, {
    account,
    reason: sent.reason,
    scopes: sent.scopes,
    auth,
    authority,
    waitMs: request.waitMs ?? accountWaitDefaultMs,
    executionType: request.executionType,
  });
}

/** What a request sent once the person connected (from the agent object) settles its call with. */
export function resumedOutcome(sent: AsPersonResult, serviceName: string): Extract<ToolOutcome, { type: "ok" | "error" }> {
  if (sent.kind === "sent") return outcomeOf(sent.result);
  if (sent.kind === "failed") return { type: "error", message: sent.error, kind: sent.failureKind };
  return { type: "error", message: `${serviceName} was connected, and still refused: ${sent.reason}`, kind: "permission" };
}
