/** A person, a space and a scripted agent with any config extras (MCP servers, providers, queues), for provider tests. */
import { env } from "cloudflare:workers";
import { createHuman, createSpace, secret } from "./api";
import { createAgent, type ScriptedTurn } from "./agents";
import { openSse } from "./stream-client";

export async function providerWorld(extra: Record<string, unknown>, turns: (spaceId: string) => ScriptedTurn[]) {
  const person = await createHuman("Pat");
  const spaceId = await createSpace([person]);
  const agent = await createAgent({ agent: { name: "Provided" }, model: { provider: "scripted", turns: turns(spaceId) }, ...extra });
  await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
  const agentStream = await openSse(`/api/agents/${agent.id}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
  const spaceStream = await openSse(`/api/spaces/${spaceId}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
  const wake = (data: unknown = { go: true }) => secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data } });
  // Both streams close themselves when the test ends (`openSse`); `close` is for a test that wants them shut sooner.
  const close = () => {
    agentStream.close();
    spaceStream.close();
  };
  return { person, spaceId, agent, agentStream: agentStream.collector, spaceStream: spaceStream.collector, wake, close };
}

/** What a fake MCP server saw (`test/fake-mcp.ts`). */
export async function mcpSeen(id: string): Promise<{ initializes: number; lists: number; calls: Record<string, number>; deletes: string[]; requests: number; sessions: number }> {
  return (await (await fetch(`http://mcp.test/admin/${id}`)).json()) as never;
}

export async function fakeJson<T>(url: string, init?: RequestInit): Promise<T> {
  return (await (await fetch(url, init)).json()) as T;
}
