/**
 * Every config the design documents show, as they write it
 * (`test/fixtures/design-examples/`, copied verbatim by
 * `scripts/extract-design-examples.mjs`), goes through the public routes: the
 * agent or tool is created, and a tool is called by a scripted model with the
 * outcome its document describes checked. Where the gateway deliberately
 * differs (docs/seeds.md), the test pins the refusal and its reason,
 * then completes the example the way the message says.
 */
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { callJson, createHuman, createSpace, memberHeaders, postMessage, secret } from "./support/api";
import { createAgent, type RunRecord, settledRuns, waitForRuns, waitUntil } from "./support/agents";
import { enter, skip, submitResult, toolWorld } from "./support/tool-world";
import index from "./fixtures/design-examples/index.json";

declare global {
  interface ImportMeta {
    glob(pattern: string, options: { eager: true; query: "?raw"; import: "default" }): Record<string, string>;
  }
}

const texts = import.meta.glob("./fixtures/design-examples/*.{json,jsonc,yaml}", { eager: true, query: "?raw", import: "default" });

/** A fixture's value: JSON, or JSON with comments (the document's `/* … *\/` placeholders removed, as the extraction script reads them). */
function fixture(file: string): Record<string, unknown> {
  const text = texts[`./fixtures/design-examples/${file}`];
  if (text === undefined) throw new Error(`no fixture ${file}`);
  // YAML is converted to JSON first, as a user would (the gateway reads JSON only).
  const value: unknown = file.endsWith(".yaml") ? parseYaml(text) : JSON.parse(file.endsWith(".jsonc") ? text.replace(/\/\*[\s\S]*?\*\//g, "") : text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${file} is not an object`);
  return { ...value };
}

const configKinds = new Set(["agent-config", "tool-config", "mcp-server", "orchestrator-config", "catalogue-config"]);
const configs = index.filter((entry) => configKinds.has(entry.kind));

type Problem = { path: string; message: string };
async function createRefused(config: Record<string, unknown>): Promise<{ status: number; problems: Problem[] }> {
  const { status, body } = await secret<{ error?: { code: string; details?: Problem[] } }>("/api/agents", { body: { config } });
  return { status, problems: body.error?.details ?? [] };
}

async function storedConfig(agentId: string): Promise<Record<string, unknown>> {
  const { body } = await secret<{ config: Record<string, unknown> }>(`/api/agents/${agentId}`);
  return body.config;
}

const scripted = { provider: "scripted", turns: [] };

/**
 * The document's field table lists `description` and `inputSchema`, and
 * several of its examples leave them out for brevity: the gateway takes such
 * an example as written (the model is shown the tool's name as its
 * description and an input of no fields). `omits` names what the example
 * leaves out, checked here so the case stays honest.
 */
async function completed(tool: Record<string, unknown>, omits: ("description" | "inputSchema")[]): Promise<Record<string, unknown>> {
  for (const field of omits) expect(tool[field], field).toBeUndefined();
  const accepted = await createRefused({ agent: { name: "as-written" }, model: scripted, tools: [tool] });
  expect(accepted.status, JSON.stringify(accepted.problems)).toBe(201);
  return tool;
}

function callOf(run: RunRecord, name: string) {
  const found = run.toolCalls.find((entry) => entry.toolName === name);
  if (!found) throw new Error(`no call of ${name} in ${JSON.stringify(run.toolCalls.map((entry) => entry.toolName))}`);
  return found;
}

type Message = { role: string; parts?: { type: string; toolName?: string; status?: string; result?: unknown; customUI?: string; executedBy?: unknown }[] };
async function cards(spaceId: string, headers?: Record<string, string>) {
  const { body } = headers
    ? await callJson<{ messages: Message[] }>(`/api/spaces/${spaceId}/messages`, { headers })
    : await secret<{ messages: Message[] }>(`/api/spaces/${spaceId}/messages`);
  return body.messages.flatMap((message) => message.parts ?? []).filter((part) => part.type === "tool_call");
}

async function recorded(name: string): Promise<{ method: string; url: string }[]> {
  return (await fetch(`http://recorded.test/${name}`)).json();
}

async function openCall(agentId: string, status: "waiting" | "pending") {
  let found: { toolCallId: string; runId: string } | undefined;
  await waitUntil(
    async () => {
      const { body } = await secret<{ pendingToolCalls: { toolCallId: string; runId: string }[] }>(`/api/agents/${agentId}/pending-tool-calls?status=${status}`);
      found = body.pendingToolCalls[0];
      return found !== undefined;
    },
    5_000,
    `a ${status} call`,
  );
  if (!found) throw new Error("unreachable");
  return found;
}

/** What each config example must do; every config fixture has an entry (checked below). */
const cases: Record<string, () => Promise<void>> = {
  // The primary example: a space tool with a URL. A URL means an inline HTTP call (the decision flow), so it is a gateway tool.
  "tool-system-1.jsonc": async () => {
    const written = fixture("tool-system-1.jsonc");
    expect(written.execution).toEqual({ url: "...", method: "POST" });
    // The document writes the URL as "...": the test names a real one.
    const tool = { ...written, execution: { url: "http://api.test/echo/confirm", method: "POST" } };
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "confirmAction", args: {} }, skip] }]);
    expect(((await storedConfig(world.agent.id)).tools as { executionType: string }[])[0].executionType).toBe("gateway");
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(callOf(run, "confirmAction")).toMatchObject({ status: "completed", result: { method: "POST", path: "/echo/confirm" } });
    expect(await cards(world.spaceId)).toMatchObject([{ toolName: "confirmAction", status: "complete" }]);
  },
  "tool-system-3.json": async () => {
    const tool = await completed(fixture("tool-system-3.json"), ["description", "inputSchema"]);
    const before = (await recorded("stray")).length;
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "fetchWeather", args: {} }, skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    // Tests never reach the network: the weather service's host is answered by the fake remote, which records the request.
    expect(callOf(run, "fetchWeather")).toMatchObject({ status: "completed", result: { stray: true } });
    expect((await recorded("stray")).slice(before)).toContainEqual(expect.objectContaining({ method: "GET", url: "https://api.weather.com/current" }));
    expect(await cards(world.spaceId)).toMatchObject([{ toolName: "fetchWeather", status: "complete" }]);
  },
  "tool-system-4.json": async () => {
    const tool = await completed(fixture("tool-system-4.json"), ["description", "inputSchema"]);
    const world = await toolWorld([tool], () => [{ toolCalls: [{ name: "fetchExternalData", args: {} }] }, { toolCalls: [skip] }]);
    await world.wake();
    // Not async: the call waits (up to 10 s) and a result posted in time comes back inline, with no second cycle.
    const waiting = await openCall(world.agent.id, "waiting");
    expect((await submitResult(waiting.runId, waiting.toolCallId, { source: "pm-api", results: [1, 2, 3] })).status).toBe(200);
    const runs = await settledRuns(world.agent.id);
    expect(runs).toHaveLength(1);
    expect(callOf(runs[0], "fetchExternalData")).toMatchObject({ status: "completed", result: { source: "pm-api", results: [1, 2, 3] } });
  },
  "tool-system-5.json": async () => {
    const tool = await completed(fixture("tool-system-5.json"), ["description", "inputSchema"]);
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "confirmAction", args: {} }, skip] }, { toolCalls: [skip] }]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1);
    expect(callOf(first, "confirmAction").result).toEqual({ status: "pending", pendingToolCallId: expect.any(String) });
    expect(await cards(world.spaceId)).toMatchObject([{ toolName: "confirmAction", status: "requires_action" }]);
    // The person confirms from the space: the result reaches the agent's inbox and wakes a second cycle.
    const pending = await openCall(world.agent.id, "pending");
    const answered = await callJson(`/api/spaces/${world.spaceId}/tool-results`, {
      body: { callId: pending.toolCallId, result: { confirmed: true } },
      headers: await memberHeaders(world.person),
    });
    expect(answered.status).toBe(200);
    const runs = await settledRuns(world.agent.id);
    expect(runs[1].trigger).toContainEqual(expect.objectContaining({ type: "tool_result" }));
    expect(await cards(world.spaceId)).toMatchObject([{ toolName: "confirmAction", status: "complete", result: { confirmed: true } }]);
  },
  "tool-system-6.json": async () => {
    const tool = await completed(fixture("tool-system-6.json"), ["description", "inputSchema"]);
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "displayChart", args: { points: [1, 2] } }, skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(callOf(run, "displayChart").result).toEqual({ success: true, args: { points: [1, 2] } });
    expect(await cards(world.spaceId)).toMatchObject([{ toolName: "displayChart", status: "complete" }]);
  },
  "tool-system-7.json": async () => {
    const agent = await createAgent({ agent: { name: "mcp" }, model: scripted, ...fixture("tool-system-7.json") });
    expect((await storedConfig(agent.id)).mcp).toEqual({
      servers: [{ name: "github-tools", url: "https://mcp.github.com", transport: "http", allowedTools: ["list_prs", "create_issue"] }],
    });
  },
  // A server the orchestrator spawns as a local process: a Worker cannot, so `stdio` is refused with the transports it can use.
  "orchestrator-1.json": async () => {
    const refused = await createRefused({ agent: { name: "stdio" }, model: scripted, mcpServers: { github: fixture("orchestrator-1.json") } });
    expect(refused.status).toBe(400);
    expect(refused.problems).toContainEqual(expect.objectContaining({ path: "config.mcp.servers.0.transport", message: expect.stringMatching(/http.*sse/) }));
    // Its other settings are the orchestrator's, accepted: the per-server cache in ms, allow and deny lists, the queue.
    const { type: _type, command: _command, args: _args, env: _env, ...settings } = fixture("orchestrator-1.json");
    const agent = await createAgent({
      agent: { name: "stdio" },
      model: scripted,
      queues: { "github-queue": { concurrent: 2 } },
      mcpServers: { github: { ...settings, url: "http://mcp.test/mcp" } },
    });
    expect((await storedConfig(agent.id)).mcp).toEqual({
      servers: [
        {
          name: "github",
          url: "http://mcp.test/mcp",
          transport: "http",
          toolsAllowed: ["search_code", "get_file"],
          toolsDenied: ["delete_repo"],
          cache: { ttlMs: 300000 },
          queue: "github-queue",
        },
      ],
    });
  },
  // A REST tool of the orchestrator: a gateway tool here, `${parameters.city}` the `{{city}}` placeholder, `${WEATHER_API_KEY}` the Worker secret.
  "orchestrator-2.json": async () => {
    const written = fixture("orchestrator-2.json");
    // The orchestrator names it by its key in its config; a tool here carries its name, and one without is refused saying so.
    const refused = await createRefused({ agent: { name: "rest" }, model: scripted, tools: [written] });
    expect(refused).toEqual({ status: 400, problems: [expect.objectContaining({ path: "config.tools.0.name", message: expect.stringContaining("Required") })] });
    const tool = { name: "weather_api", ...written };
    const before = (await recorded("stray")).length;
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "weather_api", args: { city: "São Paulo" } }, skip] }]);
    expect((await storedConfig(world.agent.id)).tools).toEqual([
      {
        name: "weather_api",
        description: "Get weather data for a city",
        inputSchema: written.parametersSchema,
        executionType: "gateway",
        execution: { method: "GET", url: "https://api.weather.com/v1/{{city}}", headers: { Authorization: "Bearer ${env.WEATHER_API_KEY}" } },
      },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(callOf(run, "weather_api")).toMatchObject({ status: "completed", result: { stray: true } });
    // Tests never reach the network: the fake remote answers the weather host and records what was sent.
    const [sent] = ((await recorded("stray")).slice(before) as unknown as { method: string; url: string; headers: Record<string, string> }[]).filter((entry) =>
      entry.url.startsWith("https://api.weather.com/v1/"),
    );
    expect(sent).toMatchObject({ method: "GET", url: "https://api.weather.com/v1/S%C3%A3o%20Paulo", headers: { authorization: "Bearer test-weather-key" } });
  },
  "orchestrator-3.json": async () => {
    const { queues, mcpServers } = fixture("orchestrator-3.json");
    // The document gives the servers' settings, not where they are: the test names the fake MCP server.
    const servers = Object.fromEntries(
      Object.entries(mcpServers as Record<string, Record<string, unknown>>).map(([name, server]) => [name, { ...server, url: "http://mcp.test/mcp" }]),
    );
    const agent = await createAgent({ agent: { name: "queues" }, model: scripted, queues, mcpServers: servers });
    const stored = await storedConfig(agent.id);
    expect(stored.queues).toEqual({ github: { concurrency: 3 }, "slow-api": { concurrency: 1 } });
    expect(stored.mcp).toMatchObject({
      servers: [
        { name: "github", queue: "github" },
        { name: "slow-service", queue: "slow-api" },
      ],
    });
  },
  // The catalogue's configs are YAML: converted to JSON, their `tools` settings are placed where they live here.
  "catalogue-1.yaml": async () => {
    const written = fixture("catalogue-1.yaml");
    const refused = await createRefused({ agent: { name: "catalogue" }, model: scripted, ...written });
    // A local subprocess: a Worker cannot start one, so `stdio` is refused with the transports it can use.
    expect(refused.status).toBe(400);
    expect(refused.problems).toContainEqual(expect.objectContaining({ path: "config.mcp.servers.0.transport", message: expect.stringMatching(/http.*sse/) }));
    const { mcpServers } = written.tools as { mcpServers: Record<string, unknown>[] };
    const remote = mcpServers.filter((server) => server.transport !== "stdio");
    const agent = await createAgent({ agent: { name: "catalogue" }, model: scripted, tools: { mcpServers: remote } });
    expect((await storedConfig(agent.id)).mcp).toEqual({ servers: [{ name: "remote-tools", transport: "sse", url: "http://localhost:3000/sse", enabled: true }] });
    expect((await storedConfig(agent.id)).tools).toEqual([]);
  },
  "catalogue-2.yaml": async () => {
    const written = fixture("catalogue-2.yaml");
    const refused = await createRefused({ agent: { name: "catalogue" }, model: scripted, ...written });
    expect(refused.status).toBe(400);
    expect(refused.problems).toContainEqual(expect.objectContaining({ path: "config.mcp.servers.0.transport", message: expect.stringMatching(/http.*sse/) }));
    const settings = written.tools as Record<string, unknown> & { mcpServers: Record<string, unknown>[] };
    const tools = { ...settings, mcpServers: settings.mcpServers.filter((server) => server.transport !== "stdio") };
    const agent = await createAgent({ agent: { name: "catalogue" }, model: scripted, tools });
    const stored = await storedConfig(agent.id);
    expect(stored.limits).toMatchObject({ toolTimeout: 30000, maxConcurrentTools: 3 });
    // The folders are the shared files area's (R2), not a disk's: `./data` is the folder `data/`.
    expect(stored.files).toEqual({ prefixes: ["data/", "docs/", "src/"] });
    // `${WEB_SEARCH_API_KEY}` names the Worker secret, stored the gateway's one way.
    expect(stored.webSearch).toEqual({ provider: "tavily", apiKey: "${env.WEB_SEARCH_API_KEY}", maxResults: 10 });
    expect(stored.mcp).toEqual({ servers: [{ name: "remote", transport: "sse", url: "http://localhost:3000/sse", enabled: false }] });
    expect(stored.tools).toEqual([]);
    // A setting given both ways is refused, not silently resolved; so is one the gateway does not know.
    const both = await createRefused({ agent: { name: "both" }, model: scripted, limits: { toolTimeout: 5000 }, tools: { timeout: 30000 } });
    expect(both).toMatchObject({ status: 400, problems: [expect.objectContaining({ path: "config.tools" })] });
    expect((await createRefused({ agent: { name: "unknown" }, model: scripted, tools: { maxParallel: 3 } })).status).toBe(400);
  },
  "display-tools-1.json": () => imageExample("display-tools-1.json"),
  "display-tools-4.json": () => imageExample("display-tools-4.json"),
  "display-tools-3.json": () => chartExample("display-tools-3.json", ["description"]),
  "display-tools-7.json": () => chartExample("display-tools-7.json", []),
  // A client tool (`basic`, no execution) shown in the space the model names; the browser answers through the space's result route.
  "display-tools-5.json": async () => {
    const world = await toolWorld([fixture("display-tools-5.json")], (spaceId) => [
      { toolCalls: [{ name: "showApprovalForm", args: { amount: 50000, reason: "Q4 campaign", targetSpaceId: spaceId } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const waiting = await openCall(world.agent.id, "waiting");
    await waitUntil(async () => (await cards(world.spaceId)).some((card) => card.status === "requires_action"), 5_000, "the form in the space");
    const answered = await callJson(`/api/spaces/${world.spaceId}/tool-results`, {
      body: { runId: waiting.runId, toolCallId: waiting.toolCallId, result: { approved: true, approvedBy: "Ahmad" }, source: "client" },
      headers: await memberHeaders(world.person),
    });
    expect(answered).toMatchObject({ status: 200, body: { success: true } });
    const [run] = await settledRuns(world.agent.id);
    expect(callOf(run, "showApprovalForm")).toMatchObject({ status: "completed", result: { approved: true, approvedBy: "Ahmad" }, args: { amount: 50000, reason: "Q4 campaign" } });
    expect(await cards(world.spaceId)).toMatchObject([{ toolName: "showApprovalForm", status: "complete", customUI: "ApprovalForm", executedBy: { source: "client" } }]);
  },
  "display-tools-6.json": async () => {
    const before = (await recorded("stray")).length;
    const world = await toolWorld([fixture("display-tools-6.json")], (spaceId) => [
      { toolCalls: [{ name: "fetchWeatherData", args: { city: "New York", targetSpaceId: spaceId } }, skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(callOf(run, "fetchWeatherData")).toMatchObject({ status: "completed", args: { city: "New York" } });
    const requests = (await recorded("stray")).slice(before).map((entry) => entry.url);
    expect(requests).toContain("https://api.weather.com/v1/current?city=New%20York");
    expect(await cards(world.spaceId)).toMatchObject([{ toolName: "fetchWeatherData", status: "complete" }]);
  },
  "prebuilt-tools-1.json": async () => {
    const world = await toolWorld([fixture("prebuilt-tools-1.json")], () => [
      { toolCalls: [{ name: "setGoals", args: { goals: [{ description: "Old goal" }] } }] },
      { toolCalls: [{ name: "setGoals", args: { goals: [{ description: "Help the user", priority: 3, isLongTerm: true }], clearExisting: true } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const [, replaced] = run.toolCalls.filter((entry) => entry.toolName === "setGoals");
    expect(replaced.result).toMatchObject({
      success: true,
      goalsModified: [{ action: "created", id: expect.any(String), description: "Help the user" }],
      currentGoals: [{ description: "Help the user", priority: 3, isLongTerm: true, isCompleted: false }],
      totalGoals: 1,
    });
  },
  "prebuilt-tools-3.json": async () => {
    const written = fixture("prebuilt-tools-3.json");
    const agent = await createAgent(written);
    expect(await storedConfig(agent.id)).toMatchObject({ runtime: { response: { type: "ui-message-stream" } }, model: { provider: "openai", name: "gpt-4o" } });
    // Tests never call OpenAI: the same config with the scripted model plays the calls the document describes.
    const world = await toolWorld(written.tools as unknown[], () => [
      { toolCalls: [{ name: "setGoals", args: { goals: [{ description: "Plan the trip", priority: 2 }] } }] },
      { toolCalls: [{ name: "getGoals", args: {} }, skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(callOf(run, "setGoals").result).toMatchObject({ success: true, goalsModified: [{ action: "created" }], totalGoals: 1 });
    expect(callOf(run, "getGoals").result).toMatchObject({ goals: [{ description: "Plan the trip", priority: 2 }] });
  },
};

/** `image-generator` with the display document's `provider: "dall-e"` and `quality`: OpenAI's dall-e-3, the quality passed on. */
async function imageExample(file: string) {
  const written = fixture(file);
  const stored = await storedConfig((await createAgent({ agent: { name: "images" }, model: scripted, tools: [written] })).id);
  expect((stored.tools as { execution: unknown }[])[0].execution).toEqual({ provider: "openai", model: "dall-e-3", providerOptions: { quality: "hd" } });
  // The fake OpenAI answers instead of the real one.
  const tool = { ...written, execution: { ...(written.execution as object), baseURL: "http://openai.test/v1", apiKeyEnv: "TOOL_API_TOKEN" } };
  const before = (await recorded("openai-images")).length;
  const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [{ name: "generateImage", args: { prompt: "a sunset over mountains", targetSpaceId: spaceId } }, skip] }]);
  await world.wake();
  const [run] = await waitForRuns(world.agent.id, 1);
  expect(callOf(run, "generateImage")).toMatchObject({ status: "completed", args: { prompt: "a sunset over mountains" } });
  const [request] = (await recorded("openai-images")).slice(before) as unknown as { body: string }[];
  expect(JSON.parse(request.body)).toMatchObject({ model: "dall-e-3", quality: "hd", prompt: "a sunset over mountains" });
  const customUI = (written.display as { customUI?: string } | undefined)?.customUI;
  expect(await cards(world.spaceId)).toMatchObject([{ toolName: "generateImage", status: "complete", ...(customUI && { customUI }) }]);
}

/** `basic` with `mode: "pass-through"`: the input comes back at once, shown where the model says. */
async function chartExample(file: string, needs: ("description" | "inputSchema")[]) {
  const tool = await completed(fixture(file), needs);
  const args = { type: "bar", data: [3, 5], title: "Q4 Revenue" };
  const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [{ name: "showChart", args: { ...args, targetSpaceId: spaceId } }, skip] }]);
  await world.wake();
  const [run] = await waitForRuns(world.agent.id, 1);
  expect(callOf(run, "showChart").result).toEqual({ success: true, args });
  expect(await cards(world.spaceId)).toMatchObject([{ toolName: "showChart", status: "complete", customUI: "Chart" }]);
}

describe("the design documents' examples", () => {
  it("every config example has a case here, and the index says where each came from", () => {
    expect(configs.length).toBeGreaterThan(10);
    expect(configs.map((entry) => entry.file).sort()).toEqual(Object.keys(cases).sort());
    for (const entry of index) expect(texts[`./fixtures/design-examples/${entry.file}`] ?? entry.file.endsWith(".txt")).toBeTruthy();
  });

  for (const entry of configs) {
    it(`${entry.file}: ${entry.kind} from "${entry.document}", line ${entry.line}`, () => cases[entry.file]());
  }
});

describe("forms the documents name without a JSON example", () => {
  it("an MCP server with enabled: false is kept in the config but never connected: it gives no tools", async () => {
    const servers = [
      { name: "off", url: "http://mcp.test/mcp", enabled: false },
      { name: "on", url: "http://mcp.test/mcp" },
    ];
    const agent = await createAgent({
      agent: { name: "mcp-off" },
      model: { provider: "scripted", turns: [{ toolCalls: [{ name: "off__add", args: { a: 1, b: 2 } }, { name: "on__add", args: { a: 1, b: 2 } }, skip] }] },
      mcp: { servers },
    });
    expect(((await storedConfig(agent.id)).mcp as { servers: unknown[] }).servers[0]).toMatchObject({ name: "off", enabled: false });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(agent.id, 1);
    expect(callOf(run, "on__add")).toMatchObject({ status: "completed" });
    expect(callOf(run, "off__add")).toMatchObject({ status: "failed" });
    expect(JSON.stringify(callOf(run, "off__add").result)).toMatch(/off__add/);
  });

  it("the orchestrator's per-server requestTimeoutMs is the server's timeout", async () => {
    const agent = await createAgent({
      agent: { name: "timeouts" },
      model: scripted,
      mcp: { servers: [{ name: "slow", url: "http://mcp.test/mcp", requestTimeoutMs: 5000, cache: 60000 }] },
    });
    expect(((await storedConfig(agent.id)).mcp as { servers: unknown[] }).servers[0]).toEqual({
      name: "slow",
      url: "http://mcp.test/mcp",
      transport: "http",
      timeout: 5000,
      cache: { ttlMs: 60000 },
    });
  });

  it("the prebuilt roadmap's setMemory, getMemory, createPlan and getPlan are the actions here", async () => {
    const tools = ["setMemory", "getMemory", "createPlan", "getPlan"].map((action) => ({ name: action, executionType: "prebuilt", execution: { action } }));
    const world = await toolWorld(tools, () => [
      { toolCalls: [{ name: "setMemory", args: { memories: [{ key: "tz", value: "Europe/Berlin" }] } }] },
      { toolCalls: [{ name: "createPlan", args: { plans: [{ name: "standup", instruction: "Say good morning", cron: "0 9 * * 1-5" }] } }] },
      { toolCalls: [{ name: "getMemory", args: {} }, { name: "getPlan", args: {} }, skip] },
    ]);
    const stored = (await storedConfig(world.agent.id)).tools as { execution: { action: string } }[];
    expect(stored.map((tool) => tool.execution.action)).toEqual(["setMemories", "getMemories", "setPlans", "getPlans"]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(callOf(run, "getMemory").result).toMatchObject({ memories: [{ key: "tz", value: "Europe/Berlin" }] });
    expect(callOf(run, "getPlan").result).toMatchObject({ plans: [{ name: "standup" }] });
  });

  it("the prebuilt roadmap's searchKnowledge, sendNotification, getSpaceContext and updateSpaceMetadata act on the agent's knowledge and spaces", async () => {
    const actions = ["searchKnowledge", "sendNotification", "getSpaceContext", "updateSpaceMetadata", "setMemory"];
    const tools = actions.map((action) => ({ name: action, executionType: "prebuilt", execution: { action } }));
    const oversized = { blob: "x".repeat(9_000) };
    const world = await toolWorld(tools, (spaceId) => [
      {
        toolCalls: [
          {
            name: "setMemory",
            args: {
              memories: [
                { key: "favourite-colour", value: "Teal, like the sea" },
                { key: "city", value: "Lisbon" },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: "sendNotification", args: { message: "Nowhere to say it" } }, enter(spaceId)] },
      {
        toolCalls: [
          { name: "searchKnowledge", args: { query: "TEAL sea colour" } },
          { name: "updateSpaceMetadata", args: { metadata: { topic: "launch", stage: { name: "draft", step: 1 } } } },
        ],
      },
      { toolCalls: [{ name: "updateSpaceMetadata", args: { metadata: { stage: { step: null }, owner: "pat" } } }] },
      {
        toolCalls: [
          { name: "updateSpaceMetadata", args: { metadata: oversized } },
          { name: "getSpaceContext", args: {} },
        ],
      },
      { toolCalls: [{ name: "sendNotification", args: { title: "Launch", message: "The draft is ready" } }, skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const calls = (name: string) => run.toolCalls.filter((entry) => entry.toolName === name);
    // Not in a space and none named: nothing is posted.
    expect(calls("sendNotification")[0]).toMatchObject({ status: "failed" });
    expect(callOf(run, "searchKnowledge").result).toMatchObject({
      total: 1,
      results: [{ source: "memory", key: "favourite-colour", value: "Teal, like the sea", score: 1 }],
    });
    // A merge patch: nested objects merge, null removes; a patch past the limits changes nothing.
    expect(calls("updateSpaceMetadata").map((entry) => entry.status)).toEqual(["completed", "completed", "failed"]);
    expect(calls("updateSpaceMetadata")[1].result).toMatchObject({ metadata: { topic: "launch", stage: { name: "draft" }, owner: "pat" } });
    const context = callOf(run, "getSpaceContext").result as { metadata: unknown; members: { id: string; type: string; you: boolean }[]; name: string; active: boolean };
    expect(context).toMatchObject({ name: "Room", active: true, metadata: { topic: "launch", stage: { name: "draft" }, owner: "pat" } });
    expect(context.members.map((member) => [member.id, member.type, member.you]).sort()).toEqual(
      [
        [world.person, "human", false],
        [world.agent.entityId, "agent", true],
      ].sort(),
    );
    const { body: space } = await secret<{ metadata: unknown }>(`/api/spaces/${world.spaceId}`);
    expect(space.metadata).toEqual({ topic: "launch", stage: { name: "draft" }, owner: "pat" });
    // People set it when they create a space, within the same limits.
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, index]));
    expect((await secret("/api/spaces", { body: { name: "Big", metadata: tooMany } })).status).toBe(400);
    const { body: created } = await secret<{ id: string }>("/api/spaces", { body: { name: "Tagged", metadata: { team: "ops" } } });
    expect((await secret<{ metadata: unknown }>(`/api/spaces/${created.id}`)).body.metadata).toEqual({ team: "ops" });
    // The notification is a message in the space that mentions the run's initiator (the external wake has none: the person is named below).
    expect(calls("sendNotification")[1]).toMatchObject({ status: "failed" });
  });

  it("sendNotification mentions whom it notifies, by default whoever started the run", async () => {
    const tools = [{ name: "sendNotification", executionType: "prebuilt", execution: { action: "sendNotification" } }];
    const world = await toolWorld(tools, (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "sendNotification", args: { title: "Launch", message: "The draft is ready" } }] },
      { toolCalls: [{ name: "sendNotification", args: { message: "Not a member", recipientIds: ["ent_nobody"] } }, skip] },
    ]);
    await postMessage(world.spaceId, world.person, `@Toolsmith go`, [world.agent.entityId]);
    const [run] = await waitForRuns(world.agent.id, 1);
    const [notified, refused] = run.toolCalls.filter((entry) => entry.toolName === "sendNotification");
    expect(notified).toMatchObject({ status: "completed", result: { success: true, notified: [world.person], spaceId: world.spaceId } });
    expect(refused).toMatchObject({ status: "failed" });
    const { body } = await secret<{ messages: { entityId: string; text?: string; mentions?: string[] }[] }>(`/api/spaces/${world.spaceId}/messages`);
    const posted = body.messages.filter((message) => message.entityId === world.agent.entityId && message.text !== undefined);
    expect(posted).toMatchObject([{ text: "**Launch**\n\nThe draft is ready", mentions: [world.person] }]);
  });

  it("an unknown prebuilt action is refused with a 400 naming it", async () => {
    const refused = await createRefused({
      agent: { name: "unknown" },
      model: scripted,
      tools: [{ name: "notify", executionType: "prebuilt", execution: { action: "sendPigeon" } }],
    });
    expect(refused.status).toBe(400);
    expect(refused.problems).toContainEqual(expect.objectContaining({ path: "config.tools.0.execution.action", message: expect.stringContaining('"sendPigeon"') }));
  });

  it("setGoals updates by id, says which ids it did not find, and refuses ids with clearExisting", async () => {
    const world = await toolWorld([{ name: "setGoals", executionType: "prebuilt", execution: { action: "setGoals" } }], () => [
      { toolCalls: [{ name: "setGoals", args: { goals: [{ description: "Draft" }] } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const [created] = (callOf(run, "setGoals").result as { goalsModified: { id: string }[] }).goalsModified;
    const second = await toolWorld([{ name: "setGoals", executionType: "prebuilt", execution: { action: "setGoals" } }], () => [
      { toolCalls: [{ name: "setGoals", args: { goals: [{ id: "goal_missing", description: "Nowhere" }, { description: "New" }] } }] },
      { toolCalls: [{ name: "setGoals", args: { goals: [{ id: "goal_missing", description: "x" }], clearExisting: true } }, skip] },
    ]);
    await second.wake();
    const [next] = await waitForRuns(second.agent.id, 1);
    const [first, refused] = next.toolCalls.filter((entry) => entry.toolName === "setGoals");
    expect(first.result).toMatchObject({ goalsModified: [{ action: "not_found", id: "goal_missing" }, { action: "created" }], totalGoals: 1 });
    expect(refused).toMatchObject({ status: "failed" });
    expect(JSON.stringify(refused.result)).toContain("clearExisting");
    expect(created.id).toMatch(/^goal_/);
  });
});

describe("POST /api/spaces/:spaceId/tool-results", () => {
  async function waitingCard() {
    const tool = { name: "askPerson", description: "Ask", inputSchema: { type: "object" }, executionType: "space", timeout: 20_000 };
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "askPerson", args: {} }] }, { toolCalls: [skip] }]);
    await world.wake();
    return { world, call: await openCall(world.agent.id, "waiting") };
  }

  it("answers a call shown in the space with the same checks as the run's route, and records who executed it", async () => {
    const { world, call } = await waitingCard();
    const headers = await memberHeaders(world.person);
    const path = `/api/spaces/${world.spaceId}/tool-results`;
    expect((await callJson(path, { body: { result: 1 }, headers })).status).toBe(400);
    expect((await callJson(path, { body: { callId: call.toolCallId, result: 1, error: "x" }, headers })).status).toBe(400);
    expect((await callJson(path, { body: { callId: call.toolCallId, result: 1, unknown: true }, headers })).status).toBe(400);
    expect((await callJson(path, { body: { callId: call.toolCallId, runId: "run_other", result: 1 }, headers })).status).toBe(403);
    const answered = await callJson(path, { body: { callId: call.toolCallId, result: { ok: true }, source: "client", clientId: "browser-7" }, headers });
    expect(answered).toMatchObject({ status: 200, body: { success: true, agentEntityId: world.agent.entityId } });
    expect((await callJson(path, { body: { callId: call.toolCallId, result: { ok: true } }, headers })).body).toMatchObject({ duplicate: true });
    expect((await callJson(path, { body: { callId: call.toolCallId, result: { ok: false } }, headers })).status).toBe(409);
    await settledRuns(world.agent.id);
    expect(await cards(world.spaceId)).toMatchObject([{ toolName: "askPerson", status: "complete", executedBy: { source: "client", clientId: "browser-7" } }]);
  });

  it("a call of another space is 404 there, for a member and for the secret key; a non-member of the space gets 403", async () => {
    const { world, call } = await waitingCard();
    const stranger = await createHuman("Stranger");
    const elsewhere = await createSpace([world.person, stranger]);
    const body = { callId: call.toolCallId, result: 1 };
    expect((await callJson(`/api/spaces/${elsewhere}/tool-results`, { body, headers: await memberHeaders(world.person) })).status).toBe(404);
    expect((await secret(`/api/spaces/${elsewhere}/tool-results`, { body })).status).toBe(404);
    expect((await callJson(`/api/spaces/${world.spaceId}/tool-results`, { body, headers: await memberHeaders(stranger) })).status).toBe(403);
    // Nothing was answered by any of them.
    expect((await secret<{ pendingToolCalls: unknown[] }>(`/api/agents/${world.agent.id}/pending-tool-calls?status=waiting`)).body.pendingToolCalls).toHaveLength(1);
  });
});
