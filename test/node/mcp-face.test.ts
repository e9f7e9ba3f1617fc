/**
 * The MCP server face against a real gateway (`npm run dev`), as outside MCP
 * clients use it: the MCP SDK's own client over Streamable HTTP with a
 * person's JWT as the bearer (a person answers a `space` tool's call and the
 * scripted agent goes on; the same through an MCP task whose call is put to
 * the person as a form), and the MCP Inspector's command-line client run
 * as a child process (tools/list, tools/call), its JSON read from stdout.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { signToken, type ToolConfigInput } from "../../client/src/index";
import { agentEvent } from "./dead-letters";
import { admin, gateway, personInSpace, spaceEvent } from "./gateway";

const root = join(import.meta.dirname, "..", "..");

const pickColour: ToolConfigInput = {
  name: "pick_colour",
  description: "Ask the person for a colour",
  executionType: "space",
  timeout: 60_000,
  inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
  resultSchema: { type: "object", properties: { colour: { type: "string", enum: ["red", "blue"] } }, required: ["colour"] },
};

/** A person in a space with a scripted agent that asks them for a colour (a `space` tool) and says what it heard. */
async function colourWorld(name: string) {
  const agent = await admin.agents.create({ agent: { name: `${name}'s helper` }, model: { provider: "scripted", turns: [] }, tools: [pickColour] });
  const { personId, spaceId } = await personInSpace(name, [agent.entityId]);
  await admin.agents.update(agent.id, {
    agent: { name: `${name}'s helper` },
    tools: [pickColour],
    model: {
      provider: "scripted",
      turns: [
        {
          toolCalls: [
            { name: "enter_space", args: { spaceId } },
            { name: "pick_colour", args: { question: "Red or blue?" } },
          ],
        },
        { toolCalls: [{ name: "send_message", args: { text: "Blue it is." } }] },
        { toolCalls: [{ name: "skip", args: {} }] },
      ],
    },
  });
  const token = await signToken(personId, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" });
  return { agent, personId, spaceId, token, url: `${gateway.baseUrl}/mcp/spaces/${spaceId}` };
}

async function connect(url: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: "node-test", version: "1.0.0" });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const result = CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
  return { isError: result.isError === true, structured: result.structuredContent ?? {} };
}

describe("the MCP face through the MCP SDK's client", () => {
  it("a person, with their JWT as the bearer, answers the agent's space call from an MCP client, and the agent goes on", async () => {
    const world = await colourWorld("Mika");
    const client = await connect(world.url, world.token);
    const pending = agentEvent(world.agent.id, "tool.pending", (data) => data.toolName === "pick_colour");
    expect((await callTool(client, "send_message", { text: "Help me choose", mentions: [world.agent.entityId] })).isError).toBe(false);
    await pending;
    const listed = await callTool(client, "list_waiting_calls", {});
    const calls = listed.structured.calls as { toolCallId: string; toolName: string; resultSchema?: unknown }[];
    expect(calls).toEqual([expect.objectContaining({ toolName: "pick_colour", resultSchema: pickColour.resultSchema })]);
    const refused = await callTool(client, "answer_call", { callId: calls[0].toolCallId, result: { colour: "green" } });
    expect(refused).toMatchObject({ isError: true, structured: { error: { code: "invalid_result" } } });
    const replied = spaceEvent(world.spaceId, "space.message", (event) => event.data.text === "Blue it is.");
    expect(await callTool(client, "answer_call", { callId: calls[0].toolCallId, result: { colour: "blue" } })).toMatchObject({ isError: false, structured: { success: true } });
    await replied;
    await agentEvent(world.agent.id, "agent.cycle.finished");
    const [run] = (await admin.agents.runs(world.agent.id, { limit: 1 })).runs;
    expect(run.status).toBe("completed");
    expect((await callTool(client, "list_waiting_calls", {})).structured.calls).toEqual([]);
  });

  it("ask_agent as a task: input_required, then the call is put to the person as a form, and the task completes with the reply", async () => {
    const world = await colourWorld("Noor");
    const transport = new StreamableHTTPClientTransport(new URL(world.url), { requestInit: { headers: { authorization: `Bearer ${world.token}` } } });
    const client = new Client({ name: "node-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    const forms: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      forms.push(request.params);
      return { action: "accept", content: { colour: "blue" } };
    });
    await client.connect(transport);
    onTestFinished(() => client.close());
    await client.listTools();
    const statuses: string[] = [];
    let reply: unknown;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "ask_agent", arguments: { agentId: world.agent.id, text: "Help me choose", timeoutSeconds: 60 } },
      CallToolResultSchema,
      { task: {} },
    )) {
      if (message.type === "error") throw message.error;
      if (message.type === "taskStatus") statuses.push(message.task.status);
      if (message.type === "result") reply = message.result.structuredContent;
    }
    expect(statuses).toContain("input_required");
    expect(forms).toEqual([expect.objectContaining({ mode: "form", requestedSchema: pickColour.resultSchema })]);
    expect(reply).toMatchObject({ status: "completed", reply: "Blue it is." });
  });
});

const inspectorBin = join(root, "node_modules", ".bin", "mcp-inspector");

/** The Inspector's command-line client: one method against a URL; its exit code, and its stdout and stderr as JSON. */
async function inspector(url: string, token: string, args: string[]): Promise<{ code: number; out: Record<string, unknown>; err: string }> {
  // Its catalog file would default to the home folder: a folder of the test's own instead.
  const home = mkdtempSync(join(tmpdir(), "mcp-inspector-"));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  const child = execFile(inspectorBin, ["--cli", url, "--transport", "http", "--header", `Authorization: Bearer ${token}`, ...args], {
    env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, "mcp.json") },
    timeout: 60_000,
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: string) => (out += chunk));
  child.stderr?.on("data", (chunk: string) => (err += chunk));
  const code = await new Promise<number>((resolve) => child.on("close", (exit) => resolve(exit ?? -1)));
  return { code, out: out.trim() ? JSON.parse(out) : {}, err };
}

describe("the MCP face through the MCP Inspector's command-line client", () => {
  it("tools/list names the space's tools; tools/call sends a message as the person and reads it back", async () => {
    const world = await colourWorld("Noor");
    const listed = await inspector(world.url, world.token, ["--method", "tools/list"]);
    expect(listed.code, listed.err).toBe(0);
    expect((listed.out.tools as { name: string }[]).map((tool) => tool.name)).toEqual([
      "send_message",
      "read_messages",
      "ask_agent",
      "list_waiting_calls",
      "answer_call",
      "approve_call",
      "deny_call",
    ]);
    const sent = await inspector(world.url, world.token, ["--method", "tools/call", "--tool-name", "send_message", "--tool-arg", "text=Hello from the Inspector"]);
    expect(sent.out).toMatchObject({ structuredContent: { message: { entityId: world.personId, text: "Hello from the Inspector" } } });
    const read = await inspector(world.url, world.token, ["--method", "tools/call", "--tool-name", "read_messages", "--tool-arg", "afterSeq=0", "--tool-arg", "limit=1"]);
    expect(read.out).toMatchObject({ structuredContent: { messages: [{ text: "Hello from the Inspector" }] } });
    // A tool error: the Inspector exits non-zero and says so in JSON on stderr.
    const refused = await inspector(world.url, world.token, ["--method", "tools/call", "--tool-name", "read_messages", "--tool-arg", "limit=500"]);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.err.trim().split("\n").at(-1) ?? "{}")).toMatchObject({ error: { code: "tool_is_error" } });
    // Without the header, the gateway's 401 stops it before any tool runs.
    const anonymous = await inspector(world.url, "not-a-token", ["--method", "tools/list"]);
    expect(anonymous.code).not.toBe(0);
  });
});
