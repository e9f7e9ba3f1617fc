import { describe, expect, it } from "vitest";
import { createHuman, createSpace, memberHeaders, postMessage, secret } from "./support/api";
import { createAgent, expectNotWoken, scriptedConfig, settledRuns, waitForRuns } from "./support/agents";
import { openWebSocket } from "./support/stream-client";

describe("an agent that lives", () => {
  it("a human message wakes the agent, which enters the space and answers with a streamed message", async () => {
    const ada = await createHuman("Ada");
    const spaceId = await createSpace([ada]);
    const agent = await createAgent(
      scriptedConfig([
        {
          toolCalls: [
            { name: "enter_space", args: { spaceId } },
            { name: "send_message", args: { text: "Hello Ada, nice to meet you in this room!" } },
            { name: "skip", args: {} },
          ],
        },
      ]),
    );
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    const { collector, close } = await openWebSocket(`/api/spaces/${spaceId}/stream`, await memberHeaders(ada));
    const statsBefore = (await secret<{ d1Statements: number; objectStatements: number }>("/api/stats")).body;
    await postMessage(spaceId, ada, "hi agent");
    const reply = await collector.waitFor((event) => event.type === "space.message" && event.data.entityId === agent.entityId);
    expect(reply.data.text).toBe("Hello Ada, nice to meet you in this room!");
    const deltas = collector.events.filter((event) => event.type === "space.message.streaming");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((event) => event.data.delta).join("")).toBe("Hello Ada, nice to meet you in this room!");
    expect(new Set(deltas.map((event) => event.data.streamId))).toEqual(new Set([reply.data.id]));
    expect(Math.max(...deltas.map((event) => event.seq))).toBeLessThan(reply.seq);
    await collector.waitForType("agent.cycle.finished");
    const [run] = await waitForRuns(agent.id, 1);
    expect(run.status).toBe("completed");
    expect(run.trigger).toMatchObject([{ type: "space_message", text: "hi agent", entityId: ada }]);
    expect(run.toolCalls.map((call) => call.toolName)).toEqual(["enter_space", "send_message", "skip"]);
    expect(run.toolCalls.every((call) => call.status === "completed")).toBe(true);
    expect(run.usage?.totalTokens).toBeGreaterThan(0);
    expect(run.d1Statements).toBeLessThanOrEqual(8);
    // The counters the benchmarks read: D1 statements, and the objects' own SQLite statements (the cycle journals its steps).
    const statsAfter = (await secret<{ d1Statements: number; objectStatements: number }>("/api/stats")).body;
    expect(statsAfter.d1Statements - statsBefore.d1Statements).toBeGreaterThanOrEqual(run.d1Statements ?? 1);
    expect(statsAfter.objectStatements - statsBefore.objectStatements).toBeGreaterThan(10);
    close();
  });

  it("an agent's message wakes only the agents it mentions, and never itself", async () => {
    const ada = await createHuman("Ada");
    const spaceId = await createSpace([ada]);
    const listener = await createAgent(scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }]));
    const bystander = await createAgent(scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }]));
    const talker = await createAgent(
      scriptedConfig([
        {
          toolCalls: [
            { name: "enter_space", args: { spaceId } },
            { name: "send_message", args: { text: "ping listener", mentions: [listener.entityId] } },
            { name: "skip", args: {} },
          ],
        },
      ]),
    );
    for (const member of [listener, bystander, talker]) await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: member.entityId } });
    await secret(`/api/agents/${talker.id}/inbox`, { body: { type: "external", data: { go: true } } });
    const [talkerRun] = await waitForRuns(talker.id, 1);
    expect(talkerRun.status).toBe("completed");
    const [listenerRun] = await waitForRuns(listener.id, 1);
    expect(listenerRun.trigger).toMatchObject([{ type: "space_message", text: "ping listener", entityId: talker.entityId }]);
    // Wakes were delivered before the talker's message tool returned: neither the bystander nor the talker itself got one.
    await expectNotWoken(bystander.id);
    expect(await settledRuns(talker.id)).toHaveLength(1);
  });

  it("events that arrive during a cycle wait for the next cycle, which takes them all", async () => {
    const ada = await createHuman("Ada");
    const spaceId = await createSpace([ada]);
    const agent = await createAgent(scriptedConfig([]));
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    await Promise.all([postMessage(spaceId, ada, "one"), postMessage(spaceId, ada, "two"), postMessage(spaceId, ada, "three")]);
    const runs = await settledRuns(agent.id);
    const texts = runs.flatMap((run) => run.trigger.map((event) => event.text));
    expect(texts.sort()).toEqual(["one", "three", "two"]);
    expect(runs.every((run) => run.status === "completed")).toBe(true);
  });
});

describe("deleting an agent", () => {
  it("its spaces hear that it left, and its object forgets it", async () => {
    const ada = await createHuman("Ada");
    const spaceId = await createSpace([ada]);
    const agent = await createAgent(scriptedConfig([]));
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    const { collector, close } = await openWebSocket(`/api/spaces/${spaceId}/stream`, await memberHeaders(ada));
    expect((await secret(`/api/agents/${agent.id}`, { method: "DELETE" })).status).toBe(200);
    await collector.waitFor((event) => event.type === "space.member.left" && event.data.entityId === agent.entityId);
    expect((await secret(`/api/agents/${agent.id}`)).status).toBe(404);
    const space = await secret<{ memberIds: string[] }>(`/api/spaces/${spaceId}`);
    expect(space.body.memberIds).toEqual([ada]);
    close();
  });
});

describe("upgrades", () => {
  it("a config saved before newer fields existed still runs, with today's defaults", async () => {
    const { env } = await import("cloudflare:workers");
    const agent = await createAgent(scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }]));
    // As an older version stored it: no `limits.cycleTimeout`, no `consciousnessTokens`.
    const old = {
      version: "1.0",
      agent: { name: "Old" },
      model: { provider: "scripted", turns: [{ toolCalls: [{ name: "skip", args: {} }] }] },
      loop: { maxSteps: 10, toolChoice: "auto" },
      tools: [],
      limits: { toolTimeout: 30000, maxConcurrentTools: 3, toolResponseMaxBytes: 100000 },
    };
    await env.DB.prepare("UPDATE agents SET config = ? WHERE id = ?").bind(JSON.stringify(old), agent.id).run();
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(agent.id, 1);
    expect(run.status).toBe("completed");
    const read = await secret<{ config: { limits: { cycleTimeout: number } } }>(`/api/agents/${agent.id}`);
    expect(read.body.config.limits.cycleTimeout).toBe(600_000);
  });
});
