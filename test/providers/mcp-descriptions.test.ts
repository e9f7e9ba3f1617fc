/** An MCP tool's description as the model reads it: the server's name first, as `[server] description`. */
import { describe, expect, it } from "vitest";
import { McpServerConfig } from "../../src/tools/config/mcp-server-config";
import { McpPool } from "../../src/tools/mcp/mcp-pool";
import { mcpProvider } from "../../src/tools/providers/mcp-provider";
import { toolContext } from "../support/catalogue";

describe("MCP tool descriptions", () => {
  it("start with the server's name", async () => {
    const base = toolContext();
    const context = toolContext({ toolRuntime: { ...base.toolRuntime, kept: { ...base.toolRuntime.kept, mcp: new McpPool() } } });
    const loaded = await mcpProvider(McpServerConfig.parse({ name: "calc", url: "http://mcp.test/mcp" })).load(context);
    const descriptions = Object.fromEntries(loaded.tools.flatMap((tool) => (tool.kind === "engine" ? [[tool.resolved.name, tool.resolved.description]] : [])));
    expect(descriptions.calc__add).toBe("[calc] Add two numbers");
    expect(descriptions.calc__fail).toBe("[calc] Always fails");
  });
});
