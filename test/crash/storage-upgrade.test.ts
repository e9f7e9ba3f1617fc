/**
 * Objects made by an older release, started by today's code. Each fixture
 * holds an agent object's and a space object's SQLite exactly as that
 * release wrote them (`scripts/object-storage-fixture.mjs`): an agent in the
 * middle of a run, one step done, waiting on two external calls and an
 * approval, a result staged and in D1 but not yet delivered (the release
 * died between the two), an event queued behind the run, a plan's deadline,
 * call statistics and its state values; a space with its messages and a log
 * long enough to have written its last seq aside. c0f4e70 is the last
 * release before versioning; 62afdec the one before it, whose journal lacks
 * three columns c0f4e70 added on its own.
 *
 * The test plays the same scenario on today's code (so D1 holds what that
 * release would have put there), swaps the object's storage for the
 * fixture's, kills the objects, and starts them again: the migrations run,
 * and everything the old release left is read and carries on.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDO } from "../../src/agents/agent-do";
import { agentMigrations } from "../../src/agents/agent-migrations";
import { AgentStorage } from "../../src/agents/agent-storage";
import { Message } from "../../src/protocol/message";
import { spaceMigrations } from "../../src/spaces/space-migrations";
import type { SpaceDO } from "../../src/spaces/space-do";
import { createHuman, createSpace, memberHeaders, postMessage, secret, secretHeaders } from "../support/api";
import { agentObject, agentState, waitForRuns, waitUntil } from "../support/agents";
import { plantStorage, StorageFixture, translatedRows, translation } from "../support/object-storage-fixture";
import { openSse } from "../support/stream-client";
import { submitResult } from "../support/tool-world";
import { reachWaitingPoint } from "../fixtures/object-storage/scenario";
import beforeVersioning from "../fixtures/object-storage/c0f4e70.json";
import beforeTheColumns from "../fixtures/object-storage/62afdec.json";

const fixtures = [StorageFixture.parse(beforeVersioning), StorageFixture.parse(beforeTheColumns)];
const stagedAnswer = { answer: "staged before the upgrade" };

const versionOf = (sql: SqlStorage) => sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;
const columnsOf = (sql: SqlStorage, table: string) =>
  sql
    .exec<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
    .toArray()
    .map((row) => row.name);

describe.each(fixtures.map((fixture) => [fixture.commit.slice(0, 7), fixture] as const))("an agent object made by %s, started by today's code", (_commit, fixture) => {
  it("migrates, then carries on: the staged result is delivered, a result and an approval posted after the upgrade reach the run, the queued event runs next", async () => {
    const stored = fixture.agent;
    if (!stored) throw new Error("the fixture has no agent object");
    const { world, roles } = await reachWaitingPoint();
    const translate = translation(fixture, roles);
    const expected = translatedRows(stored, translate);
    const [callA, callB, transfer] = [roles.model_fetch_a, roles.model_fetch_b, roles.model_transfer];
    await plantStorage(agentObject(world.agent.id), stored, translate, { alarmAt: Date.now() });
    // What the old release had written to D1 before it died: call A's transition (its delivery never happened).
    await env.DB.prepare("UPDATE pending_tool_calls SET status = 'resolved', result = ? WHERE tool_call_id = ?").bind(JSON.stringify(stagedAnswer), callA).run();
    world.close();

    await abortAllDurableObjects();
    const agentStream = await openSse(`/api/agents/${world.agent.id}/stream`, secretHeaders);
    expect(await runDurableObjectAlarm(agentObject(world.agent.id))).toBe(true);

    // Migrated: every version run, the journal has today's columns, and nothing the old release wrote was lost on the way.
    const after = await runInDurableObject(agentObject(world.agent.id), async (_instance: AgentDO, state) => {
      const storage = new AgentStorage(state.storage);
      return {
        version: versionOf(state.storage.sql),
        callColumns: columnsOf(state.storage.sql, "journal_calls"),
        waitColumns: columnsOf(state.storage.sql, "journal_waits"),
        deadlines: storage.deadlines(),
        stats: state.storage.sql.exec("SELECT tool, calls, latencies FROM tool_stats ORDER BY tool").toArray(),
        steps: state.storage.sql.exec("SELECT run_id, step, messages, record FROM journal_steps").toArray(),
      };
    });
    expect(after.version).toBe(agentMigrations.length);
    expect(after.callColumns).toEqual(expect.arrayContaining(["card_minimal", "dispatched"]));
    expect(after.waitColumns).toContain("args_schema");
    expect(after.steps).toEqual(expected.journal_steps.map(({ run_id, step, messages, record }) => ({ run_id, step, messages, record })));
    // Each deadline the old release kept is read (none dropped as unreadable); the staged result's reconcile is done with.
    const planDeadline = expected.deadlines.find((row) => row.kind === "plan");
    expect(after.deadlines.map((deadline) => deadline.id)).toEqual(expect.arrayContaining([`plan:${roles.planId}`, `timeout:${callB}`, `expiry:apr_${transfer.slice(5)}`]));
    expect(after.deadlines.find((deadline) => deadline.kind === "plan")).toEqual({
      id: `plan:${roles.planId}`,
      kind: "plan",
      dueAt: planDeadline?.due_at,
      payload: { planId: roles.planId },
    });

    const state = await agentState(world.agent.id);
    expect(state.staged).toBe(0);
    expect(state.activeRun).toMatchObject({ runId: roles.runId, step: 1, attempt: 2 });
    expect(state.openCalls.map((call) => [call.toolCallId, call.outcome])).toEqual([
      [callA, { type: "ok", value: stagedAnswer }],
      [callB, undefined],
      [transfer, undefined],
    ]);

    // Posted after the upgrade: call B's result, and the approval of the transfer.
    expect((await submitResult(roles.runId, callB, { answer: "posted after the upgrade" })).status).toBe(200);
    expect((await submitResult(roles.runId, `apr_${transfer.slice(5)}`, { approved: true }, await memberHeaders(world.person))).status).toBe(200);

    const [run, next] = await waitForRuns(world.agent.id, 2, 15_000);
    expect(run).toMatchObject({ id: roles.runId, status: "completed" });
    // Step 0 is the old release's, read from its journal; steps 1 and 2 were run by today's code.
    expect(run.steps.map((step) => step.stepNumber)).toEqual([0, 1, 2]);
    const byName = (name: string) => run.toolCalls.filter((call) => call.toolName === name);
    expect(byName("enter_space")).toMatchObject([{ toolCallId: roles.model_enter, status: "completed" }]);
    expect(byName("set_plans")).toMatchObject([{ toolCallId: roles.model_plans, status: "completed" }]);
    expect(byName("fetchData")).toMatchObject([
      { toolCallId: callA, result: stagedAnswer },
      { toolCallId: callB, result: { answer: "posted after the upgrade" } },
    ]);
    expect(byName("transfer")).toMatchObject([{ toolCallId: transfer, status: "completed" }]);
    expect(byName("send_message").map((call) => (call.args as { text: string }).text)).toEqual(["Working on it", "Done"]);
    expect(run.notes.map((note) => note.kind)).toEqual(expect.arrayContaining(["recovered", "redone"]));
    // The event queued behind the run, as the old release stored it, starts the next one.
    expect(next.trigger).toMatchObject([{ type: "space_message", messageId: roles.personMessageId, text: "Also check c", entityId: world.person }]);

    // The old release's statistics carry on: its calls are counted with today's, its latencies kept.
    const { body } = await secret<{ tools: { toolName: string; calls: number; latencyMs: { median: number } }[] }>(`/api/agents/${world.agent.id}/tool-stats`);
    const calls = Object.fromEntries(body.tools.map((tool) => [tool.toolName, tool.calls]));
    expect(calls).toMatchObject({ enter_space: 1, set_plans: 1, send_message: 2, transfer: 1 });
    const oldLatency = z.array(z.number()).parse(JSON.parse(String(expected.tool_stats.find((row) => row.tool === "enter_space")?.latencies)));
    expect(body.tools.find((tool) => tool.toolName === "enter_space")?.latencyMs.median).toBe(oldLatency[0]);
    // The stream's seqs go on after the block the old release reserved (a state value), never from 1 again.
    const reserved = Number(JSON.parse(String(expected.state.find((row) => row.key === "stream_seq")?.value)));
    await waitUntil(() => agentStream.collector.events.length > 0, 5_000, "an agent stream event");
    expect(Math.min(...agentStream.collector.events.map((event) => event.seq))).toBeGreaterThan(reserved);
    agentStream.close();
  });
});

describe("a space object made by c0f4e70, started by today's code", () => {
  it("migrates, then reads every message and replays every event as the old release stored them; the next message takes the next seq", async () => {
    const fixture = fixtures[0];
    const stored = fixture.space;
    if (!stored) throw new Error("the fixture has no space object");
    // The person and the space the old release's rows name, with no agent to wake: the space is all that is swapped.
    const person = await createHuman("Pat");
    const world = { person, spaceId: await createSpace([person]) };
    const translate = translation(fixture, { personId: world.person, spaceId: world.spaceId });
    const expected = translatedRows(stored, translate);
    await plantStorage(env.SPACE.getByName(world.spaceId), stored, translate);
    await abortAllDurableObjects();

    // A stub from before the abort is broken with its object: a fresh one.
    const version = await runInDurableObject(env.SPACE.getByName(world.spaceId), async (_instance: SpaceDO, state) => versionOf(state.storage.sql));
    expect(version).toBe(spaceMigrations.length);
    // Every message, as stored (parsed, not cast), in seq order.
    const storedMessages = expected.messages.map((row) => Message.parse(JSON.parse(String(row.body)))).sort((a, b) => a.seq - b.seq);
    expect(storedMessages.map((message) => message.text ?? message.parts?.[0]?.type)).toEqual(expect.arrayContaining(["Working on it", "Also check c", "tool_call"]));
    const { body } = await secret<{ messages: Message[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0&limit=100`);
    expect(body.messages).toEqual(storedMessages);

    // Every event replays exactly as stored: the full frame for the secret key; for a member, the redacted one where one
    // was stored (this scenario's tools are not minimal, so none was: members get the same frames).
    const frames = expected.event_log.map((row) => JSON.parse(String(row.frame)));
    const lastSeq = Math.max(...expected.event_log.map((row) => Number(row.seq)));
    const replay = await openSse(`/api/spaces/${world.spaceId}/stream?afterSeq=0`, secretHeaders);
    await waitUntil(() => replay.collector.events.some((event) => event.seq === lastSeq), 10_000, "the replay");
    expect(replay.collector.frames).toEqual(frames);
    const publicFrames = expected.event_log.map((row) => JSON.parse(String(row.public_frame ?? row.frame)));
    const memberReplay = await openSse(`/api/spaces/${world.spaceId}/stream?afterSeq=0`, await memberHeaders(world.person));
    await waitUntil(() => memberReplay.collector.events.some((event) => event.seq === lastSeq), 10_000, "the member's replay");
    expect(memberReplay.collector.frames).toEqual(publicFrames);

    // The log goes on from its last seq, and the new message joins the old ones.
    const posted = await postMessage(world.spaceId, world.person, "After the upgrade");
    expect(posted.seq).toBe(lastSeq + 1);
    expect(await replay.collector.waitFor((event) => event.seq === lastSeq + 1)).toMatchObject({ type: "space.message", data: { id: posted.id, text: "After the upgrade" } });
    const { body: later } = await secret<{ messages: Message[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0&limit=100`);
    expect(later.messages.map((message) => message.seq)).toEqual([...storedMessages.map((message) => message.seq), lastSeq + 1]);
    replay.close();
    memberReplay.close();
  });
});
