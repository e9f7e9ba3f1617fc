import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { waitForRuns, waitUntil } from "../support/agents";
import { fakeJson, mcpSeen, providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";

const id = () => crypto.randomUUID().slice(0, 8);
const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });

describe("MCP connections kept across cycles", () => {
  it("three cycles share one session: one initialize, one tools/list, three calls", async () => {
    const server = id();
    const world = await providerWorld({ mcp: { servers: [{ name: "calc", url: `http://mcp.test/stateful/${server}` }] } }, () => [
      { toolCalls: [call("calc__add", { a: 1, b: 2 }), skip] },
      { toolCalls: [call("calc__add", { a: 3, b: 4 }), skip] },
      { toolCalls: [call("calc__add", { a: 5, b: 6 }), skip] },
    ]);
    for (let cycle = 1; cycle <= 3; cycle += 1) {
      await world.wake();
      await waitForRuns(world.agent.id, cycle);
    }
    const runs = await waitForRuns(world.agent.id, 3);
    expect(runs.map((run) => run.toolCalls.find((entry) => entry.toolName === "calc__add")?.result)).toEqual([{ text: "3" }, { text: "7" }, { text: "11" }]);
    const seen = await mcpSeen(server);
    expect(seen).toMatchObject({ initializes: 1, lists: 1, sessions: 1, calls: { add: 3 } });
    const connected = world.agentStream.ofType("mcp.server.connected");
    expect(connected.map((event) => event.data.reused)).toEqual([false, true, true]);
    world.close();
  });

  it("a tools/list_changed notification makes the next cycle list again, over the same session", async () => {
    const server = id();
    const world = await providerWorld({ mcp: { servers: [{ name: "g", url: `http://mcp.test/stateful/${server}` }] } }, () => [
      { toolCalls: [call("g__grow"), skip] },
      { toolCalls: [call("g__extra"), skip] },
    ]);
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    await world.wake();
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.toolCalls[0]).toMatchObject({ toolName: "g__extra", status: "completed", result: { text: "extra!" } });
    expect(await mcpSeen(server)).toMatchObject({ initializes: 1, lists: 2, sessions: 1 });
    world.close();
  });

  it("a dropped connection ends its session with DELETE: when the config changes and when the agent is deleted", async () => {
    const server = id();
    const config = (turns: unknown[]) => ({
      agent: { name: "Provided" },
      model: { provider: "scripted", turns },
      mcp: { servers: [{ name: "calc", url: `http://mcp.test/stateful/${server}` }] },
    });
    const world = await providerWorld({ mcp: { servers: [{ name: "calc", url: `http://mcp.test/stateful/${server}` }] } }, () => [
      { toolCalls: [call("calc__add", { a: 1, b: 1 }), skip] },
    ]);
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    expect((await mcpSeen(server)).deletes).toHaveLength(0);

    await secret(`/api/agents/${world.agent.id}`, { method: "PUT", body: { config: config([{ toolCalls: [call("calc__add", { a: 2, b: 2 }), skip] }]) } });
    await waitUntil(async () => (await mcpSeen(server)).deletes.length === 1, 5_000, "the session to be ended");

    await world.wake();
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.toolCalls[0].result).toEqual({ text: "4" });
    expect(await mcpSeen(server)).toMatchObject({ initializes: 2, sessions: 2 });

    await secret(`/api/agents/${world.agent.id}`, { method: "DELETE" });
    await waitUntil(async () => (await mcpSeen(server)).deletes.length === 2, 5_000, "the second session to be ended");
    world.close();
  });

  it("a call the server does not answer within the server's timeout fails as a timeout", async () => {
    const server = id();
    const world = await providerWorld({ mcp: { servers: [{ name: "s", url: `http://mcp.test/stateful/${server}`, timeout: 5 }] } }, () => [{ toolCalls: [call("s__slow"), skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls[0]).toMatchObject({ toolName: "s__slow", status: "failed", result: { error: 'MCP tool "slow" on "s" timed out after 5ms' } });
    world.close();
  });

  it("a session the server forgot (404) is initialised again and the call goes through", async () => {
    const server = id();
    const world = await providerWorld({ mcp: { servers: [{ name: "calc", url: `http://mcp.test/stateful/${server}` }] } }, () => [
      { toolCalls: [call("calc__add", { a: 1, b: 1 }), skip] },
      { toolCalls: [call("calc__add", { a: 20, b: 22 }), skip] },
    ]);
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    await fetch(`http://mcp.test/admin/${server}/forget`, { method: "POST" });
    await world.wake();
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.toolCalls[0]).toMatchObject({ status: "completed", result: { text: "42" } });
    expect(await mcpSeen(server)).toMatchObject({ initializes: 2, sessions: 2, calls: { add: 2 } });
    world.close();
  });

  it("toolsAllowed and toolsDenied pick a server's tools", async () => {
    const world = await providerWorld(
      { mcp: { servers: [{ name: "paged", url: "http://mcp.test/paged", toolsAllowed: ["tool1", "tool2", "tool3"], toolsDenied: ["tool2"] }] } },
      () => [{ toolCalls: [skip] }],
    );
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    expect((await world.agentStream.waitForType("mcp.server.connected")).data.tools).toEqual(["paged__tool1", "paged__tool3"]);
    world.close();
  });

  it("every page of tools/list is read (nextCursor)", async () => {
    const world = await providerWorld({ mcp: { servers: [{ name: "paged", url: "http://mcp.test/paged" }] } }, () => [
      { toolCalls: [call("paged__tool7"), call("paged__tool1"), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const connected = await world.agentStream.waitForType("mcp.server.connected");
    expect(connected.data.tools).toEqual(Array.from({ length: 7 }, (_, index) => `paged__tool${index + 1}`));
    expect(run.toolCalls.slice(0, 2).map((entry) => entry.result)).toEqual([{ text: "tool7 ran" }, { text: "tool1 ran" }]);
    world.close();
  });
});

describe("MCP servers that fail", () => {
  it("a server that accepts and never answers costs one connect deadline (no SSE attempt after it), then is left alone", async () => {
    const hang = id();
    const world = await providerWorld({ mcp: { servers: [{ name: "slow", url: `http://mcp.test/hang/${hang}`, connectTimeout: 300 }] } }, () => [
      { toolCalls: [skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1);
    expect(first.status).toBe("completed");
    const failed = await world.agentStream.waitForType("mcp.server.failed");
    expect(failed.data).toMatchObject({ server: "slow", failures: 1, error: "Connecting to the MCP server did not finish within 300ms" });
    expect(await fakeJson<string[]>(`http://mcp.test/hang/${hang}/methods`)).toEqual(["POST"]);

    await world.wake();
    const runs = await waitForRuns(world.agent.id, 2);
    expect(runs[1].status).toBe("completed");
    const backoff = await world.agentStream.waitForType("mcp.server.backoff");
    expect(backoff.data).toMatchObject({ server: "slow", failures: 1, retryAt: failed.data.retryAt });
    expect(await fakeJson<string[]>(`http://mcp.test/hang/${hang}/methods`)).toEqual(["POST"]);
    world.close();
  });

  it("a server answering 500 is tried over HTTP then SSE once, then backed off without a request", async () => {
    const down = id();
    const world = await providerWorld({ mcp: { servers: [{ name: "down", url: `http://mcp.test/down/${down}` }] } }, () => [{ toolCalls: [skip] }, { toolCalls: [skip] }]);
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    await world.agentStream.waitForType("mcp.server.failed");
    const count = async () => (await fakeJson<{ requests: number }>(`http://mcp.test/down/${down}/count`)).requests - 1;
    const afterFirst = await count();
    expect(afterFirst).toBe(2);
    await world.wake();
    await waitForRuns(world.agent.id, 2);
    await world.agentStream.waitForType("mcp.server.backoff");
    // The count request itself counts too: one more each time it is read.
    expect(await count()).toBe(afterFirst + 1);
    world.close();
  });
});

describe("MCP tools like any other tool", () => {
  it("an image answer reaches the model as a media part; the run record describes it without its bytes", async () => {
    const server = id();
    const world = await providerWorld({ mcp: { servers: [{ name: "pics", url: `http://mcp.test/stateful/${server}` }] } }, () => [
      { toolCalls: [call("pics__picture")] },
      { text: "a red dot" },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls[0].result).toEqual({
      content: [
        { type: "text", text: "a red dot" },
        { type: "image", mimeType: "image/png", bytes: expect.any(Number), note: "passed to the model as media" },
      ],
    });
    const { consciousnessOf } = await import("../support/agent-storage-view");
    const messages = await consciousnessOf(world.agent.id);
    const output = messages.flatMap((message) => (message.role === "tool" ? message.content : [])).find((part) => part.type === "tool-result")?.output;
    // In memory after the cycle, the media is a note; in its cycle the model saw the file part.
    expect(output).toEqual({
      type: "content",
      value: [
        { type: "text", text: "a red dot" },
        { type: "text", text: "[image/png shown to the model in its cycle; not kept in memory]" },
      ],
    });
    world.close();
  });

  it("a visible MCP tool gets a card in the space, and its progress notifications stream as tool.streaming", async () => {
    const server = id();
    const world = await providerWorld({ mcp: { servers: [{ name: "work", url: `http://mcp.test/stateful/${server}`, visible: true }] } }, (spaceId) => [
      { toolCalls: [call("enter_space", { spaceId })] },
      { toolCalls: [call("work__slow"), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const toolCallId = run.toolCalls.find((entry) => entry.toolName === "work__slow")?.toolCallId;
    const done = await world.spaceStream.waitFor((event) => event.type === "tool.done" && event.data.toolCallId === toolCallId);
    expect(done.data.result).toEqual({ text: "done slowly" });
    const progress = world.spaceStream.ofType("tool.streaming").filter((event) => event.data.toolCallId === toolCallId && event.data.progress !== undefined);
    expect(progress.map((event) => event.data.progress)).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
    const card = world.spaceStream.events.find(
      (event) => event.type === "space.message" && (event.data.parts as { toolCallId?: string }[] | undefined)?.[0]?.toolCallId === toolCallId,
    );
    expect(card?.data).toMatchObject({ role: "tool", status: "running" });
    expect(world.agentStream.ofType("tool.progress")).toHaveLength(3);
    world.close();
  });

  it("a read-only MCP tool's answers are cached; a tool with side effects is not", async () => {
    const server = id();
    const world = await providerWorld({ mcp: { servers: [{ name: "kv", url: `http://mcp.test/stateful/${server}`, cache: { ttlMs: 60_000 } }] } }, () => [
      { toolCalls: [call("kv__lookup", { key: "a" }), call("kv__add", { a: 1, b: 1 })] },
      { toolCalls: [call("kv__lookup", { key: "a" }), call("kv__add", { a: 1, b: 1 }), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const lookups = run.toolCalls.filter((entry) => entry.toolName === "kv__lookup") as { result: unknown; cacheHit?: boolean }[];
    expect(lookups.map((entry) => [entry.result, entry.cacheHit])).toEqual([
      [{ text: "value of a #1" }, false],
      [{ text: "value of a #1" }, true],
    ]);
    expect((await mcpSeen(server)).calls).toEqual({ lookup: 1, add: 2 });
    world.close();
  });

  it("the server's instructions are offered for the system prompt; a name two providers want is kept by the first, with both named", async () => {
    const server = id();
    const world = await providerWorld(
      {
        tools: [{ name: "calc__add", description: "Mine", executionType: "internal", inputSchema: { type: "object" } }],
        mcp: { servers: [{ name: "calc", url: `http://mcp.test/stateful/${server}` }] },
      },
      () => [{ toolCalls: [call("calc__add", { a: 1, b: 2 }), skip] }],
    );
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls[0].result).toEqual({ success: true, args: { a: 1, b: 2 } });
    const connected = await world.agentStream.waitForType("mcp.server.connected");
    expect(connected.data.instructions).toBe(`Server ${server}: use add for arithmetic; never guess sums.`);
    const collision = await world.agentStream.waitForType("tool.collision");
    expect(collision.data).toMatchObject({ name: "calc__add", kept: { provider: "tools", tool: "calc__add" }, refused: { provider: "calc", tool: "add" } });
    expect(collision.data.error).toBe('The name "calc__add" of tool "add" of provider "calc" is already taken by the configured tool "calc__add"');
    world.close();
  });
});
