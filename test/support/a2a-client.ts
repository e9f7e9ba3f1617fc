/**
 * The A2A SDK's own client (`@a2a-js/sdk/client`, fetch-based), talking to
 * the gateway's A2A face in-process: its card resolver and JSON-RPC
 * transport fetch through the Worker's exported handler, with the given
 * credentials on every request. `a2aRpc` sends one raw JSON-RPC POST.
 */
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { exports } from "cloudflare:workers";

export const a2aOrigin = "http://gateway.test";

function gatewayFetch(headers: Record<string, string>): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
    return exports.default.fetch(request);
  };
}

/** A client made the way an A2A caller makes one: from the agent's card, found under its endpoint. */
export async function a2aClient(agentId: string, headers: Record<string, string>): Promise<Client> {
  const fetchImpl = gatewayFetch(headers);
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
  return factory.createFromUrl(`${a2aOrigin}/a2a/agents/${agentId}/`);
}

export async function a2aRpc(agentId: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await exports.default.fetch(
    new Request(`${a2aOrigin}/a2a/agents/${agentId}`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
