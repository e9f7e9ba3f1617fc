import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AgentDO } from "../../src/agents/agent-do";
import { AgentStorage } from "../../src/agents/agent-storage";
import { checkCycleBudget } from "../../src/agents/cycle-budget";
import { call, createHuman, createSpace, secret } from "../support/api";
import { agentObject, createAgent, listRuns, scriptedConfig, waitForRuns } from "../support/agents";
import { readErrorEnvelope } from "../support/error-envelope";
import { openSse } from "../support/stream-client";

describe("the cycle budget", () => {
  it("allows limit starts in any sliding minute and says when the next may start", () => {
    const now = 1_000_000;
    expect(checkCycleBudget([], 2, now)).toEqual({ ok: true, starts: [now] });
    expect(checkCycleBudget([now - 61_000, now - 10_000], 2, now)).toEqual({ ok: true, starts: [now - 10_000, now] });
    expect(checkCycleBudget([now - 30_000, now - 10_000], 2, now)).toEqual({ ok: false, retryAt: now + 30_000, starts: [now - 30_000, now - 10_000] });
  });

  it("a cycle over limits.maxCyclesPerMinute waits its turn, visible on the agent stream and in its run record", async () => {
    const agent = await createAgent(
      scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }, { toolCalls: [{ name: "skip", args: {} }] }], { limits: { maxCyclesPerMinute: 1 } }),
    );
    const stream = await openSse(`/api/agents/${agent.id}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { n: 1 } } });
    await waitForRuns(agent.id, 1);
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { n: 2 } } });
    const throttled = await stream.collector.waitForType("agent.cycle.throttled");
    expect(throttled.data).toMatchObject({ limit: 1 });
    expect(Date.parse(throttled.data.retryAt as string)).toBeGreaterThan(Date.now() + 30_000);
    expect(await listRuns(agent.id)).toHaveLength(1);
    // A minute passes (moved back in storage, behind the object's back), the object is evicted meanwhile (a
    // live instance keeps the state values it wrote in memory: it is their only writer), and the alarm fires.
    await runInDurableObject(agentObject(agent.id), async (_instance: AgentDO, state) => {
      const storage = new AgentStorage(state.storage);
      storage.write("cycle_starts", [Date.now() - 61_000]);
      storage.write("cycle_not_before", Date.now());
    });
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(agent.id));
    const [, second] = await waitForRuns(agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "external", data: { n: 2 } }]);
    expect(second.notes).toEqual([expect.objectContaining({ kind: "throttled", message: expect.stringContaining("maxCyclesPerMinute is 1") })]);
    stream.close();
  });
});

describe("hops", () => {
  it("a request past the hop bound is refused with 508 and writes nothing", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const response = await call(`/api/spaces/${spaceId}/messages`, {
      body: { text: "loop", entityId: person },
      headers: { "x-secret-key": env.GATEWAY_SECRET_KEY, "x-switchboard-hop": "9" },
    });
    expect(response.status).toBe(508);
    await readErrorEnvelope(response, "loop_detected");
    const messages = await secret<{ messages: unknown[] }>(`/api/spaces/${spaceId}/messages?afterSeq=0`);
    expect(messages.body.messages).toEqual([]);
  });

  it("a gateway tool's request carries its cycle's hop plus one, so a tool that calls the gateway back is bounded", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const echo = {
      name: "echo",
      description: "Echo",
      executionType: "gateway",
      visible: false,
      inputSchema: { type: "object" },
      execution: { url: "http://api.test/echo", method: "POST" },
    };
    const agent = await createAgent(
      scriptedConfig(
        [
          {
            toolCalls: [
              { name: "echo", args: {} },
              { name: "skip", args: {} },
            ],
          },
        ],
        { tools: [echo] },
      ),
    );
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    const posted = await call(`/api/spaces/${spaceId}/messages`, {
      body: { text: "from a tool three hops deep", entityId: person },
      headers: { "x-secret-key": env.GATEWAY_SECRET_KEY, "x-switchboard-hop": "3", "content-type": "application/json" },
    });
    expect(posted.status).toBe(201);
    const [run] = await waitForRuns(agent.id, 1);
    expect(run.trigger).toMatchObject([{ type: "space_message", hop: 3 }]);
    const sent = run.toolCalls.find((entry) => entry.toolName === "echo")?.result as { headers: Record<string, string> };
    expect(sent).toMatchObject({ headers: expect.any(Object) });
    expect(sent.headers["x-switchboard-hop"]).toBe("4");
    expect(sent.headers["idempotency-key"]).toBe(run.toolCalls.find((entry) => entry.toolName === "echo")?.toolCallId);
  });

  it("agents mentioning each other stop waking at the hop bound; the refusal is on the run and the agent stream", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const listener = await createAgent(scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }]));
    const talker = await createAgent(
      scriptedConfig([
        {
          toolCalls: [
            { name: "enter_space", args: { spaceId } },
            { name: "send_message", args: { text: "ping", mentions: [listener.entityId] } },
            { name: "skip", args: {} },
          ],
        },
      ]),
    );
    for (const member of [listener, talker]) await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: member.entityId } });
    const stream = await openSse(`/api/agents/${talker.id}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
    const pushed = await call(`/api/agents/${talker.id}/inbox`, {
      body: { type: "external", data: { go: true } },
      headers: { "x-secret-key": env.GATEWAY_SECRET_KEY, "x-switchboard-hop": "8", "content-type": "application/json" },
    });
    expect(pushed.status).toBe(202);
    const refused = await stream.collector.waitForType("agent.wake.refused");
    expect(refused.data).toMatchObject({ hop: 9, maxHops: 8 });
    const [run] = await waitForRuns(talker.id, 1);
    expect(run.notes).toEqual([expect.objectContaining({ kind: "refused" })]);
    // The reply itself was posted; it woke nobody (checked once the run that posted it had finished).
    expect(await listRuns(listener.id)).toEqual([]);
    stream.close();
  });
});
