/**
 * The part of a call between the card and the tool: the response cache
 * (an `ok` answer for the same tool and arguments within `cache.ttlMs` is
 * given again without running the tool), the tool's named queue, the run
 * itself (a throw becomes an `internal` failure), and the output limit (a
 * result over `toolResponseMaxBytes` is stored whole behind a handle). What
 * happened is noted on the outcome's `meta`.
 */
import type { ToolContext } from "../tool-context";
import { limitOutput } from "./limit-output";
import type { InlineCall, ResolvedTool } from "./resolved-tool";
import { ResponseCache } from "./response-cache";
import { failed, type ToolOutcome, withMeta } from "./tool-outcome";

export async function runWithPolicy(context: ToolContext, resolved: ResolvedTool, call: InlineCall): Promise<ToolOutcome> {
  const { policy = {} } = resolved;
  const runtime = context.toolRuntime;
  const cacheKey = policy.cache ? ResponseCache.key(resolved.name, call.args) : undefined;
  if (cacheKey) {
    const hit = runtime.cache.get(cacheKey);
    if (hit) return withMeta(hit, { provider: resolved.provider, cacheHit: true, queuedMs: 0 });
  }

  let release: (() => void) | undefined;
  let queuedMs = 0;
  const queue = policy.queue ? context.config.queues?.[policy.queue] : undefined;
  if (policy.queue && queue) {
    const waitingFor = runtime.queues.state(policy.queue);
    if (waitingFor.running >= queue.concurrency || waitingFor.waiting > 0) {
      context.publish("tool.queued", { runId: context.runId, toolCallId: call.toolCallId, toolName: resolved.name, queue: policy.queue, ahead: waitingFor.running + waitingFor.waiting });
    }
    const start = Date.now();
    try {
      release = await runtime.queues.acquire(policy.queue, queue, call.abortSignal);
    } catch {
      return failed(`Tool "${resolved.name}" was cancelled while waiting in queue "${policy.queue}"`, "timeout");
    }
    queuedMs = Date.now() - start;
  }

  try {
    let outcome: ToolOutcome;
    try {
      outcome = await resolved.run(context, call);
    } catch (error) {
      console.error("tool failed", resolved.name, call.toolCallId, error);
      outcome = failed(`Tool "${resolved.name}" failed unexpectedly; the gateway logged the cause`, "internal");
    }
    outcome = await limitOutput(context, call, outcome);
    if (cacheKey && policy.cache && outcome.type === "ok") runtime.cache.set(cacheKey, outcome, policy.cache.ttlMs);
    return withMeta(outcome, { provider: resolved.provider, cacheHit: false, queuedMs });
  } finally {
    release?.();
  }
}
