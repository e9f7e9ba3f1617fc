/**
 * Agent configs written in the orchestrator's words (docs/tools.md, "Forms
 * of the earlier design"), rewritten to the fields here before the config is
 * checked, and stored under the names here:
 *
 * | written | stored | because |
 * |---|---|---|
 * | `queues.<name>.concurrent` | `queues.<name>.concurrency` | the same limit |
 * | `mcpServers: {<name>: {…}}` (without `mcp`) | `mcp.servers: [{name, …}]` | servers keyed by name |
 * | a server's `type` (without `transport`) | `transport` | `http` and `sse` are the transports here; `stdio` and `websocket` are refused by the check, with the list |
 * | a server's `cache: <ms>` | `cache: {ttlMs: <ms>}` | answers kept for that long |
 * | a server's `requestTimeoutMs` (without `timeout`) | `timeout` | how long one call may take |
 *
 * Anything given both ways is left as written, so the check refuses it
 * rather than one silently winning. The catalogue's `tools` settings object
 * is placed first (`catalogue-tool-settings.ts`).
 */
import { liftCatalogueToolSettings } from "./catalogue-tool-settings";

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** One field renamed when the new name is free. */
function renamed(object: Json, from: string, to: string): Json {
  if (!(from in object) || to in object) return object;
  const { [from]: value, ...rest } = object;
  return { ...rest, [to]: value };
}

function normalizeServer(server: unknown): unknown {
  if (!isRecord(server)) return server;
  let next = renamed(renamed(server, "type", "transport"), "requestTimeoutMs", "timeout");
  if (typeof next.cache === "number") next = { ...next, cache: { ttlMs: next.cache } };
  return next;
}

function normalizeQueue(queue: unknown): unknown {
  return isRecord(queue) ? renamed(queue, "concurrent", "concurrency") : queue;
}

/** An agent config with the orchestrator's forms rewritten; anything else is returned as it is. */
export function normalizeAgentConfig(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  let config = liftCatalogueToolSettings(raw);
  if (isRecord(config.mcpServers) && !("mcp" in config)) {
    const { mcpServers, ...rest } = config;
    config = { ...rest, mcp: { servers: Object.entries(mcpServers).map(([name, server]) => (isRecord(server) ? { name, ...server } : server)) } };
  }
  if (isRecord(config.mcp) && Array.isArray(config.mcp.servers)) {
    config = { ...config, mcp: { ...config.mcp, servers: config.mcp.servers.map(normalizeServer) } };
  }
  if (isRecord(config.queues)) {
    config = { ...config, queues: Object.fromEntries(Object.entries(config.queues).map(([name, queue]) => [name, normalizeQueue(queue)])) };
  }
  return config;
}
