/**
 * The alias map (`aliases`: alias → tool name; the model may call either)
 * and the catalogue's `memory_*` names (the `memory` group: the notes tools
 * under those names).
 */
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { waitForRuns } from "../support/agents";
import { providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });
const show = { name: "show_chart", description: "Shows a chart", executionType: "internal", visible: false, inputSchema: { type: "object" } };
const scripted = { agent: { name: "Aliased" }, model: { provider: "scripted", turns: [] } };

describe("tool aliases", () => {
  it("the model may call a tool by its alias or its name: both run the one tool, each call recorded under the name it was called by", async () => {
    const world = await providerWorld({ tools: [show], aliases: { chart: "show_chart" } }, () => [
      { toolCalls: [call("chart", { kind: "bar" }), call("show_chart", { kind: "pie" })] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.filter((entry) => entry.toolName !== "skip").map((entry) => [entry.toolName, entry.status, entry.result])).toEqual([
      ["chart", "completed", { success: true, args: { kind: "bar" } }],
      ["show_chart", "completed", { success: true, args: { kind: "pie" } }],
    ]);
    world.close();
  });

  it("an approval set on a tool holds for its alias too", async () => {
    const world = await providerWorld({ tools: [show], aliases: { chart: "show_chart" }, approvals: { show_chart: { required: true, timeout: 100 } } }, () => [
      { toolCalls: [call("chart", { kind: "bar" })] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const aliased = run.toolCalls.find((entry) => entry.toolName === "chart");
    // Not in a space, nobody can be asked: the call is refused before it runs (without the approval it would have run).
    expect(aliased?.status).toBe("failed");
    expect(aliased?.error).toContain("needs a person's approval");
    world.close();
  });

  it("an alias that takes a tool's name, names no tool the agent can have, or is not a callable name is refused at save", async () => {
    for (const [aliases, path, message] of [
      [{ send_message: "show_chart" }, "config.aliases.send_message", '"send_message" is already a tool\'s name'],
      [{ show_chart: "show_chart" }, "config.aliases.show_chart", '"show_chart" is already a tool\'s name'],
      [{ chart: "nowhere" }, "config.aliases.chart", '"nowhere" names no tool this agent can have'],
      [{ "bad name": "show_chart" }, "config.aliases.bad name", "An alias is 1–64 letters, digits, _ or -"],
    ] as const) {
      const refused = await secret<{ error: { details: { path: string; message: string }[] } }>("/api/agents", { body: { config: { ...scripted, tools: [show], aliases } } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.find((detail) => detail.path === path)?.message).toContain(message);
    }
  });
});

describe("the catalogue's memory_* names", () => {
  it("the memory group gives the notes tools under the catalogue's names: write, patch, append, read and list one note", async () => {
    const world = await providerWorld({ builtins: ["spaces", "memory"] }, () => [
      { toolCalls: [call("memory_write", { path: "facts/sky.md", content: "The sky is green." })] },
      { toolCalls: [call("memory_patch", { path: "facts/sky.md", old_str: "green", new_str: "blue" })] },
      { toolCalls: [call("memory_append", { path: "facts/sky.md", entry: "Seen at noon.", summary: "The sky's colour" })] },
      { toolCalls: [call("memory_read", { path: "facts/sky.md" }), call("memory_list")] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const byName = new Map(run.toolCalls.map((entry) => [entry.toolName, entry]));
    expect([...byName.values()].every((entry) => entry.status === "completed")).toBe(true);
    expect((byName.get("memory_read")?.result as { content: string }).content).toBe("> Summary: The sky's colour\n\nThe sky is blue.\nSeen at noon.\n");
    expect((byName.get("memory_list")?.result as { notes: { path: string; summary: string }[] }).notes).toMatchObject([{ path: "facts/sky.md", summary: "The sky's colour" }]);
    world.close();
  });

  it("a notes tool denied takes its memory_ name away too", async () => {
    const world = await providerWorld({ builtins: ["spaces", "memory"], deniedTools: ["notes_write"] }, () => [
      { toolCalls: [call("memory_write", { path: "a.md", content: "x" })] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((entry) => entry.toolName === "memory_write")?.status).not.toBe("completed");
    world.close();
  });
});
