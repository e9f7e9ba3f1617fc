/** The save-time checks that need the deployment's env: secrets named, and URLs under ALLOW_PRIVATE_URLS = "false". */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AgentConfig } from "../../src/agents/agent-config";
import { checkToolSecrets } from "../../src/api/check-tool-secrets";
import type { AppEnv } from "../../src/env";
import { ApiError } from "../../src/errors";

const defaultEnv: AppEnv = { ...env };
const strictEnv: AppEnv = { ...env, ALLOW_PRIVATE_URLS: "false" };

function problemsOf(config: unknown, deployment: AppEnv): { path: string; message: string }[] {
  const parsed = AgentConfig.parse(config);
  try {
    checkToolSecrets(parsed, deployment);
    return [];
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.status).toBe(400);
    return error.details as { path: string; message: string }[];
  }
}

const schema = { type: "object", properties: {} };
const everyUrl = (host: string) => ({
  agent: { name: "urls" },
  model: { provider: "openai-compatible", name: "m", baseURL: `http://${host}/v1` },
  tools: [
    { name: "fetcher", description: "d", executionType: "gateway", inputSchema: schema, execution: { url: `http://${host}/items/{{id}}` } },
    { name: "asker", description: "d", executionType: "external", inputSchema: schema, execution: { webhook: `http://${host}/hook` } },
  ],
  mcp: { servers: [{ name: "local", url: `http://${host}/mcp` }] },
});
const everyUrlPath = ["config.model.baseURL", "config.tools.0.execution.url", "config.tools.1.execution.webhook", "config.mcp.servers.0.url"];

describe("URLs the gateway will call, when the deployment forbids private hosts", () => {
  it.each(["localhost:11434", "127.0.0.1", "[::1]", "169.254.169.254", "10.0.0.7", "printer.localhost"])("refuses %s in every place a URL goes", (host) => {
    const problems = problemsOf(everyUrl(host), strictEnv);
    expect(problems.map((problem) => problem.path)).toEqual(everyUrlPath);
    for (const problem of problems) expect(problem.message).toContain('ALLOW_PRIVATE_URLS = "false"');
  });

  it("accepts the same config by default (wrangler dev talks to local servers)", () => {
    expect(problemsOf(everyUrl("localhost:11434"), defaultEnv)).toEqual([]);
  });

  it("accepts public hosts", () => {
    expect(problemsOf(everyUrl("api.example.com"), strictEnv)).toEqual([]);
  });
});

describe("secrets a config names, checked against the env", () => {
  it("refuses a model key that names a binding, but lets a model key be set later", () => {
    const model = (apiKeyEnv: string) => ({ agent: { name: "k" }, model: { provider: "openai", name: "gpt-4o", apiKeyEnv } });
    expect(problemsOf(model("DB"), defaultEnv)).toEqual([{ path: "config.model.apiKeyEnv", message: expect.stringContaining("is a binding") }]);
    expect(problemsOf(model("TEAM_KEY_NOT_SET_YET"), defaultEnv)).toEqual([]);
  });

  it("refuses header secrets that are bindings or not set, for tools and MCP servers", () => {
    const config = {
      agent: { name: "h" },
      model: { provider: "scripted", turns: [] },
      tools: [{ name: "t", description: "d", executionType: "gateway", inputSchema: schema, execution: { url: "https://api.example.com/", headers: { "x-db": "${env.DB}" } } }],
      mcp: { servers: [{ name: "s", url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer ${env.NOT_SET}" } }] },
    };
    expect(problemsOf(config, defaultEnv)).toEqual([
      { path: "config.tools.0.execution.headers.x-db", message: expect.stringContaining("is a binding") },
      { path: "config.mcp.servers.0.headers.authorization", message: expect.stringContaining("wrangler secret put NOT_SET") },
    ]);
  });
});
