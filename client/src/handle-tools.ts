/**
 * Answering external tool calls by code (seed 004's "auto tool handlers"):
 * a map of tool name → async function. Each call runs once (deliveries and
 * replays are deduplicated by `toolCallId`), within a timeout; what the
 * function returns is posted as the result, and a throw or a timeout becomes
 * `{"error": "…"}`, which the model reads as a failed tool.
 */
import type { PendingToolCall } from "./types";
import type { SwitchboardError } from "./switchboard-error";

/** What a handler gets besides the arguments. */
export type ToolCallContext = PendingToolCall & {
  agentId: string;
  /** Aborted when the handler's time is up or the handling is closed. */
  signal: AbortSignal;
};

export type ToolHandler = (args: any, call: ToolCallContext) => unknown | Promise<unknown>;
export type ToolHandlers = Record<string, ToolHandler>;

export type ToolOutcome =
  | { toolCallId: string; toolName: string; outcome: "answered"; result: unknown }
  | { toolCallId: string; toolName: string; outcome: "handler_failed"; result: { error: string } }
  | { toolCallId: string; toolName: string; outcome: "submit_failed"; error: SwitchboardError };

export type ToolRunnerOptions = {
  /** How long a handler may take before its call is answered with a timeout error. Default 30 s. */
  timeoutMs?: number;
  /** Told about every call handled (for logs and tests). */
  onOutcome?: (outcome: ToolOutcome) => void;
};

type Submit = (runId: string, callId: string, result: unknown) => Promise<unknown>;

/** Runs handlers for calls and submits their results; knows which calls it has already taken. */
export class ToolRunner {
  #taken = new Set<string>();
  #closing = new AbortController();
  #inFlight = new Set<Promise<void>>();

  constructor(
    private readonly handlers: ToolHandlers,
    private readonly submit: Submit,
    private readonly options: ToolRunnerOptions = {},
  ) {}

  /** Handles a call unless it was taken before or no handler matches; resolves when its result is posted. */
  run(call: PendingToolCall, agentId: string): Promise<void> {
    const handler = this.handlers[call.toolName];
    if (!handler || this.#taken.has(call.toolCallId) || this.#closing.signal.aborted) return Promise.resolve();
    this.#taken.add(call.toolCallId);
    const work = this.#handle(handler, call, agentId).finally(() => this.#inFlight.delete(work));
    this.#inFlight.add(work);
    return work;
  }

  /** Stops taking calls and aborts running handlers; resolves when in-flight results are posted. */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.allSettled([...this.#inFlight]);
  }

  async #handle(handler: ToolHandler, call: PendingToolCall, agentId: string): Promise<void> {
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    const abort = new AbortController();
    const stopOnClose = () => abort.abort(new Error("Tool handling was closed"));
    this.#closing.signal.addEventListener("abort", stopOnClose);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let result: unknown;
    let failed = false;
    try {
      result = await Promise.race([
        Promise.resolve().then(() => handler(call.args, { ...call, agentId, signal: abort.signal })),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const error = new Error(`Handler for tool "${call.toolName}" timed out after ${timeoutMs}ms`);
            abort.abort(error);
            reject(error);
          }, timeoutMs);
        }),
      ]);
      if (result === undefined) result = null;
    } catch (error) {
      failed = true;
      result = { error: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
      this.#closing.signal.removeEventListener("abort", stopOnClose);
    }
    try {
      await this.submit(call.runId, call.toolCallId, result);
      this.options.onOutcome?.(
        failed
          ? { toolCallId: call.toolCallId, toolName: call.toolName, outcome: "handler_failed", result: result as { error: string } }
          : { toolCallId: call.toolCallId, toolName: call.toolName, outcome: "answered", result },
      );
    } catch (error) {
      this.options.onOutcome?.({ toolCallId: call.toolCallId, toolName: call.toolName, outcome: "submit_failed", error: error as SwitchboardError });
    }
  }
}
