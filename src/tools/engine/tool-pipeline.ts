/**
 * The one way a tool call runs. Every call of a cycle comes through `run`:
 * the model's calls of every tool (built-ins and `read_output` as AI SDK
 * tools; the agent's configured tools, MCP, OpenAPI and sub-agent tools as
 * engine tools), a call a restart cut short and the cycle does again
 * (`continue-step.ts`), and the calls `batch` makes. Ten stages, met in this
 * order (journal and events act at more than one point):
 *
 *   1. journal     the call is recorded before anything else; a call the journal
 *                  finished returns its recorded outcome; an approved call
 *                  dispatched before a restart is never run again. (Ahead of the
 *                  gate: an approval is found again by the call's id and keeps the
 *                  deadline its recorded start gave it.)
 *   2. gate        a person's approval; a denial ends the call (no card, no
 *                  validation, no run, not counted).
 *   3. events      where the call shows: the "not in a space" error, `tool.started`.
 *   4. validate    the depth limit, then the tool's schema.
 *   5. events      the card is posted.
 *   6. cache       an `ok` answer kept for the same arguments is given again (7, 8 skipped).
 *   7. queue       a slot in the tool's named queue.
 *   8. run         the tool (an approved call is journaled as dispatched first).
 *                  A throw anywhere in 2–8 becomes an `internal` failure, here only.
 *   9. limit       the output limit and its handle, once.
 *  10. budget      the step's context budget.
 *  11. statistics  every call past the gate, with the provider and bytes in.
 *  12. events      the card settles: `tool.done` / `tool.error`.
 *  13. journal     the outcome is recorded (the first one stands) and returned.
 *
 * Where a stage does not apply it says so at its top: a call `batch` makes
 * is not journaled (the batch call is) and is refused at the gate; built-ins
 * have no card, no cache and no queue. The helpers each stage calls live in
 * their own files (run-approval, decide-display, tool-events and
 * streamed-cards, json's depth limit, validate-tool-arguments,
 * response-cache, tool-queues, limit-output, context-budget, and the agent
 * object's statistics through `ToolRuntime.recordCall`); the journal is the
 * agent object's (`PipelineJournal`). Nothing is thrown at the SDK; the
 * model sees outcomes through one mapping (`toModelOutput`).
 */
import { asSchema, dynamicTool, jsonSchema, type ModelMessage, type Tool, type ToolExecutionOptions, type ToolSet } from "ai";
import { byteLength, checkJsonDepth } from "../../json";
import type { MessagePart } from "../../protocol/message";
import { stripTargetSpaceId, withTargetSpaceId } from "./display-tool-schema";
import type { ToolContext, ToolListing } from "./tool-context";
import type { ToolStreamObserver } from "./tool-stream-observer";
import type { ApprovalConfig } from "../config/wait-policy-config";
import { builtinAliases } from "../config/builtin-tool-names";
import type { ToolCategory } from "../config/tool-categories";
import { formatArgumentError, validateToolArguments } from "./validate-tool-arguments";
import { answeredByOnCard } from "./answered-by-on-card";
import { messageIdForCall } from "./call-ids";
import { ContextBudget } from "./context-budget";
import { decideDisplay, hiddenFromPublic } from "./decide-display";
import { limitOutput, modelBytes } from "./limit-output";
import type { InlineCall, ResolvedTool } from "./resolved-tool";
import { ResponseCache } from "./response-cache";
import { needsApproval, requestApproval } from "./run-approval";
import { StreamedCards } from "./streamed-cards";
import { cardPart, settleCard, type ToolCard, toolFinished, toolProgress, toolStarted } from "./tool-events";
import { failed, isToolOutcome, outcomeError, outcomeFailureKind, outcomeStatus, succeeded, toModelOutput, type ToolOutcome, withMeta } from "./tool-outcome";
import { executeToolSpan, waitSpan } from "../../telemetry/gen-ai-spans";
import { noopSpan, type Span, traceHeader } from "../../telemetry/tracer";

/** What a built-in is told of its call, as the AI SDK's tool context: the call span's `traceparent`, for the requests it makes (absent when the agent does not trace). */
export type BuiltinCallContext = { traceparent?: string };

/**
 * A tool of the cycle: an engine tool (any provider's `ResolvedTool`) or an AI SDK tool used as it is (the built-ins).
 * `aliasOf`: the tool's own name, when it is offered under an alias (its approval follows it); `category`: the catalogue's.
 */
export type PipelineTool = ({ kind: "engine"; resolved: ResolvedTool } | { kind: "raw"; name: string; provider: string; tool: Tool }) & {
  aliasOf?: string;
  category?: ToolCategory;
};

/** The cycle's journal, as the pipeline uses it (the agent object's `CycleJournal`). */
export type PipelineJournal = {
  call(toolCallId: string): { outcome: ToolOutcome | undefined; dispatched: boolean } | undefined;
  callStarted(call: { toolCallId: string; modelToolCallId: string; runId: string; step: number; toolName: string; input: unknown; startedAt: number }): boolean;
  callFinished(toolCallId: string, outcome: ToolOutcome): ToolOutcome;
  markDispatched(toolCallId: string): void;
};

export type PipelineCall = {
  toolName: string;
  modelToolCallId: string;
  input: unknown;
  abortSignal?: AbortSignal;
  /** What the model saw, handed to a built-in as the SDK hands it. */
  messages?: ModelMessage[];
  /** A call `batch` makes: its gateway id, derived from the batch call's. */
  batchedAs?: string;
};

/** What the model is told of an approved call cut off after it was handed to its tool (the object restarted, or the run's attempt ended). */
export function interruptedAfterApproval(name: string, toolCallId: string): ToolOutcome {
  return failed(
    `The approved call to "${name}" was interrupted after it started (the agent restarted or its attempt ended; idempotency-key ${toolCallId}). ` +
      "It was not run again, so it ran at most once; it may or may not have taken effect. Check before calling it again.",
  );
}

/** Why a call's arguments were refused: the problem, and what the model is told. */
type Refusal = { detail: string; message: string };

type Entry = { name: string; provider: string; offered: Tool; aliasOf?: string; category?: ToolCategory } & (
  | { kind: "engine"; resolved: ResolvedTool }
  | { kind: "raw"; execute: NonNullable<Tool["execute"]> }
);

/** One call on its way through the stages. */
type Call = {
  tool: Entry;
  toolName: string;
  toolCallId: string;
  modelToolCallId: string;
  /** The arguments after the gate (a person may have edited them). */
  input: unknown;
  /** What the tool gets: without `targetSpaceId`, as its schema parsed them. */
  args: unknown;
  abortSignal?: AbortSignal;
  messages: ModelMessage[];
  batched: boolean;
  approved: boolean;
  edited: boolean;
  /** Set once past the gate: statistics count the call from here. */
  countedFrom?: number;
  /** The card the model's stream opened, the one the call shows on, and where it was posted. */
  streamed?: ToolCard;
  card?: ToolCard;
  placed?: ToolCard & { messageId: string };
  cardParts: MessagePart[];
  /** Set by the cache and queue stage (engine tools that got that far). */
  policy?: { cacheHit: boolean; queuedMs: number };
  keep?: { key: string; ttlMs: number };
  /** The call's span (`execute_tool`): waits are its children, its `traceparent` goes out with the call. */
  span: Span;
};

export class ToolPipeline {
  readonly #context: ToolContext;
  readonly #journal: PipelineJournal;
  readonly #tools = new Map<string, Entry>();
  readonly #budget: ContextBudget;
  readonly #cards: StreamedCards;

  constructor(context: ToolContext, tools: PipelineTool[], journal: PipelineJournal) {
    this.#context = context;
    this.#journal = journal;
    this.#budget = ContextBudget.of(context.config.limits);
    const toModel = ({ output }: { output: unknown }) => toModelOutput(isToolOutcome(output) ? output : succeeded(output));
    const execute = (toolName: string) => (input: unknown, options: ToolExecutionOptions<unknown>) =>
      this.run({ toolName, modelToolCallId: options.toolCallId, input, abortSignal: options.abortSignal, messages: options.messages });
    for (const tool of tools) {
      if (tool.kind === "engine") {
        const { resolved } = tool;
        const modelSchema = resolved.display.displayTool ? withTargetSpaceId(resolved.inputSchema) : resolved.inputSchema;
        const offered = dynamicTool({ description: resolved.description, inputSchema: jsonSchema(modelSchema), execute: execute(resolved.name), toModelOutput: toModel });
        this.#tools.set(resolved.name, { kind: "engine", name: resolved.name, provider: resolved.provider, resolved, offered, aliasOf: tool.aliasOf, category: tool.category });
      } else if (tool.tool.execute) {
        const offered: Tool = { ...tool.tool, execute: execute(tool.name), toModelOutput: toModel };
        this.#tools.set(tool.name, { kind: "raw", name: tool.name, provider: tool.provider, execute: tool.tool.execute, offered, aliasOf: tool.aliasOf, category: tool.category });
      }
    }
    const engineTools = new Map(tools.flatMap((tool) => (tool.kind === "engine" ? [[tool.resolved.name, tool.resolved] as const] : [])));
    this.#cards = new StreamedCards(context, engineTools);
  }

  /** The tools as the model is offered them; each call goes through `run`. */
  modelTools(): ToolSet {
    return Object.fromEntries([...this.#tools.values()].map((entry) => [entry.name, entry.offered]));
  }

  /** The tools offered, by name, with their category and description (`list_by_category`). */
  listing(): ToolListing[] {
    return [...this.#tools.values()].map((entry) => ({
      name: entry.name,
      category: entry.category ?? "custom",
      description: typeof entry.offered.description === "string" ? entry.offered.description : "",
    }));
  }

  /** Shows engine tools' calls in their space while the model writes them. */
  get observer(): ToolStreamObserver {
    return this.#cards.observer;
  }

  /** Runs one call through the stages. Whatever goes wrong with the call is its outcome, never a throw. */
  async run(request: PipelineCall): Promise<ToolOutcome> {
    const context = this.#context;
    const batched = request.batchedAs !== undefined;
    const toolCallId = request.batchedAs === undefined ? context.callIds.idFor(request.modelToolCallId) : context.callIds.derive(request.modelToolCallId, request.batchedAs);
    // A call batch makes never streams: nothing waits for the rest of its input.
    if (batched) context.markInputSettled(request.modelToolCallId);

    // 1. journal. Not for a call batch makes: the batch call is journaled, and does its calls again under the same ids.
    if (!batched) {
      // Recorded first (one statement); only a call the journal already held (done again after a restart) is looked up.
      const started = this.#journal.callStarted({
        toolCallId,
        modelToolCallId: request.modelToolCallId,
        runId: context.runId,
        step: context.stepNumber(),
        toolName: request.toolName,
        input: request.input,
        startedAt: Date.now(),
      });
      const known = started ? undefined : this.#journal.call(toolCallId);
      if (known?.outcome) return known.outcome;
      if (known?.dispatched) return this.#journal.callFinished(toolCallId, interruptedAfterApproval(request.toolName, toolCallId));
    }
    const tool = this.#tools.get(request.toolName);
    const span = this.#startSpan(request.toolName, toolCallId, tool);
    const outcome = tool
      ? await this.#stages({
          tool,
          toolName: tool.name,
          toolCallId,
          modelToolCallId: request.modelToolCallId,
          input: request.input,
          args: request.input,
          abortSignal: request.abortSignal,
          messages: request.messages ?? [],
          batched,
          approved: false,
          edited: false,
          cardParts: [],
          span,
        })
      : failed(batched ? `You have no tool named "${request.toolName}"` : `Tool "${request.toolName}" is no longer available`);
    endSpan(span, outcome);
    // 13. journal: the first outcome recorded stands, and is what the call returns.
    return batched ? outcome : this.#journal.callFinished(toolCallId, outcome);
  }

  async #stages(call: Call): Promise<ToolOutcome> {
    let outcome: ToolOutcome;
    try {
      outcome = await this.#upToRun(call);
    } catch (error) {
      // The one catch-all: whatever threw in stages 2–8 (the tool, a space or D1 on the way) is a failure the model sees.
      console.error("tool threw", call.toolName, call.toolCallId, error);
      outcome = failed(`Tool "${call.toolName}" failed unexpectedly; the gateway logged the cause`, "internal");
    }
    // Ended at the gate (denied, refused inside batch, or the approval could not be asked): nothing below applies.
    if (call.countedFrom === undefined) return outcome;
    if (call.policy) outcome = withMeta(outcome, { provider: call.tool.provider, ...call.policy });

    // 9. limit: a result over toolResponseMaxBytes is stored whole behind a handle (a cached answer was limited before it was kept).
    outcome = await limitOutput(this.#context, call, outcome);
    if (call.keep && outcome.type === "ok") this.#context.toolRuntime.kept.cache.set(call.keep.key, outcome, call.keep.ttlMs);
    // The card shows the result as the limit left it; the budget below only shortens what the model sees.
    const shown = outcome;
    // 10. budget
    outcome = await this.#budget.apply(this.#context, call, outcome);
    // 11. statistics
    outcome = this.#count(call, outcome, call.countedFrom);
    // 12. events
    await this.#settleCard(call, shown);
    return outcome;
  }

  /**
   * Stages 2–8. None of them waits when it has nothing to do: a built-in is
   * handed its call in the same turn the SDK hands it over, so built-ins take
   * their place in the step's call order as the model made the calls (an
   * `enter_space` takes effect before a later call decides where it shows).
   */
  async #upToRun(call: Call): Promise<ToolOutcome> {
    // 2. gate
    const approval = this.#approvalOf(call);
    if (approval) {
      const gated = await this.#gate(call, approval);
      if (gated) return gated;
    }
    call.countedFrom = Date.now();
    // 3. events
    if (call.tool.kind === "engine") {
      const hidden = await this.#show(call, call.tool.resolved);
      if (hidden) return hidden;
    }
    // 4. validate
    let refused = this.#argumentProblem(call);
    if (!refused && call.tool.kind === "raw" && (call.batched || call.edited)) refused = await this.#parseBuiltinArguments(call);
    if (refused) {
      const error = call.edited ? `Tool "${call.toolName}" was approved with arguments it refuses: ${refused.detail}` : refused.message;
      await this.#failCard(call, call.card, error);
      return failed(error, "validation");
    }
    // 5. events
    if (call.tool.kind === "engine" && call.card) await this.#postCard(call, call.tool.resolved, call.card);
    // 6.–8.
    return this.#cachedOrRun(call);
  }

  #approvalOf(call: Call): ApprovalConfig | undefined {
    const { config } = this.#context;
    // A call by an alias (the config's, or a built-in's such as memory_write) is gated as the tool it names.
    const own = call.tool.aliasOf ?? call.toolName;
    const names = [call.toolName, own, builtinAliases[own]].filter((name): name is string => name !== undefined);
    const approval = config.tools.find((tool) => tool.name === own)?.approval ?? names.map((name) => config.approvals?.[name]).find((found) => found !== undefined);
    return needsApproval(approval, call.input) ? approval : undefined;
  }

  /** 2. gate: undefined when the call goes on (with the approved arguments), else the outcome that ends it. */
  async #gate(call: Call, approval: ApprovalConfig): Promise<ToolOutcome | undefined> {
    // Nobody would see an approval asked from inside batch: such a call must be the model's own.
    if (call.batched) return failed(`${call.toolName} needs a person's approval: call it yourself, not inside batch`);
    const display = call.tool.kind === "engine" ? call.tool.resolved.display : undefined;
    // The schema edited arguments are held to when the approval is answered, whichever provider made the tool.
    const argsSchema = (await asSchema(call.tool.offered.inputSchema).jsonSchema) as Record<string, unknown>;
    const wait = call.span.child(...spanArguments(waitSpan("approval", call.toolCallId)));
    const decision = await requestApproval(this.#context, {
      toolCallId: call.toolCallId,
      modelToolCallId: call.modelToolCallId,
      toolName: call.toolName,
      args: call.input,
      approval,
      abortSignal: call.abortSignal,
      // A minimal (or hidden, or prebuilt) tool's approval card keeps its arguments from public-key clients.
      minimal: display !== undefined && hiddenFromPublic(display),
      // Posted with the role the tool's own card takes.
      ...(display?.display?.messageRole === "assistant" && { role: "assistant" as const }),
      argsSchema,
    }).finally(() => wait.end());
    wait.setAttributes({ "switchboard.wait.answer": decision.approved ? "approved" : "denied" });
    if (!decision.approved) return failed(decision.message);
    call.input = decision.args;
    call.args = decision.args;
    call.approved = true;
    call.edited = decision.edited;
    return undefined;
  }

  /**
   * 3. events: where an engine tool's call shows, and `tool.started` there.
   * Built-ins have no card (those that show, show themselves: send_message, task_status).
   */
  async #show(call: Call, resolved: ResolvedTool): Promise<ToolOutcome | undefined> {
    const context = this.#context;
    const { display } = resolved;
    // Streamed events of this call reach the space before anything below.
    await context.inputSettled(call.modelToolCallId);
    const { args, targetSpaceId } = display.displayTool ? stripTargetSpaceId(call.input) : { args: call.input, targetSpaceId: undefined };
    call.args = args;
    call.streamed = this.#cards.trackOf(call.modelToolCallId).card;
    const decision = await decideDisplay(display, context, targetSpaceId);
    if (!decision.ok) {
      await this.#failCard(call, call.streamed, decision.error);
      return failed(decision.error, "permission");
    }
    call.card = decision.card;
    if (call.card && call.streamed?.spaceId !== call.card.spaceId) {
      toolStarted(context.spaceEvents, call.card, { toolCallId: call.toolCallId, toolName: call.toolName, agentEntityId: context.agent.entityId, runId: context.runId });
    }
    return undefined;
  }

  /** 4. validate: arguments nested past the depth limit, or that an engine tool's schema refuses, never reach the tool. */
  #argumentProblem(call: Call): Refusal | undefined {
    const depth = checkJsonDepth(call.args);
    if (!depth.ok) return { detail: depth.message, message: `Invalid arguments for tool "${call.toolName}": ${depth.message}` };
    if (call.tool.kind !== "engine") return undefined;
    const checked = validateToolArguments(call.tool.resolved.inputSchema, call.args);
    return checked.ok ? undefined : { detail: checked.problems.join("; "), message: formatArgumentError(call.toolName, checked.problems) };
  }

  /**
   * 4. validate, a built-in's own schema: the SDK checked the model's arguments
   * against it before it called (and a call done again after a restart has
   * those); a call batch makes and arguments a person edited are checked here.
   * The tool gets them as the schema parsed them.
   */
  async #parseBuiltinArguments(call: Call): Promise<Refusal | undefined> {
    const checked = await asSchema(call.tool.offered.inputSchema).validate?.(call.args);
    if (!checked) return undefined;
    if (!checked.success) return { detail: checked.error.message, message: `Invalid arguments for tool "${call.toolName}": ${checked.error.message}` };
    call.args = checked.value;
    return undefined;
  }

  /** 5. events: the card of an engine tool's call that shows. Its id comes from the call: posting it again after a restart finds the same message. */
  async #postCard(call: Call, resolved: ResolvedTool, card: ToolCard): Promise<void> {
    const context = this.#context;
    const { pending } = resolved;
    const status = pending?.cardStatus ?? "running";
    const message = await context.spaceEvents.track(
      context.spaceEvents.ordered(card.spaceId).postMessage({
        id: messageIdForCall(call.toolCallId),
        entityId: context.agent.entityId,
        role: card.role ?? "tool",
        parts: [
          {
            ...cardPart(card, { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, runId: context.runId }, status),
            ...answeredByOnCard(pending?.answeredBy, context.initiatorEntityId),
          },
        ],
        status,
      }),
    );
    call.placed = { ...card, messageId: message.id };
    context.journal.markCard(call.toolCallId, card.spaceId, card.minimal);
  }

  /** 6.–8. cache, queue and run. Built-ins have neither cache nor queue. */
  async #cachedOrRun(call: Call): Promise<ToolOutcome> {
    if (call.tool.kind !== "engine") return this.#run(call);
    const context = this.#context;
    const runtime = context.toolRuntime;
    const { resolved } = call.tool;
    const { policy = {} } = resolved;
    // 6. cache
    if (policy.cache) {
      const key = ResponseCache.key(resolved.name, call.args);
      const hit = runtime.kept.cache.get(key);
      if (hit) {
        call.policy = { cacheHit: true, queuedMs: 0 };
        return hit;
      }
      call.keep = { key, ttlMs: policy.cache.ttlMs };
    }
    // 7. queue
    let release: (() => void) | undefined;
    let queuedMs = 0;
    const queue = policy.queue ? context.config.queues?.[policy.queue] : undefined;
    if (policy.queue && queue) {
      const waitingFor = runtime.kept.queues.state(policy.queue);
      if (waitingFor.running >= queue.concurrency || waitingFor.waiting > 0) {
        context.publish("tool.queued", {
          runId: context.runId,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          queue: policy.queue,
          ahead: waitingFor.running + waitingFor.waiting,
        });
      }
      const start = Date.now();
      // A wait only when the queue is busy: a free slot is taken in the same turn.
      const wait =
        waitingFor.running >= queue.concurrency || waitingFor.waiting > 0
          ? call.span.child(...spanArguments(waitSpan("queue", call.toolCallId, { "switchboard.queue.name": policy.queue })))
          : noopSpan;
      try {
        release = await runtime.kept.queues.acquire(policy.queue, queue, call.abortSignal);
      } catch {
        wait.fail("cancelled");
        return failed(`Tool "${call.toolName}" was cancelled while waiting in queue "${policy.queue}"`, "timeout");
      } finally {
        wait.end();
      }
      queuedMs = Date.now() - start;
    }
    call.policy = { cacheHit: false, queuedMs };
    try {
      return await this.#run(call);
    } finally {
      release?.();
    }
  }

  /** 8. run */
  async #run(call: Call): Promise<ToolOutcome> {
    const context = this.#context;
    // Journaled before it runs: a restart from here on does not run an approved call a second time.
    if (call.approved && !call.batched) this.#journal.markDispatched(call.toolCallId);
    if (call.tool.kind === "engine") return call.tool.resolved.run(context, this.#inlineCall(call));
    // A built-in gets its call's trace as the SDK's tool context (`BuiltinCallContext`): the requests it makes carry it.
    const callContext: BuiltinCallContext = traceHeader(call.span);
    const value: unknown = await call.tool.execute(call.args, { toolCallId: call.modelToolCallId, messages: call.messages, abortSignal: call.abortSignal, context: callContext });
    return isToolOutcome(value) ? value : succeeded(value);
  }

  #inlineCall(call: Call): InlineCall {
    const context = this.#context;
    const { placed } = call;
    return {
      toolCallId: call.toolCallId,
      modelToolCallId: call.modelToolCallId,
      toolName: call.toolName,
      args: call.args,
      abortSignal: call.abortSignal,
      card: placed,
      addCardParts: (parts) => call.cardParts.push(...parts),
      span: call.span,
      progress: (update) => {
        context.publish("tool.progress", { runId: context.runId, toolCallId: call.toolCallId, toolName: call.toolName, ...update });
        if (placed) toolProgress(context.spaceEvents, placed, call.toolCallId, call.args, update);
      },
    };
  }

  /**
   * The call's span, under the run's: `function` for a built-in, `datastore`
   * for a stored output read back, `extension` for a provider's tool (the
   * agent's own, MCP, OpenAPI, sub-agents).
   */
  #startSpan(toolName: string, toolCallId: string, tool: Entry | undefined): Span {
    const type = tool?.kind === "engine" ? "extension" : toolName === "read_output" ? "datastore" : "function";
    const span = executeToolSpan({ name: toolName, callId: toolCallId, type, provider: tool?.provider ?? "unknown" });
    return (this.#context.trace ?? noopSpan).child(...spanArguments(span));
  }

  /** 11. statistics: the provider and the bytes in ride on the outcome; the agent object keeps the totals. */
  #count(call: Call, outcome: ToolOutcome, since: number): ToolOutcome {
    const bytesIn = byteLength(JSON.stringify(call.input ?? null));
    const provider = outcome.meta?.provider ?? call.tool.provider;
    const counted = withMeta(outcome, { provider, bytesIn });
    this.#context.toolRuntime.kept.recordCall({
      toolName: call.toolName,
      provider,
      status: outcomeStatus(counted),
      failureKind: outcomeFailureKind(counted),
      latencyMs: Date.now() - since,
      bytesIn,
      bytesOut: counted.meta?.bytesOut ?? modelBytes(counted),
      cacheHit: counted.meta?.cacheHit ?? false,
      at: Date.now(),
    });
    return counted;
  }

  /** 12. events: the card completes or fails. A pending call's card belongs to the pending-call owner, which settles it when the result comes. */
  async #settleCard(call: Call, outcome: ToolOutcome): Promise<void> {
    const { placed } = call;
    if (call.tool.kind !== "engine" || !placed || call.tool.resolved.pending) return;
    const error = outcomeError(outcome);
    try {
      await settleCard(
        this.#context.spaceEvents.ordered(placed.spaceId),
        placed,
        { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args },
        error !== undefined ? { error } : { result: outcome.type === "ok" ? outcome.value : null },
        call.cardParts,
      );
    } catch (cardError) {
      // The call ran: its outcome goes to the model even if the card could not be updated.
      console.error("could not settle the tool card", call.toolCallId, cardError);
    }
  }

  /** A call that fails before it runs: the card that started gets `tool.error`. */
  async #failCard(call: Call, card: ToolCard | undefined, error: string): Promise<void> {
    if (card) await toolFinished(this.#context.spaceEvents.ordered(card.spaceId), card, { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args }, { error });
  }
}

function spanArguments(span: { name: string; attributes: Record<string, string | number | boolean | readonly string[]> }): [string, { attributes: typeof span.attributes }] {
  return [span.name, { attributes: span.attributes }];
}

/** The call's span ends with its outcome: a failure's kind as `error.type` (fixed words; the message stays out). */
function endSpan(span: Span, outcome: ToolOutcome): void {
  span.setAttributes({ "switchboard.tool.status": outcomeStatus(outcome) });
  const kind = outcomeFailureKind(outcome);
  if (kind !== undefined) span.fail(kind);
  span.end();
}
