/**
 * `warmup`: an agent's MCP servers are connected (initialize, tools/list) when
 * the agent is created or its config is replaced, not at its first cycle, at
 * most `mcpInitConcurrency` at a time.
 */
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { createAgent, listRuns, waitForRuns, waitUntil } from "../support/agents";
import { fakeJson, mcpSeen } from "../support/provider-world";
import { skip } from "../support/tool-world";

const id = () => crypto.randomUUID().slice(0, 8);
const scripted = (turns: unknown[]) => ({ agent: { name: "Warm" }, model: { provider: "scripted", turns } });

describe("MCP warmup", () => {
  it("servers are connected when the agent is created and when its config changes; the first cycle reuses the session", async () => {
    const server = id();
    const config = {
      ...scripted([{ toolCalls: [{ name: "calc__add", args: { a: 1, b: 2 } }, skip] }]),
      warmup: true,
      mcp: { servers: [{ name: "calc", url: `http://mcp.test/stateful/${server}` }] },
    };
    const agent = await createAgent(config);
    await waitUntil(async () => (await mcpSeen(server)).lists === 1, 5_000, "the server to be listed");
    expect(await mcpSeen(server)).toMatchObject({ initializes: 1, lists: 1 });
    expect(await listRuns(agent.id)).toEqual([]);

    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(agent.id, 1);
    expect(run.toolCalls[0]).toMatchObject({ toolName: "calc__add", status: "completed", result: { text: "3" } });
    expect(await mcpSeen(server)).toMatchObject({ initializes: 1, lists: 1 });

    // A replaced config ends the session and connects again at once.
    await secret(`/api/agents/${agent.id}`, { method: "PUT", body: { config } });
    await waitUntil(async () => (await mcpSeen(server)).initializes === 2, 5_000, "a second initialize");
    expect(await listRuns(agent.id)).toHaveLength(1);
  });

  it("a cycle that starts while warmup still connects waits for it: one session, not two", async () => {
    const server = id();
    const agent = await createAgent({
      ...scripted([{ toolCalls: [{ name: "calc__add", args: { a: 2, b: 2 } }, skip] }]),
      warmup: true,
      mcp: { servers: [{ name: "calc", url: `http://mcp.test/stateful/${server}` }] },
    });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(agent.id, 1);
    expect(run.toolCalls[0]).toMatchObject({ status: "completed", result: { text: "4" } });
    expect(await mcpSeen(server)).toMatchObject({ initializes: 1, sessions: 1 });
  });

  it("without warmup nothing connects before a cycle", async () => {
    const server = id();
    const agent = await createAgent({ ...scripted([{ toolCalls: [skip] }]), mcp: { servers: [{ name: "calc", url: `http://mcp.test/stateful/${server}` }] } });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: {} } });
    await waitForRuns(agent.id, 1);
    expect((await mcpSeen(server)).initializes).toBe(1);
    // The first cycle made the only connection; the agent's creation made none (a second agent shows it).
    const cold = id();
    await createAgent({ ...scripted([]), mcp: { servers: [{ name: "calc", url: `http://mcp.test/stateful/${cold}` }] } });
    const warm = id();
    await createAgent({ ...scripted([]), warmup: true, mcp: { servers: [{ name: "calc", url: `http://mcp.test/stateful/${warm}` }] } });
    await waitUntil(async () => (await mcpSeen(warm)).lists === 1, 5_000, "the warm server to be listed");
    expect((await mcpSeen(cold)).initializes).toBe(0);
  });

  it("at most mcpInitConcurrency servers connect at a time", async () => {
    const hanging = [id(), id(), id()];
    await createAgent({
      ...scripted([]),
      warmup: true,
      mcpInitConcurrency: 2,
      mcp: { servers: hanging.map((server, index) => ({ name: `s${index}`, url: `http://mcp.test/hang/${server}`, connectTimeout: 60_000 })) },
    });
    const methods = async (server: string) => fakeJson<string[]>(`http://mcp.test/hang/${server}/methods`);
    await waitUntil(async () => (await methods(hanging[0])).length > 0 && (await methods(hanging[1])).length > 0, 5_000, "two servers to be asked");
    // Both slots are held by servers that never answer: the third waits for one.
    expect(await methods(hanging[2])).toEqual([]);
  });

  it("mcpInitConcurrency is bounded", async () => {
    const refused = await secret<{ error: { details: { path: string }[] } }>("/api/agents", { body: { config: { ...scripted([]), mcpInitConcurrency: 0 } } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.map((detail) => detail.path)).toContain("config.mcpInitConcurrency");
  });
});
