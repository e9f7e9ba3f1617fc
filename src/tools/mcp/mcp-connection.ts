/**
 * One live connection to an MCP server: Streamable HTTP, falling back to the
 * older SSE transport (stdio cannot exist on Workers), opened within one
 * overall deadline for both attempts; the tool list read page by page
 * (`nextCursor`); tool calls with progress; and a close that ends the
 * session with the spec's `DELETE` before dropping the connection (the SDK's
 * `close()` alone only aborts). Every request the transports make carries
 * the server's configured headers, so it is pinned to the server's origin
 * (`security/pinned-request.ts`): the URL policy, no redirects followed.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { AccountNeededError } from "./account-needed";
import { McpSchemaValidator } from "./mcp-schema-validator";
import { originOf, pinnedFetch } from "../../security/pinned-request";
import type { UrlPolicy } from "../../security/url-policy";

/** What a server says about one of its tools. */
export type McpToolDefinition = {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; [key: string]: unknown };
};

export type McpCallAnswer = { isError?: boolean; content?: unknown; structuredContent?: unknown; toolResult?: unknown };

/** How one `tools/call` is made: its deadline, its cancellation, its progress, and the call span's `traceparent`. */
export type McpCallOptions = {
  timeoutMs: number;
  signal?: AbortSignal;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Required, so that no way of calling a tool forgets the call's trace (undefined: the agent does not trace). */
  traceparent: string | undefined;
};

/** How long the `DELETE` that ends a session may take. */
const sessionEndTimeoutMs = 3_000;

/** At most this many pages of `tools/list` (a server that never stops paging is cut off here). */
const maxToolPages = 50;

export class McpDeadlineError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms}ms`);
    this.name = "McpDeadlineError";
  }
}

/** A request whose session the server no longer knows (HTTP 404 with an `Mcp-Session-Id`). */
export function isSessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/** A request the SDK gave up on after its timeout (the server may still be working on it). */
export function isRequestTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

/** Races `work` against a deadline; on timeout `onTimeout` runs (to abort the work) and the race rejects. */
export async function beforeDeadline<T>(work: Promise<T>, deadline: number, what: string, totalMs: number, onTimeout: () => void): Promise<T> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) {
    onTimeout();
    throw new McpDeadlineError(what, totalMs);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new McpDeadlineError(what, totalMs));
    }, remaining);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, expired]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

export type OpenOptions = {
  url: string;
  transport: "http" | "sse";
  headers: Record<string, string>;
  policy: UrlPolicy;
  /** Epoch ms by which the connection (and its first tool list) must be there. */
  deadline: number;
  /** The deadline's length, for messages. */
  totalMs: number;
  onToolsChanged(): void;
  /** Wraps every request of the connection (a person's token added: `mcp-as-person.ts`). */
  wrapFetch?: (send: ReturnType<typeof pinnedFetch>) => ReturnType<typeof pinnedFetch>;
};

export class McpConnection {
  #closed = false;

  private constructor(
    readonly client: Client,
    readonly transport: StreamableHTTPClientTransport | SSEClientTransport,
    readonly transportKind: "http" | "sse",
  ) {}

  /** Connects (Streamable HTTP, then SSE for `transport: "http"`), all within `options.deadline`. */
  static async open(options: OpenOptions): Promise<McpConnection> {
    const requestInit: RequestInit = { headers: options.headers };
    const origin = originOf(options.url);
    if (origin === undefined) throw new Error("The MCP server's URL must be an absolute http(s) URL");
    // Every request the transports make (an SSE server names its own endpoint) carries the
    // configured headers: each stays on the server's origin, by the URL policy, without redirects.
    const pinned = pinnedFetch({ origin, policy: options.policy });
    const policyFetch = options.wrapFetch ? options.wrapFetch(pinned) : pinned;
    const attempt = async (kind: "http" | "sse") => {
      const client = new Client({ name: "switchboard", version: "0.1.0" }, { jsonSchemaValidator: new McpSchemaValidator() });
      const url = new URL(options.url);
      const transportOptions = { requestInit, fetch: policyFetch };
      const transport = kind === "http" ? new StreamableHTTPClientTransport(url, transportOptions) : new SSEClientTransport(url, transportOptions);
      const connection = new McpConnection(client, transport, kind);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged());
      await beforeDeadline(
        client.connect(transport, { timeout: Math.max(1, options.deadline - Date.now()) }),
        options.deadline,
        "Connecting to the MCP server",
        options.totalMs,
        () => void client.close().catch(() => undefined),
      );
      return connection;
    };
    if (options.transport === "sse") return attempt("sse");
    try {
      return await attempt("http");
    } catch (httpError) {
      // Older servers speak only the SSE transport; a server that never answered gets no second wait,
      // nor one that no request could reach without the person's account.
      if (httpError instanceof McpDeadlineError || httpError instanceof AccountNeededError || Date.now() >= options.deadline) throw httpError;
      try {
        return await attempt("sse");
      } catch (sseError) {
        throw sseError instanceof McpDeadlineError ? sseError : httpError;
      }
    }
  }

  get sessionId(): string | undefined {
    return this.transport instanceof StreamableHTTPClientTransport ? this.transport.sessionId : undefined;
  }

  get instructions(): string | undefined {
    return this.client.getInstructions();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Every page of `tools/list`, by `deadline`. */
  async listTools(deadline: number, totalMs: number): Promise<McpToolDefinition[]> {
    const tools: McpToolDefinition[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxToolPages; page += 1) {
      const listed = await beforeDeadline(
        this.client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: Math.max(1, deadline - Date.now()) }),
        deadline,
        "Listing the MCP server's tools",
        totalMs,
        () => undefined,
      );
      for (const tool of listed.tools)
        tools.push({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown>, annotations: tool.annotations });
      cursor = listed.nextCursor;
      if (!cursor) return tools;
    }
    return tools;
  }

  callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallAnswer> {
    // The call's span travels in `_meta` (MCP's place for trace context), so the server's spans join the run's trace.
    const meta = options.traceparent !== undefined ? { _meta: { traceparent: options.traceparent } } : {};
    return this.client.callTool({ name, arguments: args, ...meta }, undefined, {
      timeout: options.timeoutMs,
      maxTotalTimeout: options.timeoutMs,
      signal: options.signal,
      ...(options.onProgress && { onprogress: options.onProgress, resetTimeoutOnProgress: true }),
    }) as Promise<McpCallAnswer>;
  }

  /**
   * Ends the session (`DELETE` with its `Mcp-Session-Id`; a server may answer
   * 405) unless the server already forgot it, then drops the connection.
   */
  async close(options: { sessionGone?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!options.sessionGone && this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId) {
      const ending = this.transport.terminateSession();
      await beforeDeadline(ending, Date.now() + sessionEndTimeoutMs, "Ending the MCP session", sessionEndTimeoutMs, () => undefined).catch((error: unknown) =>
        console.error("could not end an MCP session", (error as Error).message),
      );
    }
    await this.client.close().catch(() => undefined);
  }
}
