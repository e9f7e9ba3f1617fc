/**
 * A remote A2A agent as a tool provider, against the A2A SDK's own server
 * (test/fake-a2a.ts): a skill that answers at once, one that works and
 * finishes later (resumed by the remote's push, or by polling when nothing
 * pushes), one that never finishes (the call expires at its deadline), one
 * that asks for input; what the config refuses; the card's fetch bounded.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { waitForRuns, waitUntil } from "../support/agents";
import { fakeJson, providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";

type RpcCall = { variant: string; method: string; taskId?: string; headers: Record<string, string> };
type Push = { taskId: string; url: string; body: string };

const helper = (extra: Record<string, unknown> = {}) => ({ name: "helper", type: "a2a", url: "http://a2a.test/main/card.json", ...extra });
const call = (name: string, args: Record<string, unknown>) => ({ name, args });

describe("a remote A2A agent as a tool provider", () => {
  it("each skill of the card is a tool; a skill that completes at once answers with its artifact; one that asks for input ends with what it asked", async () => {
    const world = await providerWorld({ providers: [helper({ toolsDenied: ["fail"], headers: { authorization: "Bearer ${env.TOOL_API_TOKEN}" } })] }, () => [
      { toolCalls: [call("helper__echo", { message: "hello there", data: { size: "M" } }), call("helper__ask", { message: "a shirt" }), call("helper__fail", { message: "x" })] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const loaded = await world.agentStream.waitForType("a2a.loaded");
    expect(loaded.data).toEqual({
      provider: "helper",
      agent: "Remote Helper",
      endpoint: "http://a2a.test/main/rpc",
      push: true,
      tools: ["helper__echo", "helper__slow", "helper__ask", "helper__never"],
    });
    const [run] = await waitForRuns(world.agent.id, 1);
    const byName = Object.fromEntries(run.toolCalls.map((entry) => [entry.toolName, entry]));
    expect(byName.helper__echo.status).toBe("completed");
    expect(byName.helper__echo.result).toMatchObject({ text: "echo: hello there", data: [{ size: "M" }] });
    expect(byName.helper__ask.status).toBe("failed");
    // Asked at once, or seen asking at the first look: either way the error names the remote and what it asked.
    expect(byName.helper__ask.error).toMatch(
      /^The remote agent .*"(ask|helper__ask)".* asked for more input \(task [^)]+\): Which size: S, M or L\?\. The gateway does not answer/,
    );
    // Denied by the config: not offered, so the call fails as an unknown tool.
    expect(byName.helper__fail.status).toBe("failed");
    const calls = await fakeJson<RpcCall[]>("http://a2a.test/calls");
    const sends = calls.filter((entry) => entry.method === "SendMessage" && entry.headers.authorization === "Bearer test-tool-token");
    expect(sends.length).toBeGreaterThanOrEqual(2);
    world.close();
  });

  it("a task that works and finishes later is resumed by the remote's push: the gateway looks at the task at once", async () => {
    const key = `push-${crypto.randomUUID()}`;
    const world = await providerWorld({ providers: [helper({ timeout: 30_000 })] }, () => [{ toolCalls: [call("helper__slow", { message: key })] }, { toolCalls: [skip] }]);
    await world.wake();
    const started = await world.agentStream.waitForType("a2a.task.started");
    expect(started.data).toMatchObject({ provider: "helper", skill: "slow", push: true });
    expect(["submitted", "working"]).toContain(started.data.state);
    const remoteTaskId = String(started.data.remoteTaskId);
    await fetch(`http://a2a.test/release/${key}`, { method: "POST" });
    let pushes: Push[] = [];
    await waitUntil(async () => {
      pushes = await fakeJson<Push[]>(`http://a2a.test/pushes/${remoteTaskId}`);
      return pushes.some((push) => push.body.includes("TASK_STATE_COMPLETED"));
    });
    expect(pushes[0].url).toMatch(/\/a2a\/callbacks\/[^/]+$/);
    for (const push of pushes) {
      const response = await exports.default.fetch(new Request(push.url, { method: "POST", body: push.body, headers: { "content-type": "application/a2a+json" } }));
      expect(response.status).toBe(200);
    }
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls[0]).toMatchObject({ toolName: "helper__slow", status: "completed", result: { text: `done: ${key}`, taskId: remoteTaskId } });
    const polled = world.agentStream.events.filter((event) => event.type === "a2a.task.polled");
    expect(polled.find((event) => event.data.state === "done")?.data).toMatchObject({ why: "push", remoteTaskId });
    world.close();
  });

  it("a forged push URL is 401, in the error envelope", async () => {
    const forged = await exports.default.fetch(new Request("http://example.com/a2a/callbacks/abc.def", { method: "POST", body: "{}" }));
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ error: { code: "unauthorized" } });
  });

  it("the same task is resumed by polling when the remote pushes nothing", async () => {
    const key = `poll-${crypto.randomUUID()}`;
    const world = await providerWorld({ providers: [helper({ url: "http://a2a.test/nopush/card.json" })] }, () => [
      { toolCalls: [call("helper__slow", { message: key })] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const started = await world.agentStream.waitForType("a2a.task.started");
    expect(started.data).toMatchObject({ push: false });
    const remoteTaskId = String(started.data.remoteTaskId);
    await fetch(`http://a2a.test/release/${key}`, { method: "POST" });
    const [run] = await waitForRuns(world.agent.id, 1, 20_000);
    expect(run.toolCalls[0]).toMatchObject({ toolName: "helper__slow", status: "completed", result: { text: `done: ${key}` } });
    const calls = await fakeJson<RpcCall[]>("http://a2a.test/calls");
    expect(calls.filter((entry) => entry.method === "GetTask" && entry.taskId === remoteTaskId).length).toBeGreaterThanOrEqual(1);
    expect(calls.filter((entry) => entry.method === "SendMessage" && entry.variant === "nopush").length).toBeGreaterThanOrEqual(1);
    world.close();
  });

  it("a remote that never finishes: the call expires at the tool's timeout with an error that says so", async () => {
    const world = await providerWorld({ providers: [helper({ url: "http://a2a.test/nopush/card.json", timeout: 2_000 })] }, () => [
      { toolCalls: [call("helper__never", { message: "forever" })] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const started = await world.agentStream.waitForType("a2a.task.started");
    // Nobody answers the remote's task in its place, not even the secret key: only the remote's own answer settles it.
    const { toolCallId, runId } = started.data as { toolCallId: string; runId?: string };
    const pending = await secret<{ pendingToolCalls: { toolCallId: string; runId: string }[] }>(`/api/agents/${world.agent.id}/pending-tool-calls`);
    const row = pending.body.pendingToolCalls.find((entry) => entry.toolCallId === toolCallId);
    const forged = await secret<{ error: { code: string } }>(`/api/runs/${runId ?? row?.runId}/tool-results`, { body: { callId: toolCallId, result: { text: "forged" } } });
    expect(forged).toMatchObject({ status: 422, body: { error: { code: "invalid_answer" } } });
    const [run] = await waitForRuns(world.agent.id, 1, 20_000);
    expect(run.toolCalls[0].status).toBe("failed");
    expect(run.toolCalls[0].error).toBe(
      `The remote agent of provider "helper" ("helper__never") did not finish its task ${String(started.data.remoteTaskId)} within 2s (last seen working); the call expired`,
    );
    world.close();
  });

  it("the card's fetch is bounded: a huge card and one that never answers are refused, and their tools are absent", async () => {
    const world = await providerWorld(
      {
        providers: [
          helper({ name: "huge", url: "http://a2a.test/huge/card.json" }),
          helper({ name: "slow", url: "http://a2a.test/slow/card.json", timeout: 1_000 }),
          helper({ name: "viaendpoint", url: "http://a2a.test/main/rpc" }),
        ],
      },
      () => [{ toolCalls: [call("viaendpoint__echo", { message: "by the endpoint" })] }, { toolCalls: [skip] }],
    );
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1, 20_000);
    const failures = world.agentStream.events.filter((event) => event.type === "a2a.failed").map((event) => event.data);
    expect(failures).toContainEqual({ provider: "huge", url: "http://a2a.test/huge/card.json", error: "The agent card is larger than 524288 bytes" });
    expect(failures).toContainEqual({ provider: "slow", url: "http://a2a.test/slow/card.json", error: "The agent card failed: no answer within 1000ms" });
    expect(run.toolCalls[0]).toMatchObject({ toolName: "viaendpoint__echo", status: "completed", result: { text: "echo: by the endpoint" } });
    world.close();
  });

  it("the config refuses what it cannot use, with a 400 naming the path", async () => {
    const save = (provider: Record<string, unknown>) =>
      secret<{ error: { code: string; details: { path: string; message: string }[] } }>("/api/agents", {
        body: { config: { agent: { name: "x" }, model: { provider: "scripted", turns: [] }, providers: [provider] } },
      });
    const cases: [Record<string, unknown>, string][] = [
      [helper({ cache: { ttlMs: 1000 } }), "config.providers.0"],
      [helper({ url: "ftp://a2a.test/card.json" }), "config.providers.0.url"],
      [helper({ headers: { authorization: "Bearer ${env.NOT_SET}" } }), "config.providers.0.headers.authorization"],
      [helper({ headers: { "x-switchboard-hop": "1" } }), "config.providers.0.headers.x-switchboard-hop"],
      [helper({ timeout: -1 }), "config.providers.0.timeout"],
    ];
    for (const [provider, path] of cases) {
      const answer = await save(provider);
      expect(answer.status, JSON.stringify(provider)).toBe(400);
      expect(answer.body.error.code).toBe("validation_error");
      expect(answer.body.error.details.map((detail) => detail.path)).toContain(path);
    }
  });
});
