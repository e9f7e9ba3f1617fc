import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createHuman, createSpace, secret } from "./support/api";
import { agentState, createAgent, listRuns, scriptedConfig, waitForRuns } from "./support/agents";
import { openSse } from "./support/stream-client";

describe("plans", () => {
  it("a due plan wakes the agent with a plan_due event from the alarm", async () => {
    const runAt = new Date(Date.now() + 1_500).toISOString();
    const agent = await createAgent(
      scriptedConfig([
        {
          toolCalls: [
            { name: "set_plans", args: { plans: [{ name: "check-in", instruction: "Say hi", runAt }] } },
            { name: "skip", args: {} },
          ],
        },
        {
          toolCalls: [
            { name: "get_plans", args: {} },
            { name: "skip", args: {} },
          ],
        },
      ]),
    );
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { hello: true } } });
    const [first] = await waitForRuns(agent.id, 1);
    expect(first.status).toBe("completed");
    const plans = await secret<{ plans: { name: string; nextRunAt: string }[] }>(`/api/agents/${agent.id}/plans`);
    expect(plans.body.plans).toMatchObject([{ name: "check-in", nextRunAt: runAt }]);
    const [, second] = await waitForRuns(agent.id, 2, 8_000);
    expect(second.trigger).toMatchObject([{ type: "plan_due", name: "check-in", instruction: "Say hi" }]);
    const after = await secret<{ plans: { nextRunAt: string | null; lastRunAt: string | null }[] }>(`/api/agents/${agent.id}/plans`);
    expect(after.body.plans[0].nextRunAt).toBeNull();
    expect(after.body.plans[0].lastRunAt).not.toBeNull();
  });

  it("setting the same plan again re-arms one deadline, never two", async () => {
    const plan = { name: "daily", instruction: "Report", cron: "0 9 * * *" };
    const agent = await createAgent(
      scriptedConfig([
        {
          toolCalls: [
            { name: "set_plans", args: { plans: [plan] } },
            { name: "set_plans", args: { plans: [{ ...plan, cron: "30 9 * * *" }] } },
            { name: "skip", args: {} },
          ],
        },
      ]),
    );
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: {} } });
    await waitForRuns(agent.id, 1);
    // The plans route shows one plan; only the deadline table can tell it is armed once.
    const state = await agentState(agent.id);
    const planDeadlines = state.deadlines.filter((deadline) => deadline.kind === "plan");
    expect(planDeadlines).toHaveLength(1);
    expect(new Date(planDeadlines[0].dueAt).getUTCMinutes()).toBe(30);
    const plans = await secret<{ plans: unknown[] }>(`/api/agents/${agent.id}/plans`);
    expect(plans.body.plans).toHaveLength(1);
  });
});

describe("failures and restarts", () => {
  it("a model error is retried with backoff in the same run, which continues once the model works", async () => {
    const agent = await createAgent({ agent: { name: "Keyless" }, model: { provider: "openai", name: "gpt-4o" } });
    const stream = await openSse(`/api/agents/${agent.id}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { job: 42 } } });
    const retrying = await stream.collector.waitForType("agent.cycle.retrying");
    expect(retrying.data).toMatchObject({ attempt: 2 });
    expect(retrying.data.error).toContain("OPENAI_API_KEY");
    // Fix the config: the next attempt of the same run uses it.
    await secret(`/api/agents/${agent.id}`, { method: "PUT", body: { config: scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }]) } });
    const [run] = await waitForRuns(agent.id, 1, 8_000);
    expect(run.status).toBe("completed");
    expect(run.id).toBe(retrying.data.runId);
    expect(run.trigger).toMatchObject([{ type: "external", data: { job: 42 } }]);
    expect(run.notes).toEqual([expect.objectContaining({ kind: "retried", message: expect.stringContaining("OPENAI_API_KEY") })]);
    expect(await listRuns(agent.id)).toHaveLength(1);
    stream.close();
  });

  it("after three failed attempts the run fails, its events leave the inbox and stay on the run", async () => {
    const agent = await createAgent({ agent: { name: "Keyless" }, model: { provider: "anthropic", name: "claude" } });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { job: "doomed" } } });
    const [run] = await waitForRuns(agent.id, 1, 15_000);
    expect(run.status).toBe("failed");
    expect(run.trigger).toMatchObject([{ type: "external", data: { job: "doomed" }, attempt: 3 }]);
    expect(run.error).toContain("no attempts left");
    expect(run.notes.filter((note) => note.kind === "retried")).toHaveLength(2);
    // The run record says the run is over (above); no route shows the inbox, so that is read inside the object.
    expect((await agentState(agent.id)).pending).toBe(0);
    expect(await listRuns(agent.id)).toHaveLength(1);
  });
});

describe("the agent stream", () => {
  it("carries cycles, steps and every tool call with args, results and latency", async () => {
    const ada = await createHuman();
    const spaceId = await createSpace([ada]);
    const agent = await createAgent(
      scriptedConfig([
        {
          toolCalls: [
            { name: "enter_space", args: { spaceId } },
            { name: "set_memories", args: { memories: [{ key: "color", value: "blue" }] } },
            { name: "skip", args: {} },
          ],
        },
      ]),
    );
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    const stream = await openSse(`/api/agents/${agent.id}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { go: 1 } } });
    await stream.collector.waitForType("agent.cycle.finished");
    const types = stream.collector.events.map((event) => event.type);
    expect(types).toContain("agent.cycle.started");
    expect(types).toContain("agent.step.finished");
    const completed = stream.collector.ofType("tool.completed");
    // The calls of one step run at once: each completes once, in whatever order they finish.
    expect(completed.map((event) => event.data.toolName).sort()).toEqual(["enter_space", "set_memories", "skip"]);
    const setMemories = completed.find((event) => event.data.toolName === "set_memories");
    expect(setMemories?.data).toMatchObject({ args: { memories: [{ key: "color", value: "blue" }] }, result: { memories: [{ key: "color", value: "blue" }] } });
    expect(typeof setMemories?.data.latencyMs).toBe("number");
    const memories = await secret<{ memories: { key: string }[] }>(`/api/agents/${agent.id}/memories`);
    expect(memories.body.memories.map((memory) => memory.key)).toEqual(["color"]);
    stream.close();
  });
});

describe("cycle deadline", () => {
  it("a cycle that runs past limits.cycleTimeout is aborted and fails; nothing waits forever", async () => {
    const agent = await createAgent({
      agent: { name: "Stuck" },
      model: { provider: "scripted", turns: [{ toolCalls: [{ name: "forever", args: {} }] }] },
      tools: [{ name: "forever", description: "Never answered", executionType: "external", visible: false, timeout: 600_000, inputSchema: { type: "object" } }],
      limits: { cycleTimeout: 1_000 },
    });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(agent.id, 1, 10_000);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/abort/i);
  });
});
