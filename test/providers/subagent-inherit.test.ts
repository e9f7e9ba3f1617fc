import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AgentConfig } from "../../src/agents/agent-config";
import { runConfigOf } from "../../src/agents/run-config";
import type { AgentTask } from "../../src/protocol/agent-task";
import { secret } from "../support/api";
import { agentObject, createAgent, type RunRecord, settledRuns, waitForRuns, waitUntil } from "../support/agents";
import { providerWorld } from "../support/provider-world";
import { openSse } from "../support/stream-client";
import { skip } from "../support/tool-world";

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });
const scripted = (name: string, turns: unknown[], extra: Record<string, unknown> = {}) => ({ agent: { name }, model: { provider: "scripted", turns }, ...extra });
const team = (agents: { agentId: string; name: string }[], extra: Record<string, unknown> = {}) => ({ providers: [{ name: "team", type: "agents", agents, ...extra }] });

/**
 * The lead's script: its first turn is what a sub-agent that inherits its
 * model plays (an inherited script starts at its turn 0), the second hands
 * the task on, the third ends the lead's cycle.
 */
const leadTurns = () => [{ text: "Words from the lead's script" }, { toolCalls: [call("team__kid", { task: "say something" })] }, { toolCalls: [skip] }];

const inheritedNotes = (run: RunRecord) => run.notes.filter((note) => note.kind === "inherited");

async function recordedRequests(id: string): Promise<unknown[]> {
  return (await (await fetch(`http://hooks.test/recorded/${id}`)).json()) as unknown[];
}

describe("a sub-agent that inherits its caller's config", () => {
  it('with inherit: ["model"] the sub-agent plays its caller\'s scripted turns; without, its own, whose place the inherited run did not move', async () => {
    const child = await createAgent(scripted("Child", [{ text: "The child's own answer" }]));
    const lead = await providerWorld(team([{ agentId: child.id, name: "kid" }], { inherit: ["model"] }), leadTurns);
    await lead.wake();
    await waitForRuns(lead.agent.id, 1);
    await lead.wake();
    const [, delegating] = await waitForRuns(lead.agent.id, 2, 15_000);
    const [inheritedRun] = await settledRuns(child.id);
    expect(delegating.toolCalls[0]).toMatchObject({ toolName: "team__kid", status: "completed", result: { answer: "Words from the lead's script", runId: inheritedRun.id } });
    // The run record says which model ran and that it was the caller's; the task it took carries the settings.
    expect(inheritedRun.steps.map((step) => step.text)).toEqual(["Words from the lead's script"]);
    expect(inheritedNotes(inheritedRun)).toEqual([
      expect.objectContaining({
        message: `Ran with the model (scripted) of agent "Provided" (${lead.agent.id}), inherited through its call ${delegating.toolCalls[0].toolCallId} of "team__kid" in its run ${delegating.id}`,
      }),
    ]);
    expect(inheritedRun.trigger).toMatchObject([{ type: "agent_task", inherited: { model: { provider: "scripted", turns: leadTurns() } } }]);
    expect(inheritedRun.trigger[0]).not.toHaveProperty("inherited.limits");

    // Another caller, without inherit: the child thinks with its own script, from its first turn.
    const plain = await providerWorld(team([{ agentId: child.id, name: "kid" }]), () => [{ toolCalls: [call("team__kid", { task: "say something" })] }, { toolCalls: [skip] }]);
    await plain.wake();
    const [plainRun] = await waitForRuns(plain.agent.id, 1, 15_000);
    const [, ownRun] = await settledRuns(child.id);
    expect(plainRun.toolCalls[0]).toMatchObject({ status: "completed", result: { answer: "The child's own answer", runId: ownRun.id } });
    expect(inheritedNotes(ownRun)).toEqual([]);
    expect(ownRun.trigger[0]).not.toHaveProperty("inherited");
    lead.close();
    plain.close();
  });

  it('with inherit: ["limits"] the sub-agent keeps its own model and runs under its caller\'s limits', async () => {
    const slow = `slow-${crypto.randomUUID()}`;
    const waitABit = {
      name: "wait_a_bit",
      executionType: "gateway",
      visible: false,
      inputSchema: { type: "object" },
      execution: { url: `http://api.test/slow/${slow}/600` },
    };
    // Its own toolTimeout (30 s) would let the 600 ms request finish; the caller's (150 ms) does not.
    const child = await createAgent(scripted("Child", [{ toolCalls: [call("wait_a_bit")] }, { text: "own words after the wait" }], { tools: [waitABit] }));
    const lead = await providerWorld({ ...team([{ agentId: child.id, name: "kid" }], { inherit: ["limits"], timeout: 20_000 }), limits: { toolTimeout: 150 } }, () => [
      { toolCalls: [call("team__kid", { task: "wait" })] },
      { toolCalls: [skip] },
    ]);
    await lead.wake();
    const [leadRun] = await waitForRuns(lead.agent.id, 1, 15_000);
    const [childRun] = await settledRuns(child.id);
    expect(childRun.toolCalls[0]).toMatchObject({ toolName: "wait_a_bit", status: "failed", error: "Tool request timed out after 150ms" });
    expect(leadRun.toolCalls[0]).toMatchObject({ status: "completed", result: { answer: "own words after the wait" } });
    expect(inheritedNotes(childRun).map((note) => note.message)).toEqual([expect.stringMatching(/^Ran with the limits of agent "Provided"/)]);
    expect(childRun.trigger[0]).toMatchObject({ inherited: { limits: { toolTimeout: 150, maxConcurrentTools: 3 } } });
    lead.close();
  });

  it("the settings ride on the task: a restart between its arrival and its run changes nothing, and it runs alone, between the events around it", async () => {
    const hang = `hang-${crypto.randomUUID()}`;
    const fetchIt = { name: "fetch_it", executionType: "gateway", visible: false, inputSchema: { type: "object" }, execution: { url: `http://api.test/hang-once/${hang}` } };
    const child = await createAgent(
      scripted("Child", [{ toolCalls: [call("fetch_it")] }, { text: "own run done" }, { text: "handled what came before" }, { text: "handled what came after" }], {
        tools: [fetchIt],
        limits: { toolTimeout: 20_000 },
      }),
    );
    const childStream = await openSse(`/api/agents/${child.id}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
    const lead = await providerWorld({ ...team([{ agentId: child.id, name: "kid" }], { inherit: ["model"] }), limits: { toolTimeout: 20_000 } }, leadTurns);
    // The child is busy with a run of its own, so what arrives now waits in its inbox.
    await secret(`/api/agents/${child.id}/inbox`, { body: { type: "external", data: { n: "own" } } });
    await waitUntil(async () => (await recordedRequests(hang)).length === 1, 10_000, "the child's own request");
    await secret(`/api/agents/${child.id}/inbox`, { body: { type: "external", data: { n: "before" } } });
    await lead.wake();
    await waitForRuns(lead.agent.id, 1);
    await lead.wake();
    await childStream.collector.waitFor((event) => event.type === "agent.inbox.received" && (event.data.event as { type?: string }).type === "agent_task", 10_000);
    await secret(`/api/agents/${child.id}/inbox`, { body: { type: "external", data: { n: "after" } } });

    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(lead.agent.id));
    await runDurableObjectAlarm(agentObject(child.id));

    const [, delegating] = await waitForRuns(lead.agent.id, 2, 20_000);
    expect(delegating.toolCalls[0]).toMatchObject({ toolName: "team__kid", status: "completed", result: { answer: "Words from the lead's script" } });
    const runs = await settledRuns(child.id, 20_000);
    const triggers = runs.map((run) => run.trigger.map((event) => (event.type === "external" ? (event.data as { n: string }).n : event.type)));
    expect(triggers).toEqual([["own"], ["before"], ["agent_task"], ["after"]]);
    expect(runs.map((run) => run.steps.at(-1)?.text)).toEqual(["own run done", "handled what came before", "Words from the lead's script", "handled what came after"]);
    expect(runs.map((run) => inheritedNotes(run).length)).toEqual([0, 0, 1, 0]);
    lead.close();
    childStream.close();
  });

  it("a task whose settings do not pass the sub-agent's own config schema fails its run at once, saying which and why", async () => {
    const child = await createAgent(scripted("Child", [{ text: "its own words" }]));
    const task: AgentTask = {
      type: "agent_task",
      toolCallId: `call_${crypto.randomUUID()}`,
      toolName: "team__kid",
      fromAgentId: "agt_elsewhere",
      fromEntityId: "ent_elsewhere",
      fromName: "Elsewhere",
      task: "say something",
      depth: 1,
      inherited: { model: { provider: "nope", name: "x" }, limits: { toolTimeout: -1 } },
    };
    await agentObject(child.id).deliver(task);
    const [run] = await settledRuns(child.id);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(
      /^The task from agent "Elsewhere" \(agt_elsewhere\) brings settings this agent cannot run with, checked as its own config would be: model\.provider: .+; limits\.toolTimeout: .+/,
    );
    // Not tried again: the same settings would fail the same way.
    expect(run.notes.filter((note) => note.kind === "retried")).toEqual([]);
    expect(run.steps).toEqual([]);
    // Its own config is untouched: its next task runs on its own script.
    await agentObject(child.id).deliver({ ...task, toolCallId: `call_${crypto.randomUUID()}`, inherited: undefined });
    const [, next] = await settledRuns(child.id);
    expect(next).toMatchObject({ status: "completed", steps: [{ text: "its own words" }] });
  });

  it("inherited limits leave the two that span the agent's runs its own: maxCyclesPerMinute and consciousnessTokens", () => {
    const own = AgentConfig.parse(scripted("Child", [], { limits: { toolTimeout: 5_000, maxCyclesPerMinute: 7, consciousnessTokens: 9_000 } }));
    const caller = AgentConfig.parse(scripted("Lead", [], { limits: { toolTimeout: 150, cycleTimeout: 60_000, maxCyclesPerMinute: 500, consciousnessTokens: 50_000 } }));
    const task: AgentTask = {
      type: "agent_task",
      toolCallId: "call_x",
      toolName: "team__kid",
      fromAgentId: "agt_lead",
      fromEntityId: "ent_lead",
      fromName: "Lead",
      task: "t",
      depth: 1,
    };
    const scoped = runConfigOf(own, [{ id: "evt_task_call_x", receivedAt: new Date().toISOString(), attempts: 0, event: { ...task, inherited: { limits: caller.limits } } }]);
    expect(scoped).toMatchObject({
      ok: true,
      config: { agent: { name: "Child" }, limits: { ...caller.limits, maxCyclesPerMinute: 7, consciousnessTokens: 9_000 } },
      inherited: { parts: ["limits"] },
    });
  });

  it("inherit is checked when the config is saved", async () => {
    const child = await createAgent(scripted("Child", []));
    const refused = await secret<{ error: { details: { path: string; message: string }[] } }>("/api/agents", {
      body: { config: scripted("Lead", [], team([{ agentId: child.id, name: "kid" }], { inherit: ["model", "tools"] })) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.map((detail) => detail.path)).toEqual(["config.providers.0.inherit.1"]);
    const twice = await secret<{ error: { details: { path: string; message: string }[] } }>("/api/agents", {
      body: { config: scripted("Lead", [], { tools: [{ name: "kid", executionType: "agent", execution: { agentId: child.id, inherit: ["model", "model"] } }] }) },
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error.details).toEqual([{ path: "config.tools.0.execution.inherit", message: "Name each part once" }]);
  });
});
