/**
 * The Tavily adapter of `web_search`: `POST {base}/search` with the key as a
 * bearer token and `{query, max_results, search_depth}`; Tavily answers
 * `{query, answer?, results: [{title, url, content, score, published_date?}]}`
 * and errors as `{detail: {error}}`. The key is read from the Worker secret
 * the config names at each call (by the secret policy), is sent only to the
 * configured origin (no redirects: a POST is not followed), and never appears
 * in what the model sees.
 */
import { z } from "zod";
import { parseJsonSafely } from "../../json";
import { describeSecretRefusal, readSecret } from "../../security/secret-policy";
import { webSearchKeyName } from "../config/web-search-config";
import { sendOutboundRequest } from "./outbound-request";
import type { WebSearchAnswer, WebSearchProvider, WebSearchRequest } from "./web-search-provider";

export const tavilyBaseUrl = "https://api.tavily.com";
/** A page of results is small; more than this is not a search answer. */
const maxAnswerBytes = 2_000_000;

const TavilyAnswer = z.object({
  answer: z.string().nullish(),
  results: z
    .array(
      z.object({
        title: z.string(),
        url: z.string(),
        content: z.string(),
        score: z.number().nullish(),
        published_date: z.string().nullish(),
      }),
    )
    .max(100),
});

const TavilyError = z.object({ detail: z.union([z.object({ error: z.string() }), z.string()]) });

export type TavilyOptions = {
  apiKey: string;
  baseURL?: string;
  searchDepth?: "basic" | "advanced";
  timeoutMs: number;
  env: Record<string, unknown>;
  userAgent: string;
};

export function tavilySearch(options: TavilyOptions): WebSearchProvider {
  return { name: "tavily", search: (request) => search(options, request) };
}

async function search(options: TavilyOptions, { query, limit, signal, traceparent }: WebSearchRequest): Promise<WebSearchAnswer> {
  const keyName = webSearchKeyName(options.apiKey);
  if (keyName === undefined) return { ok: false, error: 'webSearch.apiKey must name a secret as "${env.NAME}"', kind: "permission" };
  const key = readSecret(options.env, keyName);
  if (!key.ok) return { ok: false, error: `Web search uses ${describeSecretRefusal(keyName, key.refusal)}`, kind: "permission" };
  const base = options.baseURL ?? tavilyBaseUrl;
  const answer = await sendOutboundRequest({
    url: new URL("search", base.endsWith("/") ? base : `${base}/`).toString(),
    method: "POST",
    headers: { "user-agent": options.userAgent, "content-type": "application/json", accept: "application/json" },
    originHeaders: { authorization: `Bearer ${key.value}` },
    ...(traceparent !== undefined && { ownedHeaders: { traceparent } }),
    body: JSON.stringify({ query, max_results: limit, search_depth: options.searchDepth ?? "basic", include_answer: false }),
    timeoutMs: options.timeoutMs,
    maxBytes: maxAnswerBytes,
    maxRedirects: 0,
    env: options.env,
    signal,
  });
  const redact = (text: string) => text.replaceAll(key.value, "[redacted]");
  if (!answer.ok) return { ok: false, error: redact(answer.error), kind: answer.error.includes("timed out") ? "timeout" : "upstream" };
  const parsed = answer.truncated ? undefined : parseJsonSafely(new TextDecoder().decode(answer.bytes));
  const value = parsed?.ok ? parsed.value : undefined;
  if (answer.status < 200 || answer.status >= 300) {
    const detail = TavilyError.safeParse(value);
    const why = detail.success ? (typeof detail.data.detail === "string" ? detail.data.detail : detail.data.detail.error) : answer.statusText;
    const kind = answer.status === 401 || answer.status === 403 ? "permission" : "upstream";
    return { ok: false, error: redact(`Tavily answered HTTP ${answer.status}: ${why.slice(0, 500)}`), kind };
  }
  const body = TavilyAnswer.safeParse(value);
  if (!body.success) return { ok: false, error: "Tavily's answer is not a search result list", kind: "upstream" };
  return {
    ok: true,
    results: body.data.results.slice(0, limit).map((hit) => ({
      title: hit.title,
      url: hit.url,
      content: hit.content,
      ...(typeof hit.score === "number" && { score: hit.score }),
      ...(typeof hit.published_date === "string" && { publishedDate: hit.published_date }),
    })),
    ...(typeof body.data.answer === "string" && { answer: body.data.answer }),
  };
}
