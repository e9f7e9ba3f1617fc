import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { AgentDO } from "../../src/agents/agent-do";
import { AgentStorage } from "../../src/agents/agent-storage";
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { agentObject, createAgent, type RunRecord, settledRuns, waitForRuns, waitUntil } from "../support/agents";
import { providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });
const scripted = (name: string, turns: unknown[], extra: Record<string, unknown> = {}) => ({ agent: { name }, model: { provider: "scripted", turns }, ...extra });
const team = (agents: { agentId: string; name: string }[], extra: Record<string, unknown> = {}) => ({ providers: [{ name: "team", type: "agents", agents, ...extra }] });

async function recordedRequests(id: string): Promise<unknown[]> {
  return (await (await fetch(`http://hooks.test/recorded/${id}`)).json()) as unknown[];
}

describe("sub-agents as tools", () => {
  it("the task reaches the other agent's inbox and its final answer comes back as the result, in the same cycle", async () => {
    const child = await createAgent(scripted("Geographer", [{ text: "Lima is the capital of Peru." }]));
    const world = await providerWorld(team([{ agentId: child.id, name: "geo" }]), () => [
      { toolCalls: [call("team__geo", { task: "What is the capital of Peru?" })] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [parentRun] = await waitForRuns(world.agent.id, 1, 15_000);
    const [childRun] = await waitForRuns(child.id, 1);
    expect(parentRun.toolCalls[0]).toMatchObject({
      toolName: "team__geo",
      status: "completed",
      result: { answer: "Lima is the capital of Peru.", agentId: child.id, runId: childRun.id },
    });
    expect(childRun.trigger).toMatchObject([
      { type: "agent_task", toolCallId: parentRun.toolCalls[0].toolCallId, fromAgentId: world.agent.id, fromName: "Provided", task: "What is the capital of Peru?", depth: 1 },
    ]);
    expect(world.agentStream.ofType("tool.pending")[0].data).toMatchObject({ toolName: "team__geo", executionType: "agent", status: "waiting" });
    world.close();
  });

  it("sub-agent runs form a tree: each run names its parent and children, and the parent's total usage holds its children's", async () => {
    const grandchild = await createAgent(scripted("Leaf", [{ text: "leaf answer" }]));
    const child = await createAgent(
      scripted("Middle", [{ toolCalls: [call("team__leaf", { task: "ask the leaf" })] }, { text: "middle answer" }], team([{ agentId: grandchild.id, name: "leaf" }])),
    );
    const world = await providerWorld(team([{ agentId: child.id, name: "middle" }]), () => [
      { toolCalls: [call("team__middle", { task: "ask the middle" })] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [parentRun] = await waitForRuns(world.agent.id, 1, 15_000);
    const [childRun] = await settledRuns(child.id);
    const [leafRun] = await settledRuns(grandchild.id);
    expect(parentRun).toMatchObject({ parentRunId: null, childRunIds: [childRun.id] });
    expect(childRun).toMatchObject({ parentRunId: parentRun.id, childRunIds: [leafRun.id] });
    expect(leafRun).toMatchObject({ parentRunId: childRun.id, childRunIds: [] });
    const tokens = (usage: RunRecord["usage"] | undefined) => [usage?.inputTokens ?? 0, usage?.outputTokens ?? 0, usage?.totalTokens ?? 0];
    const sum = (...runs: RunRecord[]) => [0, 1, 2].map((index) => runs.reduce((total, run) => total + tokens(run.usage)[index], 0));
    const totals = (run: RunRecord) => tokens(run.totalUsage);
    expect(leafRun.usage?.totalTokens).toBeGreaterThan(0);
    expect(totals(leafRun)).toEqual(sum(leafRun));
    expect(totals(childRun)).toEqual(sum(childRun, leafRun));
    expect(totals(parentRun)).toEqual(sum(parentRun, childRun, leafRun));
    // The single run's route says the same as the list.
    const { body } = await secret<RunRecord>(`/api/runs/${parentRun.id}`);
    expect(body).toMatchObject({ parentRunId: null, childRunIds: [childRun.id], totalUsage: parentRun.totalUsage });
    world.close();
  });

  it("past its timeout the call is pending, and the late answer reaches the caller's inbox as a tool_result", async () => {
    const slow = `slow-${crypto.randomUUID()}`;
    const child = await createAgent(
      scripted("Slow", [{ toolCalls: [call("wait_a_bit")] }, { text: "finally done" }], {
        tools: [
          {
            name: "wait_a_bit",
            description: "waits",
            executionType: "gateway",
            visible: false,
            inputSchema: { type: "object" },
            execution: { url: `http://api.test/slow/${slow}/600` },
          },
        ],
      }),
    );
    const world = await providerWorld(team([{ agentId: child.id, name: "slow" }], { timeout: 150 }), () => [
      { toolCalls: [call("team__slow", { task: "take your time" })] },
      { toolCalls: [skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1, 15_000);
    expect(first.toolCalls[0]).toMatchObject({ status: "failed", error: 'Tool "team__slow" timed out after 150ms' });
    const [, second] = await waitForRuns(world.agent.id, 2, 15_000);
    expect(second.trigger).toMatchObject([{ type: "tool_result", toolCallId: first.toolCalls[0].toolCallId, result: { answer: "finally done", agentId: child.id } }]);
    world.close();
  });

  it("calls nest at most maxDepth agents deep: an agent that calls back is refused, and answers all the same", async () => {
    const a = await createAgent(scripted("A", []));
    const b = await createAgent(
      scripted("B", [{ toolCalls: [call("team__a", { task: "and back to you" })] }, { text: "I could not ask A" }], team([{ agentId: a.id, name: "a" }], { maxDepth: 1 })),
    );
    await secret(`/api/agents/${a.id}`, {
      method: "PUT",
      body: { config: scripted("A", [{ toolCalls: [call("team__b", { task: "ask A" })] }, { toolCalls: [skip] }], team([{ agentId: b.id, name: "b" }], { maxDepth: 1 })) },
    });
    await secret(`/api/agents/${a.id}/inbox`, { body: { type: "external", data: {} } });
    const [aRun] = await waitForRuns(a.id, 1, 15_000);
    const [bRun] = await waitForRuns(b.id, 1);
    expect(bRun.toolCalls[0]).toMatchObject({
      toolName: "team__a",
      status: "failed",
      failureKind: "permission",
      error: 'Tool "team__a" cannot hand a task on: sub-agent calls may nest 1 deep and this cycle already works on a task 1 deep',
    });
    expect(aRun.toolCalls[0].result).toMatchObject({ answer: "I could not ask A", agentId: b.id });
    // A was never given a task.
    expect((await settledRuns(a.id)).flatMap((run) => run.trigger.map((event) => event.type))).not.toContain("agent_task");
  });

  it("an agent that is not there is refused when the config is saved", async () => {
    const refused = await secret<{ error: { details: { path: string; message: string }[] } }>("/api/agents", {
      body: { config: scripted("x", [], team([{ agentId: "agt_nobody", name: "ghost" }])) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ path: "config.providers.0.agents.0.agentId", message: 'There is no agent "agt_nobody"' }]);
  });

  it("a task delivered again after its call was answered is not worked on twice", async () => {
    const child = await createAgent(scripted("Once", [{ text: "one answer" }, { text: "a second answer" }]));
    const world = await providerWorld(team([{ agentId: child.id, name: "once" }]), () => [{ toolCalls: [call("team__once", { task: "once" })] }, { toolCalls: [skip] }]);
    await world.wake();
    await waitForRuns(world.agent.id, 1, 15_000);
    const [childRun] = await settledRuns(child.id);
    const task = childRun.trigger[0];
    const again = await agentObject(child.id).deliver(task as never, `evt_task_${String(task.toolCallId)}`);
    expect(again).toMatchObject({ ignored: true });
    expect(await settledRuns(child.id)).toHaveLength(1);
    world.close();
  });

  it("both objects restart while the caller waits and the sub-agent works: the task is done once and its answer still continues the caller's cycle", async () => {
    const hang = `hang-${crypto.randomUUID()}`;
    const child = await createAgent(
      scripted("Worker", [{ toolCalls: [call("fetch_it")] }, { text: "fetched after a restart" }], {
        tools: [
          {
            name: "fetch_it",
            description: "fetch",
            executionType: "gateway",
            visible: false,
            inputSchema: { type: "object" },
            execution: { url: `http://api.test/hang-once/${hang}` },
          },
        ],
        limits: { toolTimeout: 20_000 },
      }),
    );
    const world = await providerWorld({ ...team([{ agentId: child.id, name: "worker" }]), limits: { toolTimeout: 20_000 } }, () => [
      { toolCalls: [call("team__worker", { task: "fetch it" })] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    await waitUntil(async () => (await recordedRequests(hang)).length === 1, 10_000, "the sub-agent's first request");
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(world.agent.id));
    await runDurableObjectAlarm(agentObject(child.id));
    const [parentRun] = await waitForRuns(world.agent.id, 1, 20_000);
    expect(parentRun.status).toBe("completed");
    expect(parentRun.toolCalls[0]).toMatchObject({ toolName: "team__worker", status: "completed", result: { answer: "fetched after a restart", agentId: child.id } });
    const childRuns = await settledRuns(child.id);
    expect(childRuns).toHaveLength(1);
    expect(childRuns[0].trigger.filter((event) => event.type === "agent_task")).toHaveLength(1);
    world.close();
  });

  it("an answer that could not be sent is kept and sent again from the alarm, once", async () => {
    const later = { name: "later", description: "answered later", executionType: "external", isAsync: true, visible: false, inputSchema: { type: "object" } };
    const world = await providerWorld({ tools: [later] }, () => [{ toolCalls: [call("later"), skip] }, { toolCalls: [skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const toolCallId = run.toolCalls[0].toolCallId;
    // A sub-agent whose run ended but whose answer did not get through: the deadline its run end queued.
    const sender = await createAgent(scripted("Sender", []));
    await runInDurableObject(agentObject(sender.id), async (_instance: AgentDO, state) => {
      new AgentStorage(state.storage).setDeadline({
        id: `subagent_answer:${toolCallId}`,
        kind: "subagent_answer",
        dueAt: Date.now() - 1,
        payload: { toolCallId, parentAgentId: world.agent.id, outcome: { type: "ok", value: { answer: "kept and resent" } }, attempt: 2 },
      });
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runDurableObjectAlarm(agentObject(sender.id))).toBe(true);
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", toolCallId, result: { answer: "kept and resent" } }]);
    // No route shows the deadline table: read inside the object.
    const deadlines = await runInDurableObject(agentObject(sender.id), async (_instance: AgentDO, state) =>
      new AgentStorage(state.storage).deadlines().map((deadline) => deadline.kind),
    );
    expect(deadlines).not.toContain("subagent_answer");
    world.close();
  });
});
