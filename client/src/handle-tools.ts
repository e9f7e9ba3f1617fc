/**
 * Answering external tool calls by code (automatic tool handlers):
 * a map of tool name → async function. Each call runs once (deliveries and
 * replays are deduplicated by `toolCallId`), within a timeout; what the
 * function returns is posted as the result, and a throw or a timeout is
 * posted as the call's `error` (the route's field for a failed call): the
 * card shows an error, the run records a failed call, and the model reads a
 * tool error.
 */
import type { PendingToolCall } from "./types.js";
import type { SwitchboardError } from "./switchboard-error.js";

/** What a handler gets besides the arguments. */
export type ToolCallContext = PendingToolCall & {
  agentId: string;
  /** Aborted when the handler's time is up or the handling is closed. */
  signal: AbortSignal;
};

/** A tool call's arguments: a JSON object the gateway checked against the tool's input schema. */
export type ToolArgs = Record<string, unknown>;

/**
 * A handler: `(args, call) => result`. Left unannotated, `args` is a
 * `ToolArgs`; annotate it with the shape your tool's input schema promises
 * (`({ orderId }: { orderId: string }) => …`) and the handler is still
 * accepted: it is declared as a method, whose parameters TypeScript
 * compares both ways.
 */
export type ToolHandler = { handle(args: ToolArgs, call: ToolCallContext): unknown }["handle"];
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

/** What a handled call is answered with: its result, or the error message of a handler that failed. */
export type ToolAnswer = { result: unknown } | { error: string };

type Submit = (runId: string, callId: string, answer: ToolAnswer) => Promise<unknown>;

/** The route takes 1–10,000 characters of error message. */
const maxErrorChars = 10_000;

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
        Promise.resolve().then(() => handler(toolArgs(call.args), { ...call, agentId, signal: abort.signal })),
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
      const message = error instanceof Error ? error.message : String(error);
      result = { error: (message || `Handler for tool "${call.toolName}" failed`).slice(0, maxErrorChars) };
    } finally {
      clearTimeout(timer);
      this.#closing.signal.removeEventListener("abort", stopOnClose);
    }
    try {
      await this.submit(call.runId, call.toolCallId, failed ? (result as { error: string }) : { result });
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

/** A call's arguments as a handler gets them: the object the model sent (a call without arguments gets `{}`). */
function toolArgs(value: unknown): ToolArgs {
  return isToolArgs(value) ? value : {};
}

function isToolArgs(value: unknown): value is ToolArgs {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
