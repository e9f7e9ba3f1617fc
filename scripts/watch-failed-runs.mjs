/**
 * Prints every failed agent run in the `npm run dev` console, as it happens,
 * with its error: the place a developer is looking when a real model has no
 * key. Follows each agent's own stream (found with `GET /api/agents`, checked
 * again every few seconds for new agents) through the client SDK.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Starts watching; returns a function that stops. */
export async function watchFailedRuns({ baseUrl, secretKey, log, isRunning = () => true, pollMs = 10_000 }) {
  const sdkPath = join(root, "client", "dist", "index.js");
  if (!existsSync(sdkPath)) {
    log("[dev] client/dist is missing (run `npm run build`): failed runs will not be printed here.");
    return () => undefined;
  }
  const { Switchboard } = await import(pathToFileURL(sdkPath).href);
  const client = new Switchboard({ baseUrl, secretKey, WebSocket: null });
  const since = new Date().toISOString();
  const watched = new Map();
  const printed = new Set();
  let stopped = false;

  function follow(agent) {
    // afterSeq 0: what the agent did since its object started, so nothing
    // between its creation and this subscription is missed; older failures
    // (before this dev server started) are skipped by time.
    const subscription = client.subscribeAgent(agent.id, { afterSeq: 0, reconnect: { maxDelayMs: 5_000 } });
    subscription.on("event", (event) => {
      if (event.type !== "agent.cycle.finished" || event.data.status !== "failed" || event.at < since || printed.has(event.data.runId)) return;
      printed.add(event.data.runId);
      log(`[dev] ✗ ${agent.name} (${agent.id}): run ${event.data.runId} failed: ${event.data.error ?? "no error message"}\n      details: npx switchboard runs ${agent.id}`);
    });
    subscription.done.catch(() => watched.delete(agent.id)); // deleted agent: forget it
    watched.set(agent.id, subscription);
  }

  async function discover() {
    if (stopped || !isRunning()) return;
    try {
      for await (const agent of client.agents.all()) if (!watched.has(agent.id)) follow(agent);
    } catch {
      // the server is restarting; try again at the next tick
    }
  }

  await discover();
  const timer = setInterval(discover, pollMs);
  timer.unref?.();
  return () => {
    stopped = true;
    clearInterval(timer);
    for (const subscription of watched.values()) subscription.close();
    watched.clear();
  };
}
