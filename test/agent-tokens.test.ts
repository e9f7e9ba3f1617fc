/**
 * Agents speak only through their cycles: a JWT whose `sub` is an agent's
 * entity is refused on every route (403, the envelope, nothing written),
 * while people's tokens keep working.
 */
import { describe, expect, it } from "vitest";
import { createAgent } from "./support/agents";
import { call, createHuman, createSpace, memberHeaders, secret } from "./support/api";
import { countRows, spaceSeq } from "./support/database-state";
import { readErrorEnvelope } from "./support/error-envelope";
import { minimalAgentConfig } from "./support/minimal-agent-config";

async function agentInSpace() {
  const person = await createHuman("Pat");
  const agent = await createAgent(minimalAgentConfig);
  const spaceId = await createSpace([person, agent.entityId]);
  return { person, agent, spaceId };
}

describe("a token whose subject is an agent", () => {
  it("cannot post as the agent (role assistant): 403, and nothing is written or broadcast", async () => {
    const { agent, spaceId } = await agentInSpace();
    const before = { rows: await countRows(), seq: await spaceSeq(spaceId) };
    const response = await call(`/api/spaces/${spaceId}/messages`, { headers: await memberHeaders(agent.entityId), body: { text: "I am the assistant now" } });
    expect(response.status).toBe(403);
    const body = await readErrorEnvelope(response, "forbidden");
    expect(body.error.message).toContain("agents act only through their own cycles");
    expect({ rows: await countRows(), seq: await spaceSeq(spaceId) }).toEqual(before);
  });

  it("is refused on every route a token may use", async () => {
    const { agent, spaceId } = await agentInSpace();
    const headers = await memberHeaders(agent.entityId);
    const requests: [string, Parameters<typeof call>[1]][] = [
      [`/api/spaces/${spaceId}/messages`, { headers }],
      [`/api/spaces/${spaceId}`, { headers }],
      ["/api/spaces", { headers }],
      [`/api/spaces/${spaceId}/stream`, { headers: { ...headers, accept: "text/event-stream" } }],
      [`/api/spaces/${spaceId}/stream`, { headers: { ...headers, upgrade: "websocket" } }],
      ["/api/runs/run_unknown/tool-results", { headers, body: { callId: "call_unknown", result: 1 } }],
      [`/api/agents/${agent.id}`, { headers }],
    ];
    for (const [path, options] of requests) {
      const response = await call(path, options);
      expect(response.status, path).toBe(403);
      await readErrorEnvelope(response, "forbidden");
    }
  });

  it("a person's token in the same space still works, and the secret key still speaks for the agent's space", async () => {
    const { person, spaceId } = await agentInSpace();
    const posted = await call(`/api/spaces/${spaceId}/messages`, { headers: await memberHeaders(person), body: { text: "hello" } });
    expect(posted.status).toBe(201);
    expect(((await posted.json()) as { role: string }).role).toBe("user");
    const again = await call(`/api/spaces/${spaceId}/messages`, { headers: await memberHeaders(person), body: { text: "hello again" } });
    expect(again.status).toBe(201);
    expect((await secret(`/api/spaces/${spaceId}/messages`)).status).toBe(200);
  });
});
