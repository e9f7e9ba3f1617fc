/**
 * What `web_search` asks of a search API, whichever it is: one query, a
 * number of results, an answer as data. An adapter (`tavily-search.ts`) turns
 * its API's request and answer into these; the `webSearch` config picks the
 * adapter (`builtins/search-tools.ts`). Failures are data, never thrown.
 */

/** One hit, in the catalogue's words: where it is, what it is called, the text that matched. */
export type WebSearchResult = {
  title: string;
  url: string;
  /** The part of the page that answers the query, as the API gives it. */
  content: string;
  /** The API's relevance score, when it gives one (higher is better). */
  score?: number;
  publishedDate?: string;
};

/** `permission`: the key is missing or refused; `upstream`: the API failed or answered what it should not. */
export type WebSearchAnswer = { ok: true; results: WebSearchResult[]; answer?: string } | { ok: false; error: string; kind: "permission" | "upstream" | "timeout" };

/** `traceparent`: the `web_search` call's span, when the agent traces; the request carries it. */
export type WebSearchRequest = { query: string; limit: number; signal?: AbortSignal; traceparent: string | undefined };

export interface WebSearchProvider {
  /** The provider's name, as the config writes it. */
  readonly name: string;
  search(request: WebSearchRequest): Promise<WebSearchAnswer>;
}
