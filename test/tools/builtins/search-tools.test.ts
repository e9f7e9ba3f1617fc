/** The `search` group: `web_search` behind the search provider interface, with Tavily's adapter answered by the fake Tavily (`tavily.test`). */
import { describe, expect, it } from "vitest";
import { createSearchTools } from "../../../src/tools/builtins/search-tools";
import type { WebSearchConfig } from "../../../src/tools/config/web-search-config";
import { waitForRuns } from "../../support/agents";
import { secret } from "../../support/api";
import { callTool, catalogueAgent, errorOf, okValue, toolContext } from "../../support/catalogue";

const tavily: WebSearchConfig = { provider: "tavily", apiKey: "${env.TOOL_API_TOKEN}", baseURL: "http://tavily.test" };
const searchWith = (webSearch: WebSearchConfig | undefined) => createSearchTools(toolContext({ config: { webSearch } }));

type Recorded = { method: string; url: string; headers: Record<string, string>; body: string };
const tavilyRequests = async (): Promise<Recorded[]> => (await fetch("http://recorded.test/tavily")).json();

describe("web_search", () => {
  it("asks Tavily with its request shape (bearer key from the named secret, query, max_results, search_depth) and answers {query, provider, results}", async () => {
    const before = (await tavilyRequests()).length;
    const answer = okValue<{ query: string; provider: string; results: { title: string; url: string; content: string; score: number }[] }>(
      await callTool(searchWith({ ...tavily, searchDepth: "advanced" }), "web_search", { query: "edge gateways", limit: 3 }),
    );
    expect(answer.provider).toBe("tavily");
    expect(answer.query).toBe("edge gateways");
    expect(answer.results).toHaveLength(3);
    expect(answer.results[0]).toEqual({
      title: "edge gateways — result 1",
      url: "https://example.com/edge%20gateways/1",
      content: "What page 1 says about edge gateways.",
      score: 0.95,
    });
    const sent = (await tavilyRequests()).slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: "POST", url: "http://tavily.test/search", headers: { authorization: "Bearer test-tool-token", "content-type": "application/json" } });
    expect(JSON.parse(sent[0].body)).toEqual({ query: "edge gateways", max_results: 3, search_depth: "advanced", include_answer: false });
  });

  it("maxResults is the default and the most a call gets; no hits is an empty list, not a failure", async () => {
    const capped = searchWith({ ...tavily, maxResults: 2 });
    expect(okValue<{ results: unknown[] }>(await callTool(capped, "web_search", { query: "a" })).results).toHaveLength(2);
    expect(okValue<{ results: unknown[] }>(await callTool(capped, "web_search", { query: "a", limit: 7 })).results).toHaveLength(2);
    expect(okValue<{ results: unknown[] }>(await callTool(searchWith(tavily), "web_search", { query: "a" })).results).toHaveLength(5);
    expect(okValue(await callTool(searchWith(tavily), "web_search", { query: "nothing" }))).toMatchObject({ results: [] });
  });

  it("a refused key, an unset or reserved secret, or no config fail as data, and the key never shows", async () => {
    const refused = await callTool(searchWith({ ...tavily, apiKey: "${env.AGENT_CLIENT_SECRET}" }), "web_search", { query: "x" });
    expect(refused).toMatchObject({ type: "error", kind: "permission" });
    expect(errorOf(refused)).toContain("HTTP 401: Unauthorized: missing or invalid API key.");
    expect(errorOf(refused)).not.toContain("agent-secret");
    expect(errorOf(await callTool(searchWith({ ...tavily, apiKey: "${env.NOT_SET_ANYWHERE}" }), "web_search", { query: "x" }))).toContain('"NOT_SET_ANYWHERE", which is not set');
    expect(errorOf(await callTool(searchWith({ ...tavily, apiKey: "${env.JWT_SECRET}" }), "web_search", { query: "x" }))).toContain("gateway's own keys");
    expect(errorOf(await callTool(searchWith(undefined), "web_search", { query: "x" }))).toContain("not configured");
  });

  it("an agent with the search group calls it in a cycle; the config is checked at save", async () => {
    const world = await catalogueAgent({ builtins: ["spaces", "search"], webSearch: { ...tavily, maxResults: 4 } }, () => [
      { toolCalls: [{ name: "web_search", args: { query: "durable objects" } }] },
      { text: "done" },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.map((call) => [call.toolName, call.status])).toEqual([["web_search", "completed"]]);
    expect(run.toolCalls[0].result).toMatchObject({ provider: "tavily", results: expect.arrayContaining([expect.objectContaining({ title: "durable objects — result 4" })]) });

    const post = (config: Record<string, unknown>) =>
      secret("/api/agents", { body: { config: { agent: { name: "Searcher", system: "x" }, model: { provider: "scripted", turns: [] }, ...config } } });
    const problems = async (config: Record<string, unknown>) => {
      const response = await post(config);
      expect(response.status).toBe(400);
      return JSON.stringify(response.body);
    };
    expect(await problems({ builtins: ["search"] })).toContain('The \\"search\\" group needs webSearch');
    expect(await problems({ builtins: ["search"], webSearch: { ...tavily, apiKey: "tvly-literal-key" } })).toContain("${env.NAME}");
    expect(await problems({ builtins: ["search"], webSearch: { ...tavily, provider: "bing" } })).toContain("webSearch");
    expect(await problems({ builtins: ["search"], webSearch: { ...tavily, apiKey: "${env.NOT_SET_ANYWHERE}" } })).toContain("is not set");
    expect(await problems({ builtins: ["search"], webSearch: { ...tavily, apiKey: "${env.JWT_SECRET}" } })).toContain("gateway's own keys");
    expect((await post({ builtins: ["search"], webSearch: tavily })).status).toBe(201);
  });
});
