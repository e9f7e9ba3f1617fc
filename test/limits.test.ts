/**
 * Every limit at the edge at exactly its maximum (accepted, never a 500) and
 * one past it (400 naming the path, nothing written): the array limits of the
 * request schemas, the JSON depth and the body size.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { maxBodyBytes } from "../src/api/request-body";
import { maxJsonDepth } from "../src/json";
import { createAgent } from "./support/agents";
import { createSpace, secret, secretHeaders } from "./support/api";
import { countRows, spaceSeq } from "./support/database-state";
import { expectErrorEnvelope } from "./support/error-envelope";
import { minimalAgentConfig } from "./support/minimal-agent-config";

/** Humans written straight to D1 (a thousand API calls would only test the entity route a thousand times). */
async function insertHumans(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `ent_${crypto.randomUUID().replaceAll("-", "")}`);
  const statements = [];
  for (let start = 0; start < ids.length; start += 30) {
    const rows = ids.slice(start, start + 30);
    statements.push(env.DB.prepare(`insert into entities (id, type, name) values ${rows.map(() => "(?, 'human', 'Member')").join(", ")}`).bind(...rows));
  }
  await env.DB.batch(statements);
  return ids;
}

async function expectRefused(response: { status: number; body: unknown }, path: string, code = "validation_error") {
  expect(response.status).toBe(400);
  expectErrorEnvelope(response.body, code);
  if (code === "validation_error") expect(response.body.error.details?.map((detail) => detail.path)).toContain(path);
}

const tool = (name: string) => ({ name, description: "d", executionType: "internal", inputSchema: { type: "object", properties: {} } });
const withConfig = (changes: Record<string, unknown>) => ({ config: { ...minimalAgentConfig, ...changes } });
const turns = (count: number) => Array.from({ length: count }, () => ({}));
const toolCalls = (count: number) => Array.from({ length: count }, () => ({ name: "skip", args: {} }));
const servers = (count: number) => Array.from({ length: count }, (_, index) => ({ name: `s${index}`, url: "http://mcp.test/mcp" }));
const names = (count: number) => Array.from({ length: count }, (_, index) => `tool_${index}`);

describe("agent config arrays at their maxima", () => {
  const limits: { name: string; max: number; path: string; config: (count: number) => Record<string, unknown> }[] = [
    { name: "tools", max: 128, path: "config.tools", config: (count) => ({ tools: names(count).map(tool) }) },
    { name: "mcp.servers", max: 16, path: "config.mcp.servers", config: (count) => ({ mcp: { servers: servers(count) } }) },
    {
      name: "mcp allowedTools",
      max: 256,
      path: "config.mcp.servers.0.allowedTools",
      config: (count) => ({ mcp: { servers: [{ name: "s", url: "http://mcp.test/mcp", allowedTools: names(count) }] } }),
    },
    { name: "scripted turns", max: 10_000, path: "config.model.turns", config: (count) => ({ model: { provider: "scripted", turns: turns(count) } }) },
    {
      name: "tool calls in one scripted turn",
      max: 32,
      path: "config.model.turns.0.toolCalls",
      config: (count) => ({ model: { provider: "scripted", turns: [{ toolCalls: toolCalls(count) }] } }),
    },
  ];

  it.each(limits)("$name: $max are accepted, one more is a 400 naming $path", async ({ max, path, config }) => {
    const accepted = await secret<{ id: string }>("/api/agents", { body: withConfig(config(max)) });
    expect(accepted.status).toBe(201);
    const stored = await secret<{ config: Record<string, unknown> }>(`/api/agents/${accepted.body.id}`);
    expect(stored.status).toBe(200);

    const before = await countRows();
    await expectRefused(await secret("/api/agents", { body: withConfig(config(max + 1)) }), path);
    expect(await countRows()).toEqual(before);
  });
});

describe("space members and mentions at their maxima", () => {
  it("a space is created with 1,000 members (more than D1 binds in one statement), each joined once", async () => {
    const humans = await insertHumans(997);
    const agents = await Promise.all([1, 2, 3].map(() => createAgent(minimalAgentConfig)));
    const memberIds = [...humans, ...agents.map((agent) => agent.entityId)];
    const created = await secret<{ id: string }>("/api/spaces", { body: { name: "Stadium", memberIds } });
    expect(created.status).toBe(201);
    const space = await secret<{ memberIds: string[] }>(`/api/spaces/${created.body.id}`);
    expect(space.body.memberIds.sort()).toEqual([...memberIds].sort());
    expect(await spaceSeq(created.body.id)).toBe(1000);
  });

  it("1,001 members are a 400 and nothing is written; an unknown one among 1,000 is a 404 and nothing is written", async () => {
    const humans = await insertHumans(1000);
    const before = await countRows();
    await expectRefused(await secret("/api/spaces", { body: { name: "Too big", memberIds: [...humans, humans[0]] } }), "memberIds");
    const unknown = await secret("/api/spaces", { body: { name: "One stranger", memberIds: [...humans.slice(1), "ent_nobody"] } });
    expect(unknown.status).toBe(404);
    expectErrorEnvelope(unknown.body, "not_found");
    expect(await countRows()).toEqual(before);
  });

  it("a message mentions 50 members; 51 mentions are a 400", async () => {
    const [speaker, ...others] = await insertHumans(52);
    const spaceId = await createSpace([speaker, ...others]);
    const posted = await secret<{ mentions: string[] }>(`/api/spaces/${spaceId}/messages`, { body: { text: "all hands", entityId: speaker, mentions: others.slice(0, 50) } });
    expect(posted.status).toBe(201);
    expect(posted.body.mentions).toHaveLength(50);
    const before = await countRows();
    await expectRefused(await secret(`/api/spaces/${spaceId}/messages`, { body: { text: "too many", entityId: speaker, mentions: others.slice(0, 51) } }), "mentions");
    expect(await countRows()).toEqual(before);
  });
});

describe("JSON depth and body size at their maxima", () => {
  /** `{"type":"external","data": …}` whose total depth is `depth` (the body object is level 1). */
  const inboxBody = (depth: number) => `{"type":"external","data":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;

  it(`an inbox event nested exactly ${maxJsonDepth} levels is accepted; ${maxJsonDepth + 1} is a 400 too_deep`, async () => {
    const { id } = await createAgent(minimalAgentConfig);
    const accepted = await secret(`/api/agents/${id}/inbox`, { rawBody: inboxBody(maxJsonDepth) });
    expect(accepted.status).toBe(202);
    for (const depth of [maxJsonDepth + 1, 2_500, 3_000, 4_000]) {
      await expectRefused(await secret(`/api/agents/${id}/inbox`, { rawBody: inboxBody(depth) }), "", "too_deep");
    }
  });

  it(`a body of exactly ${maxBodyBytes} bytes is read and validated; one byte more is a 413`, async () => {
    const body = (bytes: number) => {
      const frame = JSON.stringify({ type: "human", name: "" });
      return JSON.stringify({ type: "human", name: "x".repeat(bytes - frame.length) });
    };
    const send = (text: string) =>
      exports.default.fetch(new Request("http://gateway.test/api/entities", { method: "POST", headers: { ...secretHeaders, "content-type": "application/json" }, body: text }));
    const atLimit = await send(body(maxBodyBytes));
    expect(new TextEncoder().encode(body(maxBodyBytes)).byteLength).toBe(maxBodyBytes);
    expect(atLimit.status).toBe(400); // read whole: the name is over its own 200-character limit
    expectErrorEnvelope(await atLimit.json(), "validation_error");
    const over = await send(body(maxBodyBytes + 1));
    expect(over.status).toBe(413);
    expectErrorEnvelope(await over.json(), "payload_too_large");
  });
});
