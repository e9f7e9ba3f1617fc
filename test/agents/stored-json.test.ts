/**
 * What the objects stored is parsed when it is read, never cast: a row that
 * does not parse (written by another version, or damaged) fails loudly or is
 * set aside with a logged reason, and is never taken for something it is not.
 * Each test checks the log line too (captured, so the run's output stays clean).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AgentDO } from "../../src/agents/agent-do";
import { AgentStorage } from "../../src/agents/agent-storage";
import { CycleJournal } from "../../src/agents/cycle-journal";
import type { SpaceDO } from "../../src/spaces/space-do";
import { createAgent, scriptedConfig } from "../support/agents";
import { createHuman, createSpace, secret } from "../support/api";
import { capturedErrors } from "../support/captured-errors";

const freshAgent = () => env.AGENT.getByName(`stored-json-${crypto.randomUUID()}`);

describe("stored JSON read back", () => {
  it("a journaled call whose outcome does not parse reads as a failure that says so, never as a call still open (which would run it again)", async () => {
    const logged = capturedErrors();
    const read = await runInDurableObject(freshAgent(), async (_instance: AgentDO, state) => {
      state.storage.sql.exec(
        "INSERT INTO journal_calls (call_id, model_call_id, run_id, step, position, tool_name, input, started_at, outcome) VALUES ('call_x', 'model_x', 'run_x', 0, 0, 'charge', '{}', 0, ?)",
        JSON.stringify({ type: "charged", amount: 5 }),
      );
      const journal = new CycleJournal(state.storage.sql, new AgentStorage(state.storage));
      return { call: journal.call("call_x"), open: journal.openCalls("run_x").filter((call) => !call.outcome).length };
    });
    expect(read.call?.outcome).toMatchObject({ type: "error", kind: "internal", message: expect.stringContaining("could not be read") });
    expect(read.open).toBe(0);
    expect(logged()).not.toHaveLength(0);
    for (const line of logged()) expect(line).toMatch(/^unreadable recorded outcome call_x type: /);
  });

  it("a journaled step that does not parse stops the run from going on without it; the run's record leaves it out", async () => {
    const logged = capturedErrors();
    const read = await runInDurableObject(freshAgent(), async (_instance: AgentDO, state) => {
      const journal = new CycleJournal(state.storage.sql, new AgentStorage(state.storage));
      const record = { step: { stepNumber: 0, text: "", finishReason: "tool-calls", toolCallIds: [], usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }, toolCalls: [] };
      state.storage.sql.exec(
        "INSERT INTO journal_steps (run_id, step, messages, record) VALUES ('run_x', 0, ?, ?)",
        JSON.stringify([{ role: "assistant", content: "ok" }]),
        JSON.stringify(record),
      );
      state.storage.sql.exec(
        "INSERT INTO journal_steps (run_id, step, messages, record) VALUES ('run_x', 1, ?, ?)",
        JSON.stringify([{ role: "wizard", content: 7 }]),
        JSON.stringify({ step: "?" }),
      );
      let error = "";
      try {
        journal.completedSteps("run_x");
      } catch (thrown) {
        error = String(thrown);
      }
      return { error, records: journal.stepRecords("run_x") };
    });
    expect(read.error).toContain("Step 1 of run run_x is in the journal but cannot be read");
    expect(read.records).toHaveLength(1);
    expect(logged()).toEqual([expect.stringMatching(/^leaving an unreadable journaled step out of the run record run_x 1 step: /)]);
  });

  it("a staged outcome that does not parse is dropped, never delivered", async () => {
    const logged = capturedErrors();
    const staged = await runInDurableObject(freshAgent(), async (_instance: AgentDO, state) => {
      state.storage.sql.exec("INSERT INTO staged_outcomes (call_id, outcome, staged_at) VALUES ('call_x', '{\"type\":\"maybe\"}', 0)");
      const storage = new AgentStorage(state.storage);
      return { read: storage.allStaged(), left: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM staged_outcomes").one().n };
    });
    expect(staged).toEqual({ read: [], left: 0 });
    expect(logged()).toEqual([expect.stringMatching(/^dropping an unreadable staged outcome call_x type: /)]);
  });

  it("a stored message that does not parse fails the read loudly, instead of coming back as a message", async () => {
    const spaceId = `spc_${crypto.randomUUID().replaceAll("-", "")}`;
    const failure = await runInDurableObject(env.SPACE.getByName(spaceId), async (instance: SpaceDO, state) => {
      state.storage.sql.exec("INSERT INTO message_meta (key, value) VALUES ('window_start', 0), ('d1_checked', 1)");
      state.storage.sql.exec(
        "INSERT INTO messages (id, seq, body, dirty, version, created_ms, outside) VALUES ('msg_x', 1, ?, 0, 1, 0, 0)",
        JSON.stringify({ id: "msg_x", seq: "one" }),
      );
      return instance.readMessages(0, 10).then(
        () => "read",
        (error: unknown) => String(error),
      );
    });
    expect(failure).toContain("Message msg_x is stored in the space object but cannot be read");
  });

  it("a message in D1 whose parts do not parse fails the read (500), instead of coming back with parts that are not parts", async () => {
    const logged = capturedErrors();
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    await env.DB.prepare("INSERT INTO messages (id, space_id, seq, entity_id, role, parts, status, created_at) VALUES (?, ?, 1, ?, 'tool', ?, 'complete', ?)")
      .bind(`msg_${crypto.randomUUID().replaceAll("-", "")}`, spaceId, person, JSON.stringify([{ type: "hologram", frames: 3 }]), new Date().toISOString())
      .run();
    const { status, body } = await secret<{ error?: { code: string } }>(`/api/spaces/${spaceId}/messages?afterSeq=0`);
    expect(status).toBe(500);
    expect(body.error?.code).toBe("internal_error");
    expect(logged()).toEqual([expect.stringMatching(/^unhandled error Message msg_\w+ is stored in D1 but its parts cannot be read/)]);
  });

  it("a run record whose steps do not parse shows them as none (and logs it) rather than as something else", async () => {
    const agent = await createAgent(scriptedConfig([]));
    const logged = capturedErrors();
    await env.DB.prepare("INSERT INTO runs (id, agent_id, agent_entity_id, status, trigger, steps, tool_calls, notes) VALUES (?, ?, ?, 'completed', '[]', ?, '[]', '[]')")
      .bind(`run_${crypto.randomUUID().replaceAll("-", "")}`, agent.id, agent.entityId, JSON.stringify({ not: "steps" }))
      .run();
    const { status, body } = await secret<{ runs: { steps: unknown }[] }>(`/api/agents/${agent.id}/runs`);
    expect(status).toBe(200);
    expect(body.runs.map((run) => run.steps)).toEqual([[]]);
    expect(logged()).toEqual([expect.stringMatching(/^unreadable steps on run run_\w+, shown as empty the value: /)]);
  });
});
