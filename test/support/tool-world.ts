/** A person, a space and a scripted agent with tools, wired up for tool-engine tests. */
import { env } from "cloudflare:workers";
import { callJson, createHuman, createSpace, secret } from "./api";
import { createAgent, type ScriptedTurn } from "./agents";
import { openSse } from "./stream-client";

export async function toolWorld(tools: unknown[], turns: (spaceId: string) => ScriptedTurn[], limits: Record<string, unknown> = {}) {
  const person = await createHuman("Pat");
  const spaceId = await createSpace([person]);
  const agent = await createAgent({
    agent: { name: "Toolsmith" },
    model: { provider: "scripted", turns: turns(spaceId) },
    tools,
    ...(Object.keys(limits).length > 0 && { limits }),
  });
  await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
  const agentStream = await openSse(`/api/agents/${agent.id}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
  const spaceStream = await openSse(`/api/spaces/${spaceId}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
  const wake = () => secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { go: true } } });
  // Both streams close themselves when the test ends (`openSse`); `close` is for a test that wants them shut sooner.
  const close = () => {
    agentStream.close();
    spaceStream.close();
  };
  return { person, spaceId, agent, agentStream: agentStream.collector, spaceStream: spaceStream.collector, wake, close };
}

export async function submitResult(runId: string, callId: string, result: unknown, headers: Record<string, string> = { "x-secret-key": env.GATEWAY_SECRET_KEY }) {
  return callJson<{ success?: boolean; duplicate?: boolean; agentEntityId?: string; error?: { code: string; message: string } }>(`/api/runs/${runId}/tool-results`, {
    body: { callId, result },
    headers,
  });
}

export const enter = (spaceId: string) => ({ name: "enter_space", args: { spaceId } });
export const skip = { name: "skip", args: {} };
