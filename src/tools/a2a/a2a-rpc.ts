/**
 * JSON-RPC 2.0 to a remote A2A 1.0 agent (`SendMessage`, `GetTask`): the
 * request through `a2a-request.ts`, the answer's envelope checked, its
 * error said with the remote's code and message.
 */
import { z } from "zod";
import type { A2aProviderConfig } from "../config/provider-config";
import { type A2aAnswer, requestA2a } from "./a2a-request";
import { RemoteTask, readTask, type TaskReading } from "./a2a-task";

/** The largest answer read from a remote agent. */
export const maxRpcAnswerBytes = 4 * 1024 * 1024;
/** A poll (`GetTask`) waits at most this long, or the provider's `timeout` when shorter. */
const pollTimeoutMs = 10_000;

const Envelope = z.union([
  z.object({ jsonrpc: z.literal("2.0"), result: z.unknown() }),
  z.object({ jsonrpc: z.literal("2.0"), error: z.object({ code: z.number(), message: z.string().max(2_000) }) }),
]);

/** `traceparent`: the span of the call the request is made for, when the agent traces (sent as the header). */
export type RpcCall = { endpoint: string; method: "SendMessage" | "GetTask"; id: string; params: unknown; timeoutMs: number; signal?: AbortSignal; traceparent?: string };

export async function a2aRpc(provider: A2aProviderConfig, env: Record<string, unknown>, call: RpcCall): Promise<A2aAnswer> {
  const answer = await requestA2a(provider, env, `${call.method} at ${call.endpoint}`, {
    url: call.endpoint,
    method: "POST",
    body: { jsonrpc: "2.0", id: call.id, method: call.method, params: call.params },
    maxBytes: maxRpcAnswerBytes,
    timeoutMs: call.timeoutMs,
    signal: call.signal,
    ...(call.traceparent !== undefined && { extraHeaders: { traceparent: call.traceparent } }),
  });
  if (!answer.ok) return answer;
  const envelope = Envelope.safeParse(answer.value);
  if (!envelope.success) return { ok: false, error: `${call.method} at ${call.endpoint} did not answer JSON-RPC 2.0`, kind: "upstream" };
  if ("error" in envelope.data) {
    const { code, message } = envelope.data.error;
    return { ok: false, error: `${call.method} was refused by the remote agent: ${message} (JSON-RPC error ${code})`, kind: "upstream" };
  }
  return { ok: true, value: envelope.data.result };
}

/** What a remote task is now (`GetTask`), or why it could not be read. */
export async function readRemoteTask(
  provider: A2aProviderConfig,
  env: Record<string, unknown>,
  task: { endpoint: string; remoteTaskId: string; toolCallId: string; traceparent?: string },
  where: string,
  signal?: AbortSignal,
): Promise<TaskReading | { error: string }> {
  const answer = await a2aRpc(provider, env, {
    endpoint: task.endpoint,
    method: "GetTask",
    id: `${task.toolCallId}:get`,
    params: { id: task.remoteTaskId, historyLength: 0 },
    timeoutMs: Math.min(pollTimeoutMs, provider.timeout ?? pollTimeoutMs),
    signal,
    ...(task.traceparent !== undefined && { traceparent: task.traceparent }),
  });
  if (!answer.ok) return { error: answer.error };
  const parsed = RemoteTask.safeParse(answer.value);
  if (!parsed.success) return { error: `GetTask at ${task.endpoint} did not answer a task` };
  return readTask(parsed.data, where);
}
