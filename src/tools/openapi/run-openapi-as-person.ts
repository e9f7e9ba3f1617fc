/**
 * An OpenAPI operation that acts as a person (`auth` on the provider): sent
 * with that person's token for the base URL's origin (every operation of the
 * provider shares the connection), the way a gateway tool with `auth` is
 * (`gateway/send-as-person.ts`). Not connected, the call waits for them to
 * connect (`engine/ask-to-connect.ts`); once they have, the agent object
 * sends the request once (`resumeOpenApiAsPerson`) and settles the call.
 */
import type { AppEnv } from "../../env";
import { originOf } from "../../security/pinned-request";
import type { GatewayAuth } from "../config/gateway-auth-config";
import type { OpenApiProviderConfig } from "../config/provider-config";
import type { PendingCall } from "../engine/pending-calls";
import type { InlineCall } from "../engine/resolved-tool";
import type { PendingCallContext } from "../engine/run-pending-call";
import type { SettingsAccess } from "../engine/tool-context";
import type { ToolOutcome } from "../engine/tool-outcome";
import type { SendOptions } from "../gateway/execute-gateway-tool";
import { actAsAccountOwner, resumedOutcome } from "../gateway/act-as-account-owner";
import { type GatewayAccount, sendRequestAsPerson } from "../gateway/send-as-person";
import { loadOpenApiDocument } from "./openapi-document";
import { baseUrlOf, type OpenApiOperation, operationsOf } from "./openapi-operations";
import { buildOperationRequest } from "./run-openapi-operation";

export type PersonOpenApi = OpenApiProviderConfig & { auth: GatewayAuth };

export function actsAsPersonOpenApi(provider: OpenApiProviderConfig): provider is PersonOpenApi {
  return provider.auth !== undefined;
}

/** The account an operation uses: the base URL's origin is the connection key. */
function openApiAccount(provider: PersonOpenApi, baseUrl: string, entityId: string): GatewayAccount | undefined {
  const origin = originOf(baseUrl);
  return origin === undefined ? undefined : { entityId, connectionKey: origin, serviceName: provider.auth.service ?? origin };
}

type Target = { provider: PersonOpenApi; baseUrl: string; operation: OpenApiOperation };

function send(target: Target, args: unknown, account: GatewayAccount, options: Parameters<typeof sendRequestAsPerson>[3]) {
  const { provider, baseUrl, operation } = target;
  return sendRequestAsPerson(provider.auth, () => buildOperationRequest(operation, baseUrl, args, provider.headers, options.env), account, options);
}

export function runOpenApiAsPerson(context: PendingCallContext & SettingsAccess, target: Target, call: InlineCall, options: SendOptions): Promise<ToolOutcome> {
  return actAsAccountOwner(context, call, {
    auth: target.provider.auth,
    account: (entityId) => openApiAccount(target.provider, target.baseUrl, entityId),
    noAccount: "The provider's base URL is not an absolute http(s) URL",
    send: (account, sendOptions) => send(target, call.args, account, sendOptions),
    options,
    connectWith: { provider: target.provider.name },
    waitMs: target.provider.timeout,
    executionType: "openapi",
  });
}

/** The provider (with `auth`) and operation a call named, from the provider's document as it is now. */
async function targetOfCall(env: AppEnv, providers: readonly OpenApiProviderConfig[], toolName: string): Promise<Target | undefined> {
  for (const provider of providers) {
    if (!actsAsPersonOpenApi(provider)) continue;
    const loaded = await loadOpenApiDocument(provider, env);
    if (!loaded.ok) continue;
    const base = baseUrlOf(loaded.document, provider, loaded.specUrl);
    if (!base.ok) continue;
    const operation = operationsOf(loaded.document, provider).operations.find((candidate) => candidate.name === toolName);
    if (operation !== undefined) return { provider, baseUrl: base.baseUrl, operation };
  }
  return undefined;
}

/**
 * The request of an operation's call that waited for its person's account,
 * sent now that they connected it (from the agent object, under the call's
 * lock): the provider as the agent's config has it now. Its answer settles
 * the call.
 */
export async function resumeOpenApiAsPerson(
  env: AppEnv,
  providers: readonly OpenApiProviderConfig[],
  call: PendingCall,
  options: { toolTimeoutMs: number; maxResponseBytes: number; gatewayOrigin?: string },
): Promise<Extract<ToolOutcome, { type: "ok" | "error" }>> {
  const entityId = call.initiatorEntityId;
  if (!entityId) return { type: "error", message: `"${call.toolName}" has no person to act as: it was not run`, kind: "permission" };
  const target = await targetOfCall(env, providers, call.toolName);
  if (target === undefined) return { type: "error", message: `"${call.toolName}" is no longer an operation that acts as a person: it was not run`, kind: "validation" };
  const account = openApiAccount(target.provider, target.baseUrl, entityId);
  if (account === undefined) return { type: "error", message: "The provider's base URL is not an absolute http(s) URL", kind: "validation" };
  const sent = await send(target, call.args, account, {
    env,
    gatewayOrigin: options.gatewayOrigin,
    timeoutMs: target.provider.timeout ?? options.toolTimeoutMs,
    maxResponseBytes: target.provider.maxResponseBytes ?? options.maxResponseBytes,
    // The span of the call that waited (kept with the pending call): the request is still that call's.
    extraHeaders: { "idempotency-key": call.toolCallId, ...(call.traceparent !== null && { traceparent: call.traceparent }) },
  });
  return resumedOutcome(sent, account.serviceName);
}
