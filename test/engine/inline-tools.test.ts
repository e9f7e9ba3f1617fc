import { describe, expect, it } from "vitest";
import { createSpace, secret } from "../support/api";
import { createAgent, expectNotWoken, scriptedConfig, waitForRuns } from "../support/agents";
import { enter, skip, toolWorld } from "../support/tool-world";

const chart = {
  name: "displayChart",
  description: "Show a chart",
  executionType: "internal",
  visible: true,
  inputSchema: { type: "object", properties: { title: { type: "string" }, values: { type: "array", items: { type: "number" } } }, required: ["title"] },
  display: { customUI: "Chart" },
};

describe("inline execution types", () => {
  it("a visible internal tool streams into the active space and its card completes", async () => {
    const world = await toolWorld([chart], (spaceId) => [
      { toolCalls: [enter(spaceId)] },
      { toolCalls: [{ name: "displayChart", args: { title: "Revenue by quarter", values: [1, 2, 3] } }, skip] },
    ]);
    const bystander = await createAgent(scriptedConfig([{ toolCalls: [skip] }]));
    await secret(`/api/spaces/${world.spaceId}/members`, { body: { entityId: bystander.entityId } });
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const call = run.toolCalls.find((entry) => entry.toolName === "displayChart");
    expect(call?.result).toEqual({ success: true, args: { title: "Revenue by quarter", values: [1, 2, 3] } });
    const done = await world.spaceStream.waitForType("tool.done");
    expect(done.data).toMatchObject({ toolName: "displayChart", args: { title: "Revenue by quarter" }, result: { success: true } });
    const types = world.spaceStream.events.map((event) => event.type);
    const started = types.indexOf("tool.started");
    expect(started).toBeGreaterThan(-1);
    expect(types.indexOf("tool.streaming")).toBeGreaterThan(started);
    expect(world.spaceStream.ofType("tool.streaming").length).toBeGreaterThan(1);
    const card = world.spaceStream.events.find((event) => event.type === "space.message" && event.data.role === "tool");
    expect(card?.data.parts).toMatchObject([{ type: "tool_call", toolName: "displayChart", status: "running", customUI: "Chart" }]);
    const updated = await world.spaceStream.waitForType("space.message.updated");
    expect(updated.data).toMatchObject({ id: card?.data.id, status: "complete", parts: [{ status: "complete", result: { success: true } }] });
    // A visible tool message never wakes an agent.
    await expectNotWoken(bystander.id);
    world.close();
  });

  it("a visible tool before enter_space gets the 'not in a space' error", async () => {
    const world = await toolWorld([chart], () => [{ toolCalls: [{ name: "displayChart", args: { title: "x" } }, skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls[0].result).toEqual({ error: 'Tool "displayChart" is visible but you are not in a space. Call enter_space first.' });
    world.close();
  });

  it("arguments that fail the schema go back to the model as an error listing each problem, and never run", async () => {
    const echo = {
      name: "echo",
      description: "Echo",
      executionType: "gateway",
      visible: false,
      inputSchema: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] },
      execution: { url: "http://api.test/echo/{{city}}", method: "GET" },
    };
    const world = await toolWorld([echo], () => [{ toolCalls: [{ name: "echo", args: { days: "three" } }, skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const error = (run.toolCalls[0].result as { error: string }).error;
    expect(error).toContain('Invalid arguments for tool "echo"');
    expect(error).toContain("city");
    expect(error).toContain("/days");
    expect(run.toolCalls[0].status).toBe("failed");
    world.close();
  });

  it("a gateway tool calls its URL with each argument in its own slot and secrets from env", async () => {
    const echo = {
      name: "lookup",
      description: "Look up",
      executionType: "gateway",
      visible: false,
      inputSchema: { type: "object", properties: { city: { type: "string" }, q: { type: "string" } }, required: ["city", "q"] },
      execution: { url: "http://api.test/echo/weather/{{city}}?q={{q}}&units=metric", method: "GET", headers: { authorization: "Bearer ${env.TOOL_API_TOKEN}" } },
    };
    const world = await toolWorld([echo], () => [{ toolCalls: [{ name: "lookup", args: { city: "../../admin?x=1#", q: "a&units=imperial" } }, skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const result = run.toolCalls[0].result as { rawPath: string; query: Record<string, string>; headers: Record<string, string> };
    expect(result.rawPath).toBe("/echo/weather/..%2F..%2Fadmin%3Fx%3D1%23");
    expect(result.query).toEqual({ q: "a&units=imperial", units: "metric" });
    expect(result.headers.authorization).toBe("Bearer test-tool-token");
    world.close();
  });

  it("gateway failures come back as tool errors: 500, non-JSON, a hang past the timeout, 10 MB", async () => {
    const gateway = (name: string, path: string) => ({
      name,
      description: name,
      executionType: "gateway",
      visible: false,
      timeout: 500,
      inputSchema: { type: "object", properties: {} },
      execution: { url: `http://api.test${path}`, method: "GET" },
    });
    const world = await toolWorld([gateway("fails", "/status/500"), gateway("html", "/text"), gateway("hangs", "/hang"), gateway("huge", "/big")], () => [
      { toolCalls: [{ name: "fails", args: {} }, { name: "html", args: {} }, { name: "hangs", args: {} }, { name: "huge", args: {} }, skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1, 15_000);
    const errors = Object.fromEntries(run.toolCalls.filter((call) => call.toolName !== "skip").map((call) => [call.toolName, (call.result as { error: string }).error]));
    expect(errors.fails).toMatch(/HTTP 500/);
    expect(errors.html).toMatch(/non-JSON/);
    expect(errors.hangs).toMatch(/timed out after 500ms/);
    expect(errors.huge).toMatch(/exceeded/);
    expect(run.status).toBe("completed");
    world.close();
  });

  it("prebuilt tools bring their own schema and share the goal handlers with the built-ins", async () => {
    const tools = [
      { name: "setGoals", executionType: "prebuilt", execution: { action: "setGoals" } },
      { name: "getGoals", executionType: "prebuilt", execution: { action: "getGoals" } },
    ];
    const world = await toolWorld(tools, () => [
      { toolCalls: [{ name: "setGoals", args: { goals: [{ description: "Ship the tool engine", priority: 5 }] } }] },
      { toolCalls: [{ name: "getGoals", args: {} }, { name: "get_goals", args: {} }, skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const viaPrebuilt = run.toolCalls.find((call) => call.toolName === "getGoals")?.result;
    const viaBuiltin = run.toolCalls.find((call) => call.toolName === "get_goals")?.result;
    expect(viaPrebuilt).toMatchObject({ goals: [{ description: "Ship the tool engine", priority: 5 }] });
    expect(viaBuiltin).toEqual(viaPrebuilt);
    const goals = await secret<{ goals: unknown[] }>(`/api/agents/${world.agent.id}/goals`);
    expect(goals.body.goals).toHaveLength(1);
    world.close();
  });

  it("displayTool shows a call in the space the model names, stripped of targetSpaceId, and refuses other spaces", async () => {
    const image = {
      name: "makeImage",
      description: "Make an image",
      executionType: "internal",
      displayTool: true,
      inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
    };
    const outsider = await createSpace([]);
    let targetSpaceId = "";
    const world = await toolWorld([image], (spaceId) => {
      targetSpaceId = spaceId;
      return [
        {
          toolCalls: [
            { name: "makeImage", args: { targetSpaceId: spaceId, prompt: "a sunset" } },
            { name: "makeImage", args: { prompt: "silent" } },
            { name: "makeImage", args: { targetSpaceId: outsider, prompt: "nope" } },
            skip,
          ],
        },
      ];
    });
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const results = run.toolCalls.filter((call) => call.toolName === "makeImage").map((call) => call.result);
    expect(results[0]).toEqual({ success: true, args: { prompt: "a sunset" } });
    expect(results[1]).toEqual({ success: true, args: { prompt: "silent" } });
    expect((results[2] as { error: string }).error).toContain("not a member");
    const done = await world.spaceStream.waitForType("tool.done");
    expect(done.spaceId).toBe(targetSpaceId);
    expect(JSON.stringify(world.spaceStream.events)).not.toContain("targetSpaceId");
    expect(world.spaceStream.ofType("tool.done")).toHaveLength(1);
    world.close();
  });
});
