/**
 * The `search` group: `web_search`, `{query, limit?}` → `{query, provider,
 * results: [{title, url, content, score?, publishedDate?}], answer?}`. The
 * search API is the agent's `webSearch` config (its provider, and the Worker
 * secret with its key); the adapter behind the `WebSearchProvider` interface
 * does the API's own request and answer.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import type { PlatformAccess, SettingsAccess } from "../engine/tool-context";
import { failed, succeeded } from "../engine/tool-outcome";
import type { BuiltinCallContext } from "../engine/tool-pipeline";
import { tavilySearch } from "../http/tavily-search";
import type { WebSearchProvider } from "../http/web-search-provider";
import type { WebSearchConfig } from "../config/web-search-config";

/** Without `maxResults`: five results unless the model asks for more, twenty at most. */
const defaultLimit = 5;
const mostResults = 20;
const userAgent = "Switchboard/0.1 (web_search)";

/** The adapter the config names (the schema admits only providers that have one). */
export function webSearchProviderOf(config: WebSearchConfig, env: Record<string, unknown>, timeoutMs: number): WebSearchProvider {
  switch (config.provider) {
    case "tavily":
      return tavilySearch({ apiKey: config.apiKey, baseURL: config.baseURL, searchDepth: config.searchDepth, timeoutMs, env, userAgent });
  }
}

export function createSearchTools(context: PlatformAccess & SettingsAccess) {
  const config = context.config.webSearch;
  // `maxResults` (the catalogue's setting) is both the default and the most a call gets.
  const usual = config?.maxResults ?? defaultLimit;
  const most = config?.maxResults ?? mostResults;
  return {
    web_search: tool({
      description: `Search the web. Returns the best matching pages (title, url, the matching content) for a query; ${usual} results unless limit says otherwise (at most ${most}).`,
      inputSchema: zodSchema(
        z.object({
          query: z.string().min(1).max(400).describe("What to search for"),
          limit: z.number().int().min(1).max(20).optional().describe(`How many results (default ${usual}, at most ${most})`),
        }),
      ),
      execute: async ({ query, limit }, { abortSignal, context: call }: { abortSignal?: AbortSignal; context?: BuiltinCallContext }) => {
        if (config === undefined) return failed("Web search is not configured for this agent (webSearch in its config)", "permission");
        const provider = webSearchProviderOf(config, context.env, context.config.limits.toolTimeout);
        const answer = await provider.search({ query, limit: Math.min(limit ?? usual, most), signal: abortSignal, traceparent: call?.traceparent });
        if (!answer.ok) return failed(answer.error, answer.kind);
        return succeeded({ query, provider: provider.name, results: answer.results, ...(answer.answer !== undefined && { answer: answer.answer }) });
      },
    }),
  };
}
