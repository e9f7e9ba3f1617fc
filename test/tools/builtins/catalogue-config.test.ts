import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../../src/agents/system-prompt";
import { selectedBuiltinNames } from "../../../src/tools/config/builtin-tool-names";
import { secret } from "../../support/api";
import { waitForRuns } from "../../support/agents";
import { catalogueAgent } from "../../support/catalogue";

const base = { agent: { name: "conf" }, model: { provider: "scripted", turns: [] } };

describe("choosing built-ins per agent", () => {
  it("without builtins an agent has the spaces and knowledge built-ins and wait_for_results, nothing else", async () => {
    expect([...selectedBuiltinNames({})].sort()).toEqual(
      [
        "delete_goals",
        "delete_memories",
        "delete_plans",
        "enter_space",
        "get_goals",
        "get_memories",
        "get_plans",
        "leave_space",
        "read_messages",
        "send_message",
        "set_goals",
        "set_memories",
        "set_plans",
        "skip",
        "wait_for_results",
      ].sort(),
    );
    const world = await catalogueAgent({}, () => [
      {
        toolCalls: [
          { name: "current_time", args: {} },
          { name: "get_goals", args: {} },
          { name: "skip", args: {} },
        ],
      },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.map((call) => [call.toolName, call.status])).toEqual([
      ["current_time", "failed"],
      ["get_goals", "completed"],
      ["skip", "completed"],
    ]);
  });

  it("groups are chosen, single tools denied (even those of spaces and knowledge)", async () => {
    expect([...selectedBuiltinNames({ builtins: ["time", "notes"], deniedTools: ["sleep", "notes_delete"] })].sort()).toEqual(
      ["current_time", "date_add", "date_diff", "notes_append", "notes_list", "notes_patch", "notes_read", "notes_write"].sort(),
    );
    const world = await catalogueAgent({ builtins: ["spaces", "time"], deniedTools: ["sleep", "send_message"] }, () => [
      {
        toolCalls: [
          { name: "sleep", args: { seconds: 1 } },
          { name: "send_message", args: { text: "x" } },
          { name: "current_time", args: {} },
          { name: "skip", args: {} },
        ],
      },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.map((call) => call.status)).toEqual(["failed", "failed", "completed", "completed"]);
    const stored = await secret<{ config: { builtins: string[]; deniedTools: string[] } }>(`/api/agents/${world.agent.id}`);
    expect(stored.body.config).toMatchObject({ builtins: ["spaces", "time"], deniedTools: ["sleep", "send_message"] });
  });

  it("configs that name groups or tools that do not exist, or take a built-in's name, are refused with their path", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ builtins: ["spaces", "teleport"] }, "config.builtins.1"],
      [{ deniedTools: ["skip", "fly"] }, "config.deniedTools.1"],
      [{ tools: [{ name: "fetch_page", description: "x", executionType: "internal", inputSchema: { type: "object" } }] }, "config.tools.0.name"],
      [{ tools: [{ name: "notes_write", description: "x", executionType: "internal", inputSchema: { type: "object" } }] }, "config.tools.0.name"],
      [{ reflection: { enabled: true, maxSteps: 50 } }, "config.reflection.maxSteps"],
    ];
    for (const [extra, path] of cases) {
      const { status, body } = await secret<{ error: { details: { path: string }[] } }>("/api/agents", { body: { config: { ...base, ...extra } } });
      expect(status, JSON.stringify(extra)).toBe(400);
      expect(body.error.details.map((detail) => detail.path)).toContain(path);
    }
  });
});

describe("the system prompt describes only what the agent has", () => {
  const input = {
    agent: { agentId: "agt_1", entityId: "ent_1", name: "A" },
    spaces: [{ id: "spc_1", name: "Room" }],
    activeSpaceId: undefined,
    goals: [],
    memories: [{ key: "k", value: "v", updatedAt: "" }] as never[],
    plans: [],
    events: [],
    now: new Date("2026-11-20T10:00:00Z"),
  };

  it("without a builtins choice it is as it was: spaces, goals, memories, plans, send_message", () => {
    const prompt = buildSystemPrompt(input);
    for (const text of ["## Your spaces", "Active space:", "## Goals", "## Memories", "## Plans", "send_message", "Use skip"]) expect(prompt).toContain(text);
  });

  it("with only catalogue groups, the spaces and knowledge sections are gone and the groups' sections are there", () => {
    const prompt = buildSystemPrompt({
      ...input,
      builtins: { groups: new Set(["time"]), names: new Set(["current_time", "date_add"]), sections: ["## Time\nYour time tools: current_time, date_add."] },
    });
    for (const text of ["## Your spaces", "Active space:", "## Goals", "## Memories", "## Plans", "send_message", "skip"]) expect(prompt).not.toContain(text);
    expect(prompt).toContain("## Time\nYour time tools: current_time, date_add.");
    expect(prompt).toContain("## How you work");
  });
});
