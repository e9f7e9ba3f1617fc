/** The `tasks` group: an agent reads its own past cycles (run records), never another agent's. */
import { describe, expect, it } from "vitest";
import { createTaskTools } from "../../../src/tools/builtins/task-tools";
import { waitForRuns } from "../../support/agents";
import { callTool, catalogueAgent, errorOf, okValue, toolContext } from "../../support/catalogue";

type Listed = { tasks: { taskId: string; status: string; current: boolean; trigger: string[]; steps: number; toolCalls: number }[] };

describe("task_list, task_replay and session_archive_read", () => {
  it("list the agent's runs of a day, replay one step by step, and read its whole record; another agent's runs are unknown", async () => {
    const other = await catalogueAgent({}, () => [{ toolCalls: [{ name: "skip", args: {} }] }]);
    await other.wake();
    const [foreign] = await waitForRuns(other.agent.id, 1);
    const world = await catalogueAgent({ builtins: ["spaces", "tasks"] }, (spaceId) => [
      { text: "Entering", toolCalls: [{ name: "enter_space", args: { spaceId } }] },
      { toolCalls: [{ name: "skip", args: { reason: "first done" } }] },
      // The second run lists the day from inside a cycle.
      {
        toolCalls: [
          { name: "task_list", args: {} },
          { name: "skip", args: {} },
        ],
      },
    ]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1);
    await world.wake();
    const second = (await waitForRuns(world.agent.id, 2)).find((run) => run.id !== first.id);
    if (!second) throw new Error("no second run");
    const inCycle = second.toolCalls.find((call) => call.toolName === "task_list");
    expect(inCycle).toMatchObject({ status: "completed" });
    const listed = (inCycle?.result as Listed).tasks;
    expect(listed.map((task) => [task.taskId, task.current])).toEqual([
      [second.id, true],
      [first.id, false],
    ]);
    expect(listed[1]).toMatchObject({ status: "completed", trigger: ["external"], steps: 2, toolCalls: 2 });

    // The same tools, called directly for this agent.
    const tasks = createTaskTools(toolContext({ agent: { agentId: world.agent.id, entityId: world.agent.entityId, name: "Cataloguer" } }));
    expect(okValue(await callTool(tasks, "task_list", { date: "2001-01-01" }))).toEqual({ date: "2001-01-01", tasks: [] });
    expect(okValue<Listed>(await callTool(tasks, "task_list", { limit: 1 })).tasks).toHaveLength(1);
    const replay = okValue<{ messages: { step: number; text: string; toolCalls: { toolName: string; status: string; result?: unknown }[] }[] }>(
      await callTool(tasks, "task_replay", { taskId: first.id }),
    );
    expect(replay.messages).toMatchObject([
      { step: 0, text: "Entering", toolCalls: [{ toolName: "enter_space", status: "completed", result: { spaceId: world.spaceId } }] },
      { step: 1, toolCalls: [{ toolName: "skip", result: { skipped: true, reason: "first done" } }] },
    ]);
    const record = okValue<Record<string, unknown>>(await callTool(tasks, "session_archive_read", { file: first.id }));
    expect(record).toMatchObject({ id: first.id, agentId: world.agent.id, status: "completed", usage: expect.any(Object) });
    expect(errorOf(await callTool(tasks, "task_replay", { taskId: foreign.id }))).toContain(`no run "${foreign.id}"`);
    expect(errorOf(await callTool(tasks, "session_archive_read", { file: foreign.id }))).toContain("task_list");
    expect(errorOf(await callTool(tasks, "task_replay", { taskId: "run_nowhere" }))).toContain("no run");
  });
});
