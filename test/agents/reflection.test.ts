import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AgentDO } from "../../src/agents/agent-do";
import { AgentStorage } from "../../src/agents/agent-storage";
import { secret } from "../support/api";
import { consciousnessOf } from "../support/agent-storage-view";
import { agentObject, createAgent, expectNotWoken, scriptedConfig, settledRuns, waitForRuns } from "../support/agents";
import { catalogueAgent } from "../support/catalogue";
import { openSse } from "../support/stream-client";

describe("reflection after a cycle", () => {
  it("a cycle that did real work is followed by a notes-only pass, marked as reflection, that wakes nobody and never loops", async () => {
    const listener = await createAgent(scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }]));
    const world = await catalogueAgent({ builtins: ["spaces", "notes", "time"], reflection: { enabled: true } }, (spaceId) => [
      {
        toolCalls: [
          { name: "enter_space", args: { spaceId } },
          { name: "send_message", args: { text: "Hello Pat" } },
          { name: "skip", args: {} },
        ],
      },
      {
        toolCalls: [
          { name: "notes_append", args: { path: "lessons.md", entry: "- Pat likes short greetings", summary: "What I learned about people" } },
          { name: "send_message", args: { text: "leak", mentions: [listener.entityId] } },
          { name: "current_time", args: {} },
        ],
      },
      { text: "Noted what matters." },
    ]);
    await secret(`/api/spaces/${world.spaceId}/members`, { body: { entityId: listener.entityId } });
    const stream = await openSse(`/api/spaces/${world.spaceId}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
    await world.wake();
    const [work, reflection] = await waitForRuns(world.agent.id, 2);
    expect(work.toolCalls.map((call) => call.toolName)).toEqual(["enter_space", "send_message", "skip"]);

    expect(reflection.status).toBe("completed");
    expect(reflection.trigger).toMatchObject([{ id: `evt_reflect_${work.id}`, type: "reflection", runId: work.id }]);
    expect(reflection.toolCalls.map((call) => [call.toolName, call.status])).toEqual([
      ["notes_append", "completed"],
      ["send_message", "failed"],
      ["current_time", "failed"],
    ]);
    const note = await env.FILES.get(`agents/${world.agent.id}/notes/lessons.md`);
    expect(await note?.text()).toBe("> Summary: What I learned about people\n\n- Pat likes short greetings\n");

    // Nobody was woken, nothing was posted, and the spaces never saw the pass.
    await expectNotWoken(listener.id);
    const runs = await settledRuns(world.agent.id);
    expect(runs.filter((run) => run.trigger[0]?.type === "reflection")).toHaveLength(1);
    const messages = await secret<{ messages: { entityId: string; text?: string }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    expect(messages.body.messages.filter((message) => message.entityId === world.agent.entityId).map((message) => message.text)).toEqual(["Hello Pat"]);
    expect(stream.collector.events.filter((event) => event.data.runId === reflection.id)).toEqual([]);
    stream.close();
    // The pass leaves the consciousness as the cycle it reflected on left it: that cycle is its last.
    const kept = JSON.stringify(await consciousnessOf(world.agent.id));
    expect(kept).toContain("Hello Pat");
    expect(kept).not.toContain("lessons.md");
    expect(kept).not.toContain("reflection on run");
  });

  it("the pass answers in the catalogue's shape: its run record notes {assessment, toolCallsCount} with the run it reflected on", async () => {
    const world = await catalogueAgent({ builtins: ["spaces", "notes"], reflection: { enabled: true } }, (spaceId) => [
      {
        toolCalls: [
          { name: "enter_space", args: { spaceId } },
          { name: "skip", args: {} },
        ],
      },
      {
        toolCalls: [
          { name: "notes_write", args: { path: "a.md", content: "one" } },
          { name: "notes_append", args: { path: "a.md", entry: "two" } },
        ],
      },
      { text: "Kept two facts." },
    ]);
    await world.wake();
    const [work, reflection] = await waitForRuns(world.agent.id, 2);
    expect(reflection.notes).toMatchObject([{ kind: "reflection", message: "Kept two facts.", report: { assessment: "Kept two facts.", toolCallsCount: 2, runId: work.id } }]);
    // An ordinary run has no such note.
    expect(work.notes.filter((note) => note.kind === "reflection")).toEqual([]);
  });

  it("no reflection after a cycle that only skipped, nor when the config does not ask for it", async () => {
    const quiet = await catalogueAgent({ builtins: ["spaces", "notes"], reflection: { enabled: true } }, () => [{ toolCalls: [{ name: "skip", args: {} }] }]);
    await quiet.wake();
    expect(await settledRuns(quiet.agent.id)).toHaveLength(1);
    const off = await catalogueAgent({ builtins: ["spaces", "notes"] }, (spaceId) => [
      {
        toolCalls: [
          { name: "enter_space", args: { spaceId } },
          { name: "skip", args: {} },
        ],
      },
    ]);
    await off.wake();
    expect(await settledRuns(off.agent.id)).toHaveLength(1);
  });

  it("a reflection event waits for quiet: ready events are claimed without it, and it is claimed alone", async () => {
    const agent = await createAgent(scriptedConfig([]));
    // The inbox's claim rule itself, on the object's own storage (no route reaches it).
    await runInDurableObject(agentObject(agent.id), async (_instance: AgentDO, state) => {
      const storage = new AgentStorage(state.storage);
      storage.enqueue({ type: "reflection", runId: "run_a" }, "evt_reflect_run_a");
      storage.enqueue({ type: "external", data: 1 }, "evt_one");
      storage.enqueue({ type: "external", data: 2 }, "evt_two");
      expect(storage.claim("run_x").map((queued) => queued.id)).toEqual(["evt_one", "evt_two"]);
      expect(storage.claim("run_y").map((queued) => queued.id)).toEqual(["evt_reflect_run_a"]);
      expect(storage.claim("run_z")).toEqual([]);
      storage.complete("run_x");
      storage.complete("run_y");
    });
  });
});
