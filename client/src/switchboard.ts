/**
 * The Switchboard client: every route of the gateway, typed from its OpenAPI
 * document, with the error envelope thrown as a `SwitchboardError`; live
 * streams that reconnect and resume (`subscribe`, `subscribeAgent`,
 * `openSpace`); and `handleTools` for services that answer tool calls.
 *
 *   const switchboard = new Switchboard({ baseUrl, secretKey });            // a server
 *   const switchboard = new Switchboard({ baseUrl, publicKey, token });     // a person or service
 */
import createClient, { type Client } from "openapi-fetch";
import { EventSubscription, type StreamConnection, type SubscribeOptions, type WebSocketConstructor } from "./event-stream.js";
import { type ToolAnswer, ToolRunner, type ToolHandlers, type ToolRunnerOptions } from "./handle-tools.js";
import { LiveSpace, type OpenSpaceOptions } from "./live-space.js";
import { retryingFetch, type RetryOptions } from "./retrying-fetch.js";
import { SwitchboardError } from "./switchboard-error.js";
import type { AgentConfigInput, AgentDocument, AgentDocumentInput, AgentEvent, PendingToolCall, SpaceEvent, paths } from "./types.js";
import { createWebhookHandler, type WebhookHandlerOptions } from "./webhooks.js";

type TokenSource = string | (() => string | Promise<string>);

export type SwitchboardOptions = {
  /** The gateway, e.g. `http://localhost:8787` (no trailing path). */
  baseUrl: string;
  /** The secret key: full access, for servers only. */
  secretKey?: string;
  /** The public key, with `token`: act as one entity (people, services, browsers). */
  publicKey?: string;
  /** A JWT, or a function that returns a fresh one (called per request and per reconnect). */
  token?: TokenSource;
  /** Default: `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Default: `globalThis.WebSocket` where there is one; `null` to always use SSE. */
  WebSocket?: WebSocketConstructor | null;
  /** Retries of safe requests (reads, `PUT`, idempotent `POST`s). Default 3 retries from 250 ms. */
  retry?: RetryOptions;
};

type Page = { limit?: number; cursor?: string };
type Result<T> = { data?: T; error?: unknown; response: Response };

export class Switchboard {
  /** The typed fetch client (openapi-fetch) for anything the helpers below do not cover. */
  readonly raw: Client<paths>;
  readonly baseUrl: string;
  readonly #options: SwitchboardOptions;
  readonly #fetch: typeof fetch;
  readonly #WebSocket: WebSocketConstructor | undefined;

  constructor(options: SwitchboardOptions) {
    if (!options?.baseUrl) throw new TypeError("Switchboard needs baseUrl, e.g. http://localhost:8787");
    if (!options.secretKey && !(options.publicKey && options.token)) {
      throw new TypeError("Switchboard needs credentials: secretKey (servers), or publicKey and token (people and services)");
    }
    this.#options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#fetch = baseFetch;
    const global = (globalThis as unknown as { WebSocket?: WebSocketConstructor }).WebSocket;
    this.#WebSocket = options.WebSocket === null ? undefined : (options.WebSocket ?? global);
    this.raw = createClient<paths>({ baseUrl: this.baseUrl, fetch: retryingFetch((request) => baseFetch(request), options.retry) });
    this.raw.use({
      onRequest: async ({ request }) => {
        for (const [name, value] of Object.entries(await this.authHeaders())) request.headers.set(name, value);
        return request;
      },
    });
  }

  /** The headers that authenticate a request (fresh token each time when `token` is a function). */
  async authHeaders(): Promise<Record<string, string>> {
    if (this.#options.secretKey) return { "x-secret-key": this.#options.secretKey };
    return { "x-public-key": this.#options.publicKey as string, authorization: `Bearer ${await this.#token()}` };
  }

  async #token(): Promise<string> {
    const token = this.#options.token as TokenSource;
    return typeof token === "function" ? token() : token;
  }

  async #call<T>(what: string, request: () => Promise<Result<T>>): Promise<T> {
    let result: Result<T>;
    try {
      result = await request();
    } catch (error) {
      throw SwitchboardError.network(error, what);
    }
    if (result.error !== undefined || !result.response.ok) throw SwitchboardError.fromResponse(result.response.status, result.error, what);
    return result.data as T;
  }

  // ---------------------------------------------------------------- meta

  health() {
    return this.#call("GET /health", () => this.raw.GET("/health"));
  }

  /** The caller's entity and spaces (public key + JWT only). */
  me() {
    return this.#call("GET /api/me", () => this.raw.GET("/api/me"));
  }

  // ---------------------------------------------------------------- entities

  readonly entities = {
    create: (body: paths["/api/entities"]["post"]["requestBody"]["content"]["application/json"]) =>
      this.#call("POST /api/entities", () => this.raw.POST("/api/entities", { body })),
    get: (entityId: string) => this.#call(`GET /api/entities/${entityId}`, () => this.raw.GET("/api/entities/{entityId}", { params: { path: { entityId } } })),
    list: (query: Page & { type?: "human" | "agent" | "service" } = {}) => this.#call("GET /api/entities", () => this.raw.GET("/api/entities", { params: { query } })),
    all: (query: { type?: "human" | "agent" | "service" } = {}) =>
      this.#pages(
        (cursor) => this.entities.list({ ...query, cursor, limit: 200 }),
        (page) => page.entities,
      ),
  };

  // ---------------------------------------------------------------- agents

  readonly agents = {
    /** A new agent; fields with a default (`version`, `loop`, `tools`, `limits`…) may be left out. */
    create: (config: AgentConfigInput) => this.#call("POST /api/agents", () => this.raw.POST("/api/agents", { body: { config } })),
    get: (agentId: string) => this.#call(`GET /api/agents/${agentId}`, () => this.raw.GET("/api/agents/{agentId}", { params: { path: { agentId } } })),
    /** Replaces the agent's config (the whole of it: what is left out takes its default). */
    update: (agentId: string, config: AgentConfigInput) =>
      this.#call(`PUT /api/agents/${agentId}`, () => this.raw.PUT("/api/agents/{agentId}", { params: { path: { agentId } }, body: { config } })),
    delete: (agentId: string) => this.#call(`DELETE /api/agents/${agentId}`, () => this.raw.DELETE("/api/agents/{agentId}", { params: { path: { agentId } } })),
    list: (query: Page = {}) => this.#call("GET /api/agents", () => this.raw.GET("/api/agents", { params: { query } })),
    all: () =>
      this.#pages(
        (cursor) => this.agents.list({ cursor, limit: 200 }),
        (page) => page.agents,
      ),
    /**
     * Connects an agent's own account (a tool, MCP server or OpenAPI source whose `auth` says `owner: "agent"`
     * and has no client secret): a one-time `startUrl` to open and sign in with, as the account the agent should use.
     */
    connectAccount: (agentId: string, target: { tool: string } | { server: string } | { provider: string }) =>
      this.#call(`POST /api/agents/${agentId}/connections`, () => this.raw.POST("/api/agents/{agentId}/connections", { params: { path: { agentId } }, body: target })),
    runs: (agentId: string, query: { limit?: number } = {}) =>
      this.#call(`GET /api/agents/${agentId}/runs`, () => this.raw.GET("/api/agents/{agentId}/runs", { params: { path: { agentId }, query } })),
    pendingToolCalls: (agentId: string, query: { status?: "waiting" | "pending" | "resolved" | "expired"; limit?: number } = {}) =>
      this.#call(`GET /api/agents/${agentId}/pending-tool-calls`, () => this.raw.GET("/api/agents/{agentId}/pending-tool-calls", { params: { path: { agentId }, query } })),
    goals: (agentId: string) => this.#call(`GET /api/agents/${agentId}/goals`, () => this.raw.GET("/api/agents/{agentId}/goals", { params: { path: { agentId } } })),
    memories: (agentId: string) => this.#call(`GET /api/agents/${agentId}/memories`, () => this.raw.GET("/api/agents/{agentId}/memories", { params: { path: { agentId } } })),
    plans: (agentId: string) => this.#call(`GET /api/agents/${agentId}/plans`, () => this.raw.GET("/api/agents/{agentId}/plans", { params: { path: { agentId } } })),
    /** Pushes an `external` event into the agent's inbox; it wakes. */
    pushInbox: (agentId: string, data: unknown) =>
      this.#call(`POST /api/agents/${agentId}/inbox`, () => this.raw.POST("/api/agents/{agentId}/inbox", { params: { path: { agentId } }, body: { type: "external", data } })),
    /** Call statistics per tool since the agent was created: calls, failures by kind, latency median and p95, bytes, cache hits. */
    toolStats: (agentId: string) => this.#call(`GET /api/agents/${agentId}/tool-stats`, () => this.raw.GET("/api/agents/{agentId}/tool-stats", { params: { path: { agentId } } })),
    /** Stops the agent's running run now (it fails, its events kept on the record); 409 when nothing runs. */
    abort: (agentId: string, reason?: string) =>
      this.#call(`POST /api/agents/${agentId}/abort`, () =>
        this.raw.POST("/api/agents/{agentId}/abort", { params: { path: { agentId } }, body: reason === undefined ? {} : { reason } }),
      ),
  };

  /**
   * Operator controls over pending calls (secret key): the calls of every
   * agent, filtered, oldest first; one call cancelled (the agent gets a
   * cancellation), expired now, or its outcome delivered to the agent again.
   * Each is noted on the run it touched; a call that already settled is a 409.
   */
  readonly pendingToolCalls = {
    list: (query: NonNullable<paths["/api/pending-tool-calls"]["get"]["parameters"]["query"]> = {}) =>
      this.#call("GET /api/pending-tool-calls", () => this.raw.GET("/api/pending-tool-calls", { params: { query } })),
    cancel: (callId: string, reason?: string) =>
      this.#call(`POST /api/pending-tool-calls/${callId}/cancel`, () =>
        this.raw.POST("/api/pending-tool-calls/{callId}/cancel", { params: { path: { callId } }, body: reason === undefined ? {} : { reason } }),
      ),
    expire: (callId: string, reason?: string) =>
      this.#call(`POST /api/pending-tool-calls/${callId}/expire`, () =>
        this.raw.POST("/api/pending-tool-calls/{callId}/expire", { params: { path: { callId } }, body: reason === undefined ? {} : { reason } }),
      ),
    redeliver: (callId: string, reason?: string) =>
      this.#call(`POST /api/pending-tool-calls/${callId}/redeliver`, () =>
        this.raw.POST("/api/pending-tool-calls/{callId}/redeliver", { params: { path: { callId } }, body: reason === undefined ? {} : { reason } }),
      ),
  };

  /**
   * The agent as one portable document (secret key): config (secrets by name
   * only), goals, memories, plans and notes. Save it as JSON; `importAgent`
   * takes it back, here or on another gateway.
   */
  exportAgent(agentId: string): Promise<AgentDocument> {
    return this.#call(`GET /api/agents/${agentId}/export`, () => this.raw.GET("/api/agents/{agentId}/export", { params: { path: { agentId } } }));
  }

  /**
   * A new agent from an exported document (secret key), checked whole before
   * anything is written. `name` renames it. Retried safely: one
   * Idempotency-Key for all attempts of this call (or yours, `idempotencyKey`).
   */
  importAgent(document: AgentDocumentInput, options: { name?: string; idempotencyKey?: string } = {}) {
    return this.#call("POST /api/agents/import", () =>
      this.raw.POST("/api/agents/import", {
        params: { query: options.name === undefined ? {} : { name: options.name } },
        body: document,
        ...(options.idempotencyKey !== undefined && { headers: { "idempotency-key": options.idempotencyKey } }),
      }),
    );
  }

  // ---------------------------------------------------------------- spaces

  readonly spaces = {
    create: (body: { name: string; memberIds?: string[] }) => this.#call("POST /api/spaces", () => this.raw.POST("/api/spaces", { body })),
    get: (spaceId: string) => this.#call(`GET /api/spaces/${spaceId}`, () => this.raw.GET("/api/spaces/{spaceId}", { params: { path: { spaceId } } })),
    /** Secret key: every space; a JWT: the caller's spaces. */
    list: (query: Page = {}) => this.#call("GET /api/spaces", () => this.raw.GET("/api/spaces", { params: { query } })),
    all: () =>
      this.#pages(
        (cursor) => this.spaces.list({ cursor, limit: 200 }),
        (page) => page.spaces,
      ),
    members: (spaceId: string) => this.#call(`GET /api/spaces/${spaceId}/members`, () => this.raw.GET("/api/spaces/{spaceId}/members", { params: { path: { spaceId } } })),
    /** Adds an entity (an agent may be named by either of its ids). */
    addMember: (spaceId: string, entityId: string) =>
      this.#call(`POST /api/spaces/${spaceId}/members`, () => this.raw.POST("/api/spaces/{spaceId}/members", { params: { path: { spaceId } }, body: { entityId } })),
    /** Sets (or with `null` clears) a member's role. */
    setMemberRole: (spaceId: string, entityId: string, role: paths["/api/spaces/{spaceId}/members/{entityId}"]["put"]["requestBody"]["content"]["application/json"]["role"]) =>
      this.#call(`PUT /api/spaces/${spaceId}/members/${entityId}`, () =>
        this.raw.PUT("/api/spaces/{spaceId}/members/{entityId}", { params: { path: { spaceId, entityId } }, body: { role } }),
      ),
    removeMember: (spaceId: string, entityId: string) =>
      this.#call(`DELETE /api/spaces/${spaceId}/members/${entityId}`, () =>
        this.raw.DELETE("/api/spaces/{spaceId}/members/{entityId}", { params: { path: { spaceId, entityId } } }),
      ),
    /** The tools that can show cards in the space, with display settings and result schemas. */
    tools: (spaceId: string) => this.#call(`GET /api/spaces/${spaceId}/tools`, () => this.raw.GET("/api/spaces/{spaceId}/tools", { params: { path: { spaceId } } })),
  };

  readonly messages = {
    /** Posts a message. With the secret key, `entityId` says who speaks; with a JWT, the caller speaks. */
    send: (spaceId: string, body: { text: string; entityId?: string; mentions?: string[] }) =>
      this.#call(`POST /api/spaces/${spaceId}/messages`, () => this.raw.POST("/api/spaces/{spaceId}/messages", { params: { path: { spaceId } }, body })),
    /** Messages after `afterSeq`, oldest first (at most 200 per call). */
    list: (spaceId: string, query: { afterSeq?: number; limit?: number } = {}) =>
      this.#call(`GET /api/spaces/${spaceId}/messages`, () => this.raw.GET("/api/spaces/{spaceId}/messages", { params: { path: { spaceId }, query } })),
    /** Every message after `afterSeq` (and up to `untilSeq`), page by page. */
    all: async (spaceId: string, options: { afterSeq?: number; untilSeq?: number } = {}) => {
      const messages = [];
      let afterSeq = options.afterSeq ?? 0;
      for (;;) {
        const page = await this.messages.list(spaceId, { afterSeq, limit: 200 });
        for (const message of page.messages) if (options.untilSeq === undefined || message.seq <= options.untilSeq) messages.push(message);
        const last = page.messages.at(-1);
        if (!last || page.messages.length < 200 || (options.untilSeq !== undefined && last.seq >= options.untilSeq)) return messages;
        afterSeq = last.seq;
      }
    },
  };

  // ---------------------------------------------------------------- webhook subscriptions

  /** Standard Webhooks subscriptions to an agent's or a space's events (secret key). Verify pushes with `verifyWebhook(subscription.secret, body, headers)`. */
  readonly webhooks = {
    create: (body: paths["/api/webhooks"]["post"]["requestBody"]["content"]["application/json"]) =>
      this.#call("POST /api/webhooks", () => this.raw.POST("/api/webhooks", { body })),
    /** Newest first; pass `nextCursor` back as `cursor` for the next page (`before`, a subscription id, is the older way). */
    list: (query: { agentId?: string; spaceId?: string; limit?: number; cursor?: string; before?: string } = {}) =>
      this.#call("GET /api/webhooks", () => this.raw.GET("/api/webhooks", { params: { query } })),
    get: (webhookId: string) => this.#call(`GET /api/webhooks/${webhookId}`, () => this.raw.GET("/api/webhooks/{webhookId}", { params: { path: { webhookId } } })),
    delete: (webhookId: string) => this.#call(`DELETE /api/webhooks/${webhookId}`, () => this.raw.DELETE("/api/webhooks/{webhookId}", { params: { path: { webhookId } } })),
    /** Deliveries that gave up (a subscription's event after its schedule, a pushed call past its deadline), newest first; pass `nextCursor` back as `cursor`. */
    deadLetters: (query: paths["/api/webhooks/dead-letters"]["get"]["parameters"]["query"] = {}) =>
      this.#call("GET /api/webhooks/dead-letters", () => this.raw.GET("/api/webhooks/dead-letters", { params: { query } })),
    /** Starts a fresh delivery of a dead letter now (retried safely with one `Idempotency-Key`; asked again while under way, it starts nothing more). */
    redeliver: (deadLetterId: string) =>
      this.#call(`POST /api/webhooks/dead-letters/${deadLetterId}/redeliver`, () =>
        this.raw.POST("/api/webhooks/dead-letters/{deadLetterId}/redeliver", { params: { path: { deadLetterId } }, body: {} }),
      ),
  };

  // ---------------------------------------------------------------- connected accounts

  readonly accounts = {
    /**
     * Connected accounts, never a token; pass `nextCursor` back as `cursor`. A person's client lists its own
     * (`GET /api/me/connections`); a secret-key client everyone's, or one entity's with `entityId` (`GET /api/connections`).
     */
    list: async (query: paths["/api/connections"]["get"]["parameters"]["query"] = {}) => {
      if (this.#options.secretKey) return this.#call("GET /api/connections", () => this.raw.GET("/api/connections", { params: { query } }));
      const { entityId, ...page } = query;
      if (entityId !== undefined) throw new TypeError("accounts.list: entityId needs the secret key; a person lists only their own connections");
      return this.#call("GET /api/me/connections", () => this.raw.GET("/api/me/connections", { params: { query: page } }));
    },
    /**
     * Revokes a connection (its tokens erased, still listed as revoked). `connectionKey` as listed (it is encoded here).
     * A person's client revokes its own (`DELETE /api/me/connections/{id}`); a secret-key client anyone's, named by `entityId`
     * (`DELETE /api/connections/{id}`).
     */
    revoke: async (connectionKey: string, options: { entityId?: string } = {}) => {
      const { entityId } = options;
      if (this.#options.secretKey) {
        if (entityId === undefined) throw new TypeError("accounts.revoke: with the secret key, name whose connection it is with entityId");
        return this.#call("DELETE /api/connections/…", () => this.raw.DELETE("/api/connections/{id}", { params: { path: { id: connectionKey }, query: { entityId } } }));
      }
      if (entityId !== undefined) throw new TypeError("accounts.revoke: entityId needs the secret key; a person revokes only their own connections");
      return this.#call("DELETE /api/me/connections/…", () => this.raw.DELETE("/api/me/connections/{id}", { params: { path: { id: connectionKey } } }));
    },
    /**
     * The link that connects the account a card asks for (`part.account.flowId`): open it in the person's browser.
     * Only the person the card is for gets one (a member JWT); each call gives a new link and the one before stops working.
     */
    connectLink: async (flowId: string) => {
      if (this.#options.secretKey) throw new TypeError("accounts.connectLink: a connect link is the person's own; use a client with their token");
      return this.#call("GET /api/me/connections/flows/…", () => this.raw.GET("/api/me/connections/flows/{flowId}", { params: { path: { flowId } } }));
    },
  };

  // ---------------------------------------------------------------- runs and results

  readonly runs = {
    get: (runId: string) => this.#call(`GET /api/runs/${runId}`, () => this.raw.GET("/api/runs/{runId}", { params: { path: { runId } } })),
  };

  /** Answers a pending tool call (`callId` = the `toolCallId` of the card or of `tool.pending`). */
  submitToolResult(runId: string, callId: string, result: unknown) {
    return this.#call(`POST /api/runs/${runId}/tool-results`, () => this.raw.POST("/api/runs/{runId}/tool-results", { params: { path: { runId } }, body: { callId, result } }));
  }

  /** Reports that a pending tool call failed, with `error` as its message: the card shows an error and the model gets a tool error. */
  submitToolError(runId: string, callId: string, error: string) {
    return this.#call(`POST /api/runs/${runId}/tool-results`, () => this.raw.POST("/api/runs/{runId}/tool-results", { params: { path: { runId } }, body: { callId, error } }));
  }

  /**
   * Answers a pending call through its `callbackUrl` token (the token is the
   * only credential the route needs): `{result}` or `{error}`.
   */
  answerCallback(token: string, body: paths["/api/callbacks/{token}"]["post"]["requestBody"]["content"]["application/json"]) {
    return this.#call("POST /api/callbacks/…", () => this.raw.POST("/api/callbacks/{token}", { params: { path: { token } }, body }));
  }

  /** Answers a pending call through the full `callbackUrl` a `tool.pending` event or a webhook carried. */
  answerCallbackUrl(callbackUrl: string, body: paths["/api/callbacks/{token}"]["post"]["requestBody"]["content"]["application/json"]) {
    const token = /\/api\/callbacks\/([^/?#]+)/.exec(callbackUrl)?.[1];
    if (!token) throw new TypeError(`Not a callback URL (…/api/callbacks/<token>): ${callbackUrl}`);
    return this.answerCallback(decodeURIComponent(token), body);
  }

  async *#pages<P extends { nextCursor: string | null }, T>(read: (cursor: string | undefined) => Promise<P>, items: (page: P) => T[]): AsyncGenerator<T, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await read(cursor);
      yield* items(page);
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  // ---------------------------------------------------------------- streams

  #connection(path: string, probePath: string): StreamConnection {
    return {
      fetch: this.#fetch,
      WebSocket: this.#WebSocket,
      baseUrl: this.baseUrl,
      path,
      headers: () => this.authHeaders(),
      query: async () => (this.#options.secretKey ? undefined : { publicKey: this.#options.publicKey as string, token: await this.#token() }),
      probe: async () => {
        try {
          const response = await this.#fetch(`${this.baseUrl}${probePath}`, { headers: await this.authHeaders() });
          if (response.ok || response.status >= 500) return undefined;
          return SwitchboardError.fromResponse(response.status, await response.json().catch(() => undefined), `GET ${probePath}`);
        } catch {
          return undefined;
        }
      },
    };
  }

  /** The live events of a space; reconnects and resumes after the last seq seen. */
  subscribe(spaceId: string, options: SubscribeOptions = {}): EventSubscription<SpaceEvent> {
    return new EventSubscription<SpaceEvent>(this.#connection(`/api/spaces/${encodeURIComponent(spaceId)}/stream`, `/api/spaces/${encodeURIComponent(spaceId)}`), options);
  }

  /** An agent's own events (secret key): cycles, text deltas, every tool call, calls to execute. */
  subscribeAgent(agentId: string, options: SubscribeOptions = {}): EventSubscription<AgentEvent> {
    return new EventSubscription<AgentEvent>(this.#connection(`/api/agents/${encodeURIComponent(agentId)}/stream`, `/api/agents/${encodeURIComponent(agentId)}`), options);
  }

  /** A space's messages kept up to date: history, streaming drafts and tool cards merged into one timeline. */
  openSpace(spaceId: string, options: OpenSpaceOptions = {}): LiveSpace {
    return new LiveSpace(this, spaceId, options);
  }

  // ---------------------------------------------------------------- tools

  /**
   * Answers an agent's external tool calls with your functions (secret key):
   * follows the agent stream's `tool.pending`, and at start (and after each
   * reconnect) the calls still waiting or pending, so none is missed.
   */
  handleTools(handlers: ToolHandlers, options: ToolRunnerOptions & { agentId: string; subscribe?: SubscribeOptions }): ToolHandling {
    const runner = new ToolRunner(handlers, (runId, callId, answer) => this.#answerToolCall(runId, callId, answer), options);
    const subscription = this.subscribeAgent(options.agentId, options.subscribe);
    const catchUp = async () => {
      for (const status of ["waiting", "pending"] as const) {
        const { pendingToolCalls } = await this.agents.pendingToolCalls(options.agentId, { status, limit: 500 });
        for (const row of pendingToolCalls as (PendingToolCall & { executionType: string })[]) {
          if (row.executionType === "external" || row.executionType === "space") {
            void runner.run({ ...row, resultUrl: `/api/runs/${row.runId}/tool-results` }, options.agentId);
          }
        }
      }
    };
    subscription.on("event", (event) => {
      if (event.type === "tool.pending") void runner.run(event.data, options.agentId);
    });
    subscription.on("status", ({ status }) => {
      if (status === "open") catchUp().catch(() => undefined);
    });
    return {
      subscription,
      close: async () => {
        subscription.close();
        await runner.close();
      },
    };
  }

  #answerToolCall(runId: string, callId: string, answer: ToolAnswer) {
    return "error" in answer ? this.submitToolError(runId, callId, answer.error) : this.submitToolResult(runId, callId, answer.result);
  }

  /** A fetch-style webhook endpoint for tools with `execution.webhook` (see `createWebhookHandler`). */
  webhookHandler(handlers: ToolHandlers, options: WebhookHandlerOptions & ToolRunnerOptions): (request: Request) => Promise<Response> {
    const runner = new ToolRunner(handlers, (runId, callId, answer) => this.#answerToolCall(runId, callId, answer), options);
    return createWebhookHandler(runner, handlers, options);
  }
}

export type ToolHandling = { subscription: EventSubscription<AgentEvent>; close(): Promise<void> };
