/**
 * A flow begun as the gateway begins one (`beginAccountFlow`), against the
 * fake authorization server `https://auth.test` (test/fake-remote.ts answers
 * its token endpoint), for a new person unless one is named.
 */
import { env } from "cloudflare:workers";
import { type BeginAccountFlowInput, beginAccountFlow } from "../../src/accounts/begin-account-flow";
import { FlowStore } from "../../src/accounts/flow-store";
import type { AuthorizationServer } from "../../src/accounts/oauth-discovery";
import { tokenCipherFor } from "../../src/accounts/token-cipher";
import { getDatabase } from "../../src/db/client";
import { createHuman } from "../support/api";

export const testIssuer = "https://auth.test";

export const testServer: AuthorizationServer = {
  issuer: testIssuer,
  authorizationEndpoint: `${testIssuer}/authorize`,
  tokenEndpoint: `${testIssuer}/token`,
  clientIdMetadataDocumentSupported: false,
  issParameterSupported: true,
};

export type TestFlow = { flowId: string; startUrl: string; entityId: string; connectionKey: string };

export async function beginTestFlow(overrides: Partial<BeginAccountFlowInput> & { server?: AuthorizationServer } = {}): Promise<TestFlow> {
  const entityId = overrides.entityId ?? (await createHuman("Flow owner"));
  const connectionKey = overrides.connectionKey ?? `https://files-${crypto.randomUUID()}.example.com/mcp`;
  const began = await beginAccountFlow(env, {
    entityId,
    connectionKey,
    serviceName: "Files <Test>",
    gatewayOrigin: "http://gateway.test",
    discovery: { server: overrides.server ?? testServer, resource: connectionKey, scopes: ["files:read"] },
    registration: { method: "metadata_document", clientId: "http://gateway.test/oauth/client-metadata.json" },
    ...overrides,
  });
  if (!began.ok) throw new Error(began.error.message);
  return { flowId: began.value.flowId, startUrl: began.value.startUrl, entityId, connectionKey };
}

/** The start link opened through the store (not the route): the authorization URL and the browser's secret. */
export async function startFlow(flow: TestFlow): Promise<{ authorizationUrl: string; browserSecret: string }> {
  const store = new FlowStore(getDatabase(env.DB), await tokenCipherFor(env));
  const started = await store.start(flow.flowId, new URL(flow.startUrl).searchParams.get("t") ?? "");
  if (!started.ok) throw new Error(started.message);
  return started;
}
