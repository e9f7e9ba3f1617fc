/**
 * The agent object's MCP connections, kept across cycles: one per server
 * (keyed by its config and the header values it sends), with the server's
 * tool list and instructions. A list is asked for again after `toolListTtl`
 * or as soon as the server sends `notifications/tools/list_changed`. A
 * request the server answers with 404 (it forgot the session) opens a new
 * session and is tried once more. A server that fails is left alone for a
 * while, doubling each time (`backoffMs`). A connection that is dropped (the
 * server left the config, the config changed, the agent was deleted, it sat
 * idle, it failed) ends its session with `DELETE` first. An eviction of the
 * object drops connections without that: the server times the session out.
 *
 * The MCP SDK is loaded with the first connection, never at start-up: its
 * protocol schemas are the largest part of the Worker's module evaluation
 * (docs/development.md, "Bundle and start-up"), and most agents have no MCP
 * server.
 */
import { canonicalJson } from "../../canonical-json";
import { outboundUrlProblem, type UrlPolicy, urlPolicyOf } from "../../security/url-policy";
import { fillHeaders } from "../gateway/fill-headers";
import { AccountNeededError } from "./account-needed";
import type { McpCallAnswer, McpCallOptions, McpConnection, McpToolDefinition, OpenOptions } from "./mcp-connection";
import { defaultConnectTimeoutMs, defaultToolListTtlMs, type McpServerConfig } from "../config/mcp-server-config";

/** mcp-connection.ts and the SDK behind it, once a connection has been opened. */
let connectionModule: typeof import("./mcp-connection") | undefined;

async function loadConnectionModule(): Promise<typeof import("./mcp-connection")> {
  connectionModule ??= await import("./mcp-connection");
  return connectionModule;
}

/** The server forgot the session (404). Only an opened connection can fail so, which loaded the SDK. */
const isSessionGone = (error: unknown): boolean => connectionModule?.isSessionGone(error) ?? false;

/** An MCP request that timed out in the SDK (only a call over an opened connection can). */
export const isMcpRequestTimeout = (error: unknown): boolean => connectionModule?.isRequestTimeout(error) ?? false;

/** A failing server is left alone 5 s after its first failure, doubling up to 10 minutes. */
export const backoffMs = (failures: number) => Math.min(10 * 60 * 1000, 5_000 * 2 ** Math.max(0, failures - 1));
/** A connection no cycle used for this long is closed at the next sweep. */
export const idleConnectionMs = 10 * 60 * 1000;

/** The person a connection acts for (a server with `auth`): their id, and what adds their token to each request. */
export type McpPerson = { entityId: string; wrapFetch: NonNullable<OpenOptions["wrapFetch"]> };

type Entry = {
  key: string;
  server: McpServerConfig;
  person?: McpPerson;
  headers: Record<string, string>;
  policy: UrlPolicy;
  connection?: McpConnection;
  tools?: McpToolDefinition[];
  instructions?: string;
  listedAt: number;
  stale: boolean;
  failures: number;
  retryAt: number;
  lastError?: string;
  lastUsedAt: number;
};

export type McpListing =
  | { ok: true; key: string; tools: McpToolDefinition[]; instructions?: string; reused: boolean }
  | {
      ok: false;
      error: string;
      retryAt?: number;
      failures: number;
      skipped: boolean;
      /** The server cannot be reached as the person until they connect their account (no back-off: they may connect any moment). */
      accountNeeded?: { reason: string; scopes: string[] };
    };

export type McpPoolCounters = { connects: number; lists: number; sessionsEnded: number; reconnects: number };

export class McpPool {
  readonly #entries = new Map<string, Entry>();
  /** The last tool list of each server (name and URL), whoever's connection read it: offered while a person's cannot be read. */
  readonly #known = new Map<string, McpToolDefinition[]>();
  /** Listings under way, by server config and person: the same listing asked for again joins the one running. */
  readonly #listings = new Map<string, Promise<McpListing>>();
  /** What this pool did, for tests and the bench. */
  readonly counters: McpPoolCounters = { connects: 0, lists: 0, sessionsEnded: 0, reconnects: 0 };

  /**
   * The server's tools, from the kept connection when it is fresh, else
   * connected or listed again now. With `person`, over that person's own
   * connection (each person's token is theirs: connections are never shared).
   */
  async listing(server: McpServerConfig, env: Record<string, unknown>, now = Date.now(), person?: McpPerson): Promise<McpListing> {
    // One listing of a server at a time: a cycle that starts while warmup connects waits for that connection rather than open a second.
    const flight = `${person?.entityId ?? ""}:${canonicalJson(server)}`;
    const running = this.#listings.get(flight);
    if (running) return running;
    const listed = this.#listing(server, env, now, person);
    this.#listings.set(flight, listed);
    try {
      return await listed;
    } finally {
      this.#listings.delete(flight);
    }
  }

  async #listing(server: McpServerConfig, env: Record<string, unknown>, now: number, person: McpPerson | undefined): Promise<McpListing> {
    const policy = urlPolicyOf(env);
    const urlProblem = outboundUrlProblem(server.url, policy);
    if (urlProblem !== undefined) return { ok: false, error: urlProblem, failures: 0, skipped: false };
    const headers = fillHeaders(server.headers, {}, env);
    if (!headers.ok) return { ok: false, error: headers.error, failures: 0, skipped: false };
    const key = `${server.name}:${canonicalJson({ url: server.url, transport: server.transport, headers: headers.value, as: person?.entityId ?? null })}`;

    let entry = this.#entries.get(key);
    if (!entry) {
      // The same server with other settings (a changed URL, a rotated secret): its old session ends.
      for (const other of [...this.#entries.values()]) {
        if (other.server.name === server.name && other.person?.entityId === person?.entityId) {
          this.#entries.delete(other.key);
          void this.#drop(other);
        }
      }
      entry = { key, server, person, headers: headers.value, policy, listedAt: 0, stale: true, failures: 0, retryAt: 0, lastUsedAt: now };
      this.#entries.set(key, entry);
    }
    entry.server = server;
    if (person !== undefined) entry.person = person;
    entry.policy = policy;
    entry.lastUsedAt = now;
    if (entry.retryAt > now) {
      return {
        ok: false,
        error: `backing off after ${entry.failures} failure(s): ${entry.lastError ?? "unknown error"}`,
        retryAt: entry.retryAt,
        failures: entry.failures,
        skipped: true,
      };
    }
    const ttl = server.toolListTtl ?? defaultToolListTtlMs;
    if (entry.connection && !entry.connection.closed && entry.tools && !entry.stale && now - entry.listedAt < ttl) {
      return { ok: true, key, tools: entry.tools, instructions: entry.instructions, reused: true };
    }

    const totalMs = server.connectTimeout ?? defaultConnectTimeoutMs;
    const deadline = Date.now() + totalMs;
    try {
      const reused = entry.connection !== undefined && !entry.connection.closed;
      const connection = reused ? (entry.connection as McpConnection) : await this.#open(entry, deadline, totalMs);
      entry.stale = false;
      let tools: McpToolDefinition[];
      try {
        tools = await connection.listTools(deadline, totalMs);
      } catch (error) {
        if (!isSessionGone(error)) throw error;
        tools = await (await this.#reopen(entry, deadline, totalMs)).listTools(deadline, totalMs);
      }
      this.counters.lists += 1;
      entry.tools = tools;
      this.#known.set(knownKey(server), tools);
      entry.instructions = entry.connection?.instructions;
      entry.listedAt = Date.now();
      entry.failures = 0;
      entry.retryAt = 0;
      entry.lastError = undefined;
      return { ok: true, key, tools, instructions: entry.instructions, reused };
    } catch (error) {
      const message = (error as Error).message;
      await this.#drop(entry);
      if (error instanceof AccountNeededError) {
        entry.tools = undefined;
        return { ok: false, error: message, failures: entry.failures, skipped: false, accountNeeded: { reason: error.reason, scopes: error.scopes } };
      }
      entry.tools = undefined;
      entry.failures += 1;
      entry.retryAt = Date.now() + backoffMs(entry.failures);
      entry.lastError = message;
      return { ok: false, error: message, retryAt: entry.retryAt, failures: entry.failures, skipped: false };
    }
  }

  /** The server's tools as its last listing gave them (any person's), when there was one. */
  knownTools(server: McpServerConfig): McpToolDefinition[] | undefined {
    return this.#known.get(knownKey(server));
  }

  /**
   * Calls a tool over the kept connection (opening one if it was dropped). A
   * 404 means the server forgot the session, so the call never ran: a new
   * session is opened and the call is made once more.
   */
  async callTool(key: string, name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallAnswer> {
    const entry = this.#entries.get(key);
    if (!entry) throw new Error("The MCP server's connection is gone; its tools come back next cycle");
    entry.lastUsedAt = Date.now();
    const totalMs = entry.server.connectTimeout ?? defaultConnectTimeoutMs;
    const connection = entry.connection && !entry.connection.closed ? entry.connection : await this.#open(entry, Date.now() + totalMs, totalMs);
    try {
      return await connection.callTool(name, args, options);
    } catch (error) {
      if (!isSessionGone(error)) throw error;
      const fresh = await this.#reopen(entry, Date.now() + totalMs, totalMs);
      return fresh.callTool(name, args, options);
    }
  }

  /** Closes the connections of servers no longer configured (by name), and those idle past `idleMs`. */
  async sweep(configured: ReadonlySet<string>, now = Date.now(), idleMs = idleConnectionMs): Promise<void> {
    const dropped = [...this.#entries.values()].filter((entry) => !configured.has(entry.server.name) || now - entry.lastUsedAt > idleMs);
    for (const entry of dropped) this.#entries.delete(entry.key);
    await Promise.all(dropped.map((entry) => this.#drop(entry)));
  }

  /** Ends every session (the config changed, or the agent was deleted). */
  async closeAll(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => this.#drop(entry)));
  }

  /** How many connections are open now. */
  get openConnections(): number {
    return [...this.#entries.values()].filter((entry) => entry.connection && !entry.connection.closed).length;
  }

  async #open(entry: Entry, deadline: number, totalMs: number): Promise<McpConnection> {
    const { McpConnection } = await loadConnectionModule();
    const connection = await McpConnection.open({
      url: entry.server.url,
      transport: entry.server.transport,
      headers: entry.headers,
      policy: entry.policy,
      deadline,
      totalMs,
      onToolsChanged: () => {
        entry.stale = true;
      },
      wrapFetch: entry.person?.wrapFetch,
    });
    this.counters.connects += 1;
    entry.connection = connection;
    return connection;
  }

  /** The server forgot the session: a new one, without a `DELETE` for the old. */
  async #reopen(entry: Entry, deadline: number, totalMs: number): Promise<McpConnection> {
    await entry.connection?.close({ sessionGone: true });
    entry.connection = undefined;
    this.counters.reconnects += 1;
    return this.#open(entry, deadline, totalMs);
  }

  async #drop(entry: Entry): Promise<void> {
    const connection = entry.connection;
    entry.connection = undefined;
    if (!connection || connection.closed) return;
    if (connection.sessionId) this.counters.sessionsEnded += 1;
    await connection.close();
  }
}

const knownKey = (server: McpServerConfig) => JSON.stringify([server.name, server.url]);
