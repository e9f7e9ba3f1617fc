import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { agentObject, agentState, waitUntil } from "../support/agents";
import { submitResult, toolWorld } from "../support/tool-world";

describe("deleting an agent", () => {
  it("mid-wait: its open calls expire (a later result gets 410), its retries and alarm stop, and its object stays usable", async () => {
    const hookId = `down-${crypto.randomUUID()}`;
    const tool = {
      name: "fetchData",
      description: "Ask the external service",
      executionType: "external",
      visible: false,
      timeout: 20_000,
      inputSchema: { type: "object" },
      execution: { webhook: `http://hooks.test/down/1000/${hookId}` },
    };
    const world = await toolWorld([tool], () => [{ toolCalls: [{ name: "fetchData", args: {} }] }]);
    await world.wake();
    const { runId, toolCallId } = (await world.agentStream.waitForType("tool.webhook.failed")).data as { runId: string; toolCallId: string };
    const pending = (await world.agentStream.waitForType("tool.pending")).data as { runId: string };

    expect((await secret(`/api/agents/${world.agent.id}`, { method: "DELETE" })).status).toBe(200);
    const late = await submitResult(pending.runId ?? runId, toolCallId, { too: "late" });
    expect(late.status).toBe(410);
    const row = await env.DB.prepare("SELECT status FROM pending_tool_calls WHERE tool_call_id = ?").bind(toolCallId).first<{ status: string }>();
    expect(row?.status).toBe("expired");
    // A deleted agent's routes answer 404: what its object still holds is read inside it.
    await waitUntil(
      async () => {
        const state = await agentState(world.agent.id);
        return state.deadlines.length === 0 && state.alarm === null && state.activeRun === undefined && state.pending === 0;
      },
      5_000,
      "the object forgets the agent",
    );
    // A request that races the delete finds an empty object, never a broken one.
    await expect(agentObject(world.agent.id).deliver({ type: "external", data: { late: true } })).resolves.toMatchObject({ eventId: expect.any(String) });
    await waitUntil(async () => (await agentState(world.agent.id)).pending === 0, 5_000, "the stray event is dropped for the deleted agent");
    expect((await secret(`/api/agents/${world.agent.id}/inbox`, { body: { type: "external", data: {} } })).status).toBe(404);
    world.close();
  });

  it("its notes and stored outputs go with it", async () => {
    const { createAgent } = await import("../support/agents");
    const agent = await createAgent({ agent: { name: "Noted" }, model: { provider: "scripted", turns: [] } });
    await env.FILES.put(`agents/${agent.id}/notes/people/ada.md`, "# Ada");
    await env.FILES.put(`outputs/${agent.id}/call_1.txt`, "a whole output");
    expect((await secret(`/api/agents/${agent.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await env.FILES.list({ prefix: `agents/${agent.id}/` })).objects).toEqual([]);
    expect((await env.FILES.list({ prefix: `outputs/${agent.id}/` })).objects).toEqual([]);
  });
});
