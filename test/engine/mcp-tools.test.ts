import { describe, expect, it } from "vitest";
import { createAgent, waitForRuns } from "../support/agents";
import { skip, toolWorld } from "../support/tool-world";
import { secret } from "../support/api";

describe("MCP servers", () => {
  it("an agent calls the allowed tools of an MCP server as {server}__{tool}", async () => {
    const world = await toolWorld([], () => []);
    await secret(`/api/agents/${world.agent.id}`, {
      method: "PUT",
      body: {
        config: {
          agent: { name: "Toolsmith" },
          model: {
            provider: "scripted",
            turns: [
              {
                toolCalls: [
                  { name: "calc__add", args: { a: 2, b: 40 } },
                  { name: "calc__fail", args: {} },
                  { name: "calc__add", args: { a: "two" } },
                ],
              },
              { toolCalls: [{ name: "calc__hidden", args: {} }, skip] },
            ],
          },
          mcp: {
            servers: [{ name: "calc", url: "http://mcp.test/mcp", transport: "http", allowedTools: ["add", "fail"], headers: { authorization: "Bearer ${env.TOOL_API_TOKEN}" } }],
          },
        },
      },
    });
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1, 15_000);
    const results = run.toolCalls.map((call) => [call.toolName, call.result ?? call.error]);
    expect(results[0]).toEqual(["calc__add", { text: "42" }]);
    expect(results[1]).toEqual(["calc__fail", { error: "it broke" }]);
    expect(JSON.stringify(results[2][1])).toContain("Invalid arguments");
    expect(run.toolCalls.find((call) => call.toolName === "calc__hidden")?.status).toBe("failed");
    const connected = await world.agentStream.waitForType("mcp.server.connected");
    expect(connected.data).toMatchObject({ server: "calc", tools: ["calc__add", "calc__fail"] });
    const seen = (await (await fetch("http://hooks.test/recorded/mcp-auth")).json()) as { headers: { authorization: string } }[];
    expect(seen[0].headers.authorization).toBe("Bearer test-tool-token");
    world.close();
  });

  it("an unreachable MCP server is reported and the cycle goes on without its tools", async () => {
    const agent = await createAgent({
      agent: { name: "Resilient" },
      model: { provider: "scripted", turns: [{ toolCalls: [skip] }] },
      mcp: { servers: [{ name: "gone", url: "http://nowhere.test/mcp" }] },
    });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(agent.id, 1, 15_000);
    expect(run.status).toBe("completed");
  });

  it("an MCP server header naming a secret that is not set is refused when the agent is saved", async () => {
    const refused = await secret<{ error: { details: { path: string }[] } }>("/api/agents", {
      body: {
        config: {
          agent: { name: "x" },
          model: { provider: "scripted", turns: [] },
          mcp: { servers: [{ name: "calc", url: "http://mcp.test/mcp", headers: { authorization: "Bearer ${env.MISSING_TOKEN}" } }] },
        },
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].path).toBe("config.mcp.servers.0.headers.authorization");
  });

  it("a listed tool whose schema cannot compile is skipped and reported; an answer too deep is a tool error", async () => {
    const world = await toolWorld([], () => []);
    await secret(`/api/agents/${world.agent.id}`, {
      method: "PUT",
      body: {
        config: {
          agent: { name: "Toolsmith" },
          model: {
            provider: "scripted",
            turns: [
              {
                toolCalls: [
                  { name: "odd__echo", args: { text: "hi" } },
                  { name: "odd__deep", args: {} },
                  { name: "odd__broken", args: { text: "x" } },
                ],
              },
              { toolCalls: [skip] },
            ],
          },
          mcp: { servers: [{ name: "odd", url: "http://mcp.test/odd" }] },
        },
      },
    });
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1, 15_000);
    const skipped = await world.agentStream.waitForType("mcp.tool.skipped");
    expect(skipped.data).toEqual({ server: "odd", tool: "broken", error: expect.stringMatching(/^inputSchema\.properties\.text\.pattern: Not a valid regular expression/) });
    const connected = await world.agentStream.waitForType("mcp.server.connected");
    expect(connected.data).toMatchObject({ server: "odd", tools: ["odd__echo", "odd__deep"] });
    const byName = Object.fromEntries(run.toolCalls.map((call) => [call.toolName, call]));
    expect(byName.odd__echo.result).toEqual({ text: '{"text":"hi"}' });
    expect(byName.odd__deep.result).toEqual({ error: expect.stringContaining("deeper than 64 levels") });
    expect(byName.odd__broken.status).toBe("failed");
    expect(run.status).toBe("completed");
    world.close();
  });
});
