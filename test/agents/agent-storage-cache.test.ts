import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDO } from "../../src/agents/agent-do";
import { AgentStorage } from "../../src/agents/agent-storage";
import { CycleJournal } from "../../src/agents/cycle-journal";
import { agentObject, createAgent, scriptedConfig } from "../support/agents";
import { capturedErrors } from "../support/captured-errors";

const Value = z.object({ n: z.number(), notes: z.array(z.string()) });

/** The state values an agent object keeps in memory after reading or writing them (it is their only writer). */
describe("the agent object's state values, kept in memory", () => {
  it("every read is a copy: changing what was read changes neither memory nor storage", async () => {
    const agent = await createAgent(scriptedConfig([]));
    await runInDurableObject(agentObject(agent.id), async (_instance: AgentDO, state) => {
      const storage = new AgentStorage(state.storage);
      expect(storage.read("k", Value)).toBeUndefined();
      storage.write("k", { n: 1, notes: ["a"] });
      for (let read = 0; read < 3; read += 1) {
        const value = storage.read("k", Value);
        expect(value).toEqual({ n: 1, notes: ["a"] });
        value?.notes.push("changed");
        if (value) value.n = 99;
      }
      // What SQLite holds, read by an instance with nothing in memory.
      expect(new AgentStorage(state.storage).read("k", Value)).toEqual({ n: 1, notes: ["a"] });
      storage.delete("k");
      expect(storage.read("k", Value)).toBeUndefined();
      expect(new AgentStorage(state.storage).read("k", Value)).toBeUndefined();
    });
  });

  it("a long value is read from storage each time, and still as a copy", async () => {
    const agent = await createAgent(scriptedConfig([]));
    await runInDurableObject(agentObject(agent.id), async (_instance: AgentDO, state) => {
      const storage = new AgentStorage(state.storage);
      const long = { n: 1, notes: ["x".repeat(40_000)] };
      storage.write("k", long);
      const first = storage.read("k", Value);
      first?.notes.push("changed");
      expect(storage.read("k", Value)).toEqual(long);
      // Written behind its back (tests only): a long value is not kept, so the change is seen.
      new AgentStorage(state.storage).write("k", { n: 2, notes: ["y".repeat(40_000)] });
      expect(storage.read("k", Value)?.n).toBe(2);
    });
  });

  it("a write in a transaction that rolls back is not read back from memory", async () => {
    const agent = await createAgent(scriptedConfig([]));
    await runInDurableObject(agentObject(agent.id), async (_instance: AgentDO, state) => {
      const storage = new AgentStorage(state.storage);
      storage.write("k", { n: 1, notes: [] });
      expect(storage.read("k", Value)?.n).toBe(1);
      expect(() =>
        storage.transaction(() => {
          storage.write("k", { n: 2, notes: [] });
          expect(storage.read("k", Value)?.n).toBe(2);
          throw new Error("roll back");
        }),
      ).toThrow("roll back");
      expect(storage.read("k", Value)?.n).toBe(1);
    });
  });

  it("a value that does not parse with the schema it is read with is absent, whatever was parsed before (and logged)", async () => {
    const agent = await createAgent(scriptedConfig([]));
    const logged = capturedErrors();
    await runInDurableObject(agentObject(agent.id), async (_instance: AgentDO, state) => {
      const storage = new AgentStorage(state.storage);
      storage.write("k", { n: 1, notes: [] });
      expect(storage.read("k", Value)?.n).toBe(1);
      expect(storage.read("k", Value)?.n).toBe(1);
      expect(storage.read("k", z.object({ n: z.string() }))).toBeUndefined();
      expect(storage.read("k", Value)?.n).toBe(1);
    });
    expect(logged()).toEqual([expect.stringMatching(/^unreadable agent state k n: /)]);
  });
});

describe("the cycle journal's call outcomes", () => {
  it("the first outcome recorded for a call wins, and every later one is answered with it", async () => {
    const agent = await createAgent(scriptedConfig([]));
    await runInDurableObject(agentObject(agent.id), async (_instance: AgentDO, state) => {
      const journal = new CycleJournal(state.storage.sql, new AgentStorage(state.storage));
      journal.callStarted({ toolCallId: "call_j1", modelToolCallId: "m1", runId: "run_j", step: 0, toolName: "lookup", input: { q: 1 }, startedAt: Date.now() });
      expect(journal.callFinished("call_j1", { type: "ok", value: { first: true } })).toEqual({ type: "ok", value: { first: true } });
      expect(journal.callFinished("call_j1", { type: "ok", value: { second: true } })).toEqual({ type: "ok", value: { first: true } });
      expect(journal.call("call_j1")?.outcome).toEqual({ type: "ok", value: { first: true } });
      // A call the journal never recorded: its own outcome comes back.
      expect(journal.callFinished("call_unknown", { type: "ok", value: 3 })).toEqual({ type: "ok", value: 3 });
    });
  });
});
