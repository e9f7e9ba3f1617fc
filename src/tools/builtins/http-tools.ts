/**
 * The `http` group: `http_request` (any method, headers and body; the answer
 * as JSON or text), `http_get` and `http_post` (the catalogue's shorthands for
 * it, same checks, with the answer also as `body`) and `fetch_page` (an HTML
 * page as readable markdown).
 * Every URL, redirects included, goes by the gateway's URL policy right
 * before the request; answers are read as streams up to a cap and bounded in
 * time. Requests carry the hop header (so a chain through this gateway
 * stops) and, when the agent traces, the call span's `traceparent` (the
 * model's own `traceparent` or `tracestate` never replaces it: a model must
 * not be able to put the gateway's requests in a trace of its choosing);
 * writes carry the call's id as `idempotency-key`, so a call done again
 * after a restart can be recognised by an upstream that cares.
 */
import { z } from "@hono/zod-openapi";
import { type ToolExecutionOptions, tool, zodSchema } from "ai";
import { bytesToBase64 } from "../../base64";
import { parseJsonSafely } from "../../json";
import type { JournalAccess, PlatformAccess, RunIdentity, SettingsAccess } from "../engine/tool-context";
import type { BuiltinCallContext } from "../engine/tool-pipeline";
import { hopHeader } from "../../protocol/hop";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import { htmlToMarkdown } from "../http/html-to-markdown";
import { unwrapLinks } from "../http/markdown-links";
import { isJsonType, isTextType, mediaTypeOf, refusedHeader, sendOutboundRequest } from "../http/outbound-request";

const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
/** HTML read for `fetch_page` at most (the text it returns is cut to `maxChars`). */
const maxPageBytes = 5_000_000;
const maxRedirects = 5;
const userAgent = "Switchboard/0.1 (built-in http tools)";

const schemas = {
  httpRequest: zodSchema(
    z.object({
      url: z.string().min(1).max(4_096).describe("An absolute http(s) URL"),
      method: z.enum(methods).optional().describe("Default GET"),
      headers: z.record(z.string().max(256), z.string().max(8_192)).optional(),
      body: z.unknown().optional().describe("A string is sent as it is; any other JSON value is sent as JSON"),
      timeoutMs: z
        .number()
        .int()
        .min(100)
        .max(15 * 60 * 1000)
        .optional()
        .describe("At most the agent's tool timeout"),
    }),
  ),
  httpGet: zodSchema(
    z.object({
      url: z.string().min(1).max(4_096).describe("An absolute http(s) URL"),
      headers: z.record(z.string().max(256), z.string().max(8_192)).optional(),
    }),
  ),
  httpPost: zodSchema(
    z.object({
      url: z.string().min(1).max(4_096).describe("An absolute http(s) URL"),
      body: z.unknown().optional().describe("A string is sent as it is; any other JSON value is sent as JSON"),
      headers: z.record(z.string().max(256), z.string().max(8_192)).optional(),
    }),
  ),
  fetchPage: zodSchema(
    z.object({
      url: z.string().min(1).max(4_096),
      format: z.enum(["markdown", "text"]).optional().describe("markdown (default) keeps headings, lists and links; text drops the markup"),
      maxChars: z.number().int().min(100).max(1_000_000).optional().describe("Cut the content after this many characters (default 20000)"),
    }),
  ),
};

/** Plain text of the page's markdown, in linear passes (a page is up to 5 MB; see markdown-links.ts). */
function stripMarkdown(text: string): string {
  return unwrapLinks(unwrapLinks(text, "!["), "[")
    .replace(/^#{1,6} /gm, "")
    .replace(/\*\*|`{3}\n?|`/g, "");
}

export function createHttpTools(context: RunIdentity & PlatformAccess & SettingsAccess & JournalAccess) {
  const limits = context.config.limits;
  const baseHeaders = (toolCallId: string, method: string): Record<string, string> => ({
    "user-agent": userAgent,
    [hopHeader]: String(context.hop + 1),
    ...(method !== "GET" && method !== "HEAD" && { "idempotency-key": context.callIds.idFor(toolCallId) }),
  });

  type RequestInput = { url: string; method?: (typeof methods)[number]; headers?: Record<string, string>; body?: unknown; timeoutMs?: number };
  type CallOptions = Pick<ToolExecutionOptions<BuiltinCallContext>, "toolCallId" | "abortSignal"> & { context?: BuiltinCallContext };
  /** One request by `http_request`'s rules (`http_get` and `http_post` are this with the method set). */
  const request = async ({ url, method = "GET", headers, body, timeoutMs }: RequestInput, { toolCallId, abortSignal, context: call }: CallOptions) => {
    const refused = refusedHeader(headers);
    if (refused) return failed(`The header "${refused}" cannot be set`);
    if (body !== undefined && (method === "GET" || method === "HEAD")) return failed(`A ${method} request has no body`);
    const own = lowercase(headers);
    // A `tracestate` belongs to the trace its `traceparent` names: the gateway's own, when it sends one.
    if (call?.traceparent !== undefined) delete own.tracestate;
    let text: string | undefined;
    if (typeof body === "string") text = body;
    else if (body !== undefined) {
      text = JSON.stringify(body);
      own["content-type"] ??= "application/json";
    }
    // The model's headers (perhaps a token it was given) stay with the origin it named.
    const answer = await sendOutboundRequest({
      url,
      method,
      headers: baseHeaders(toolCallId, method),
      originHeaders: own,
      ownedHeaders: traceHeaders(call),
      body: text,
      timeoutMs: Math.min(timeoutMs ?? limits.toolTimeout, limits.toolTimeout),
      maxBytes: limits.toolResponseMaxBytes,
      maxRedirects,
      env: context.env,
      signal: abortSignal,
    });
    if (!answer.ok) return failed(answer.error);
    const mediaType = mediaTypeOf(answer.contentType);
    const result: Record<string, unknown> = {
      status: answer.status,
      statusText: answer.statusText,
      url: answer.url,
      headers: answer.headers,
      bytes: answer.bytes.byteLength,
      ...(answer.truncated && { truncated: true }),
    };
    if (answer.bytes.byteLength === 0 || method === "HEAD") return succeeded(result);
    const decoded = new TextDecoder().decode(answer.bytes);
    if (isJsonType(mediaType) && !answer.truncated) {
      const parsed = parseJsonSafely(decoded);
      if (parsed.ok) return succeeded({ ...result, json: parsed.value });
    }
    if (isTextType(mediaType) || isJsonType(mediaType)) return succeeded({ ...result, text: decoded });
    // Base64 takes a third more room: what fits the limit is kept.
    const kept = answer.bytes.subarray(0, Math.floor((limits.toolResponseMaxBytes * 3) / 4) - 1_024);
    return succeeded({ ...result, base64: bytesToBase64(kept), ...(kept.byteLength < answer.bytes.byteLength && { truncated: true }) });
  };
  /** The catalogue's `{status, headers, body}`: the parsed JSON, else the text, else the base64, beside today's fields. */
  const withBody = (outcome: ToolOutcome): ToolOutcome => {
    if (outcome.type !== "ok" || typeof outcome.value !== "object" || outcome.value === null) return outcome;
    const value: Record<string, unknown> = { ...outcome.value };
    return succeeded({ ...value, body: value.json ?? value.text ?? value.base64 ?? null });
  };

  return {
    http_request: tool({
      description:
        "Make an HTTP request. Returns status, headers and the body: parsed JSON as json, text as text, anything else as base64. Redirects of GET and HEAD are followed. Bodies past the size limit are cut (truncated: true).",
      inputSchema: schemas.httpRequest,
      execute: (input, options) => request(input, options),
    }),

    http_get: tool({
      description: "HTTP GET (http_request with the method set). Returns status, headers and body (parsed JSON, else text).",
      inputSchema: schemas.httpGet,
      execute: async (input, options) => withBody(await request({ ...input, method: "GET" }, options)),
    }),

    http_post: tool({
      description: "HTTP POST (http_request with the method set): a string body is sent as it is, any other JSON value as JSON. Returns status, headers and body.",
      inputSchema: schemas.httpPost,
      execute: async (input, options) => withBody(await request({ ...input, method: "POST" }, options)),
    }),

    fetch_page: tool({
      description: "Fetch a web page and return its readable text (markdown by default: headings, lists, links) and title. Scripts, styles and markup are dropped.",
      inputSchema: schemas.fetchPage,
      execute: async ({ url, format = "markdown", maxChars = 20_000 }, { abortSignal, context: call }: CallOptions) => {
        const answer = await sendOutboundRequest({
          url,
          method: "GET",
          headers: { ...baseHeaders("", "GET"), accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5" },
          ownedHeaders: traceHeaders(call),
          timeoutMs: limits.toolTimeout,
          maxBytes: maxPageBytes,
          maxRedirects,
          env: context.env,
          signal: abortSignal,
        });
        if (!answer.ok) return failed(answer.error);
        if (answer.status >= 400) return failed(`HTTP ${answer.status} from ${new URL(answer.url).host}`);
        const mediaType = mediaTypeOf(answer.contentType);
        const raw = new TextDecoder().decode(answer.bytes);
        let title: string | undefined;
        let content: string;
        if (mediaType === undefined || mediaType === "text/html" || mediaType === "application/xhtml+xml") {
          const page = await htmlToMarkdown(raw, answer.url);
          title = page.title;
          content = format === "text" ? stripMarkdown(page.text) : page.text;
        } else if (isTextType(mediaType)) content = raw;
        else return failed(`${answer.url} is not a page (content-type ${answer.contentType}); use http_request`);
        const cut = content.length > maxChars;
        const limit = Math.min(maxChars, limits.toolResponseMaxBytes - 1_024);
        return succeeded({
          url: answer.url,
          status: answer.status,
          ...(title !== undefined && { title }),
          contentType: answer.contentType ?? null,
          content: content.slice(0, limit),
          characters: content.length,
          ...((cut || content.length > limit || answer.truncated) && { truncated: true }),
        });
      },
    }),
  };
}

/** The call's trace as a header only the gateway sets: its span's `traceparent` (nothing when the agent does not trace). */
function traceHeaders(call: BuiltinCallContext | undefined): Record<string, string> {
  return call?.traceparent === undefined ? {} : { traceparent: call.traceparent };
}

function lowercase(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}
