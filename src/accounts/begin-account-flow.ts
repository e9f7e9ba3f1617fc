/**
 * Begins connecting an account: the authorization URL made (`beginFlow`),
 * the flow kept durably (`FlowStore`), and the gateway link to give the
 * person it is for: `GET /oauth/start/<flow id>?t=<start token>`, which
 * works once, binds the flow to the browser that opens it, and sends that
 * browser on to the authorization server. The link is the person's alone:
 * show it to them only.
 */
import { getDatabase } from "../db/client";
import type { OAuthDiscovery } from "./oauth-discovery";
import { failure, type OAuthResult } from "./oauth-failure";
import { beginFlow } from "./oauth-flow";
import { gatewayOAuthUrls, type OAuthRegistration } from "./oauth-registration";
import { type FlowWaiter, FlowStore } from "./flow-store";
import { tokenCipherFor } from "./token-cipher";

/** Where the start link points, on the gateway's own origin. */
export const oauthStartPath = "/oauth/start";

export type BeginAccountFlowInput = {
  /** Whose account it connects. */
  entityId: string;
  /** The service: an MCP server's resource URL or a provider's name. */
  connectionKey: string;
  /** The service's name for people (on the page that ends the flow); the connection key when absent. */
  serviceName?: string;
  /** Where people and the authorization server reach the gateway. */
  gatewayOrigin: string;
  discovery: OAuthDiscovery;
  registration: OAuthRegistration;
  /** The scopes to ask for; the discovery's when absent. */
  scopes?: string[];
  waiting?: FlowWaiter;
  lifetimeMs?: number;
  now?: number;
};

/** The start link of a flow, with its one-time start token. */
export function startLink(gatewayOrigin: string, flowId: string, startToken: string): string {
  return `${gatewayOrigin}${oauthStartPath}/${encodeURIComponent(flowId)}?t=${encodeURIComponent(startToken)}`;
}

export type BeganAccountFlow = { flowId: string; startUrl: string; expiresAt: string };

/** A flow begun and kept; `flow_refused` when it cannot start (the entity is gone, the metadata does not allow it). Throws only when D1 or `ACCOUNTS_KEYS` fails. */
export async function beginAccountFlow(env: { DB: D1Database; ACCOUNTS_KEYS?: unknown }, input: BeginAccountFlowInput): Promise<OAuthResult<BeganAccountFlow>> {
  let origin: string;
  try {
    origin = new URL(input.gatewayOrigin).origin;
  } catch {
    return failure("flow_refused", "The gateway's public origin is not a URL");
  }
  const began = await beginFlow({
    server: input.discovery.server,
    registration: input.registration,
    redirectUri: gatewayOAuthUrls(origin).redirectUri,
    scopes: input.scopes ?? input.discovery.scopes,
    resource: input.discovery.resource,
  });
  if (!began.ok) return began;
  const store = new FlowStore(getDatabase(env.DB), await tokenCipherFor(env));
  const created = await store.create({
    entityId: input.entityId,
    connectionKey: input.connectionKey,
    serviceName: input.serviceName ?? input.discovery.resourceName,
    flow: began.value.flow,
    authorizationUrl: began.value.authorizationUrl,
    waiting: input.waiting,
    lifetimeMs: input.lifetimeMs,
    now: input.now,
  });
  if (!created.ok) return failure("flow_refused", `Entity "${input.entityId}" does not exist`);
  const startUrl = startLink(origin, created.flowId, created.startToken);
  return { ok: true, value: { flowId: created.flowId, startUrl, expiresAt: created.expiresAt } };
}
