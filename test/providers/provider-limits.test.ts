/** The agent config's limits on tool providers, queues, MCP servers and tool outputs, each at exactly its maximum (accepted) and one past it (400 naming the path, nothing written). */
import { describe, expect, it } from "vitest";
import { createAgent } from "../support/agents";
import { secret } from "../support/api";
import { countRows } from "../support/database-state";
import { expectErrorEnvelope } from "../support/error-envelope";
import { minimalAgentConfig } from "../support/minimal-agent-config";

const document = { openapi: "3.1.0", info: { title: "x", version: "1" }, servers: [{ url: "http://api.test/echo" }], paths: {} };
const names = (count: number) => Array.from({ length: count }, (_, index) => `t${index}`);
const openapi = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: "openapi", spec: { document }, ...extra });

describe("provider limits at their maxima", async () => {
  const helper = await createAgent(minimalAgentConfig);
  const agents = (count: number) => Array.from({ length: count }, (_, index) => ({ agentId: helper.id, name: `a${index}` }));
  const limits: { name: string; max: number; path: string; config: (value: number) => Record<string, unknown> }[] = [
    { name: "providers", max: 16, path: "config.providers", config: (count) => ({ providers: names(count).map((name) => openapi(name)) }) },
    {
      name: "sub-agents of one provider",
      max: 32,
      path: "config.providers.0.agents",
      config: (count) => ({ providers: [{ name: "team", type: "agents", agents: agents(count) }] }),
    },
    {
      name: "sub-agent maxDepth",
      max: 8,
      path: "config.providers.0.maxDepth",
      config: (depth) => ({ providers: [{ name: "team", type: "agents", agents: agents(1), maxDepth: depth }] }),
    },
    {
      name: "MCP toolsDenied",
      max: 256,
      path: "config.mcp.servers.0.toolsDenied",
      config: (count) => ({ mcp: { servers: [{ name: "s", url: "http://mcp.test/mcp", toolsDenied: names(count) }] } }),
    },
    { name: "queue concurrency", max: 32, path: "config.queues.q.concurrency", config: (concurrency) => ({ queues: { q: { concurrency } } }) },
    {
      name: "MCP connectTimeout",
      max: 60_000,
      path: "config.mcp.servers.0.connectTimeout",
      config: (ms) => ({ mcp: { servers: [{ name: "s", url: "http://mcp.test/mcp", connectTimeout: ms }] } }),
    },
    { name: "limits.toolOutputMaxBytes", max: 50_000_000, path: "config.limits.toolOutputMaxBytes", config: (bytes) => ({ limits: { toolOutputMaxBytes: bytes } }) },
  ];

  it.each(limits)("$name: $max is accepted, one more is a 400 naming $path", async ({ max, path, config }) => {
    const accepted = await secret<{ id: string }>("/api/agents", { body: { config: { ...minimalAgentConfig, ...config(max) } } });
    expect(accepted.status).toBe(201);
    const before = await countRows();
    const refused = await secret("/api/agents", { body: { config: { ...minimalAgentConfig, ...config(max + 1) } } });
    expect(refused.status).toBe(400);
    expectErrorEnvelope(refused.body, "validation_error");
    expect(refused.body.error.details?.map((detail) => detail.path)).toContain(path);
    expect(await countRows()).toEqual(before);
  });
});
