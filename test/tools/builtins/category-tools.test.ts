/** `list_by_category`: the agent's tools in the catalogue's categories (system, file, network, data, memory, code, mcp, custom). */
import { describe, expect, it } from "vitest";
import { waitForRuns } from "../../support/agents";
import { providerWorld } from "../../support/provider-world";
import { skip } from "../../support/tool-world";

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });
const show = { name: "show_chart", description: "Shows a chart", executionType: "internal", visible: false, inputSchema: { type: "object" } };

type Listing = { category?: string; tools: { name: string; category: string; description: string }[]; byCategory: Record<string, number> };

describe("list_by_category", () => {
  it("lists the cycle's tools of one category, or all of them, each with its category, and counts every category", async () => {
    const world = await providerWorld(
      {
        builtins: ["categories", "time", "data", "notes", "memory"],
        tools: [show],
        aliases: { chart: "show_chart", plus: "calc__add" },
        mcp: { servers: [{ name: "calc", url: "http://mcp.test/mcp" }] },
      },
      () => [{ toolCalls: [call("list_by_category", { category: "memory" }), call("list_by_category")] }, { toolCalls: [skip] }],
    );
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const [memory, all] = run.toolCalls.filter((entry) => entry.toolName === "list_by_category").map((entry) => entry.result as Listing);
    expect(memory.category).toBe("memory");
    expect(memory.tools.map((tool) => tool.name).sort()).toEqual(
      [
        "memory_append",
        "memory_list",
        "memory_patch",
        "memory_read",
        "memory_write",
        "notes_append",
        "notes_delete",
        "notes_list",
        "notes_patch",
        "notes_read",
        "notes_write",
      ].sort(),
    );
    expect(memory.tools.every((tool) => tool.category === "memory")).toBe(true);
    const categoryOf = new Map(all.tools.map((tool) => [tool.name, tool.category]));
    expect(categoryOf.get("current_time")).toBe("system");
    expect(categoryOf.get("json_parse")).toBe("data");
    expect(categoryOf.get("show_chart")).toBe("custom");
    // An alias is in the category of the tool it names.
    expect(categoryOf.get("chart")).toBe("custom");
    expect(categoryOf.get("plus")).toBe("mcp");
    expect(categoryOf.get("list_by_category")).toBe("system");
    expect(categoryOf.get("calc__add")).toBe("mcp");
    expect(all.tools.find((tool) => tool.name === "show_chart")?.description).toBe("Shows a chart");
    expect(all.byCategory.memory).toBe(11);
    expect(Object.values(all.byCategory).reduce((sum, count) => sum + count, 0)).toBe(all.tools.length);
    world.close();
  });

  it("an unknown category is refused with the list of categories", async () => {
    const world = await providerWorld({ builtins: ["categories"] }, () => [{ toolCalls: [call("list_by_category", { category: "weather" })] }, { toolCalls: [skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const listed = run.toolCalls.find((entry) => entry.toolName === "list_by_category");
    expect(listed?.status).toBe("failed");
    expect(listed?.error).toContain("system, file, network, data, memory, code, mcp, custom");
    world.close();
  });
});
