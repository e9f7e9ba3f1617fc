/**
 * Warmup (config `warmup: true`): the agent's MCP servers are connected and
 * listed when the agent is created or its config is replaced, so its first
 * cycle finds the sessions open instead of opening them. At most
 * `mcpInitConcurrency` servers connect at a time (default 4): a config with
 * many servers does not open them all at once. Servers turned off
 * (`enabled: false`) and servers whose tools act as a person (they need that
 * person's token, known only in a run) are left to the cycle.
 */
import type { McpServerConfig } from "../config/mcp-server-config";
import type { McpPool } from "./mcp-pool";

export const defaultMcpInitConcurrency = 4;
export const maxMcpInitConcurrency = 16;

export type WarmupResult = { server: string; ok: true; tools: string[] } | { server: string; ok: false; error: string };

/** Connects and lists each server that may be warmed up, `concurrency` at a time; failures are results, not throws. */
export async function warmUpServers(
  pool: McpPool,
  servers: readonly McpServerConfig[],
  env: Record<string, unknown>,
  concurrency = defaultMcpInitConcurrency,
  onResult: (result: WarmupResult) => void = () => undefined,
): Promise<WarmupResult[]> {
  const waiting = servers.filter((server) => server.enabled !== false && server.auth === undefined);
  const results: WarmupResult[] = [];
  const worker = async () => {
    for (let server = waiting.shift(); server !== undefined; server = waiting.shift()) {
      let result: WarmupResult;
      try {
        const listing = await pool.listing(server, env);
        result = listing.ok ? { server: server.name, ok: true, tools: listing.tools.map((tool) => tool.name) } : { server: server.name, ok: false, error: listing.error };
      } catch (error) {
        result = { server: server.name, ok: false, error: error instanceof Error ? error.message : String(error) };
      }
      results.push(result);
      onResult(result);
    }
  };
  const workers = Math.max(1, Math.min(concurrency, waiting.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
