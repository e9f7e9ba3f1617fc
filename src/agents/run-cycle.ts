/**
 * One cycle of an agent: claim the inbox, open a run, think with the AI SDK
 * tool loop (`streamText`), report every step and tool call, save the
 * consciousness, close the run. A failure fails the run and schedules its
 * events for another attempt; it never throws.
 */
import { type ModelMessage, hasToolCall, isStepCount, streamText, type ToolSet } from "ai";
import { eq } from "drizzle-orm";
import { createDatabase, type Database, type StatementCounter } from "../db/client";
import type { AgentRecord } from "../db/agents";
import type { RunStep, RunToolCall, RunUsage } from "../db/runs";
import { runs } from "../db/schema";
import { listSpacesOfEntity } from "../db/spaces";
import type { AppEnv } from "../env";
import { createId } from "../ids";
import { createModel } from "../models/create-model";
import { SpaceEventBuffer } from "../spaces/space-event-buffer";
import { createBuiltinTools } from "../tools/builtins/create-builtin-tools";
import { createSendMessageStreamer } from "../tools/builtins/send-message-streamer";
import { createConfiguredTools } from "../tools/engine/configured-tools";
import { loadMcpTools, type McpTools } from "../tools/mcp/load-mcp-tools";
import { SerialQueue } from "../tools/serial-queue";
import { consumeCycleStream, emptyUsage, errorMessage } from "./cycle-stream";
import type { AgentStorage } from "./agent-storage";
import { compactToolResults, trimConsciousness } from "./consciousness";
import type { CycleContext, ToolRuntime } from "./cycle-context";
import { DeferredMap } from "./deferred-map";
import type { QueuedEvent } from "./inbox-event";
import type { Goal } from "./knowledge/goals";
import type { KnowledgeContext, PlanSchedule } from "./knowledge/knowledge-context";
import type { Memory } from "./knowledge/memories";
import type { Plan } from "./knowledge/plans";
import { buildSystemPrompt, inboxMessage } from "./system-prompt";
import type { ToolStreamObserver } from "./tool-stream-observer";

export const maxEventAttempts = 3;
const retryBackoffMs = (attempt: number) => Math.min(60_000, 1_000 * 2 ** (attempt - 1));
const inputSettleTimeoutMs = 10_000;

export type Knowledge = { goals: Goal[]; memories: Memory[]; plans: Plan[] };

/** What the agent object lends a cycle. */
export type CycleHost = {
  env: AppEnv;
  storage: AgentStorage;
  agent: AgentRecord;
  loadKnowledge(knowledge: KnowledgeContext): Promise<Knowledge>;
  /** The spaces the agent belongs to (cached by the agent object, refreshed on membership changes). */
  loadSpaces(database: Database): Promise<{ id: string; name: string }[]>;
  invalidateKnowledge(): void;
  plansChanged(changed: PlanSchedule[], deletedIds: string[]): void;
  publish(type: string, data: Record<string, unknown>): void;
  toolRuntime: ToolRuntime;
};

export type CycleOutcome = { runId: string; status: "completed" | "failed"; error?: string };


export async function runCycle(host: CycleHost): Promise<CycleOutcome | undefined> {
  const { env, storage, agent } = host;
  const runId = createId("run");
  const events = storage.claim(runId);
  if (events.length === 0) return undefined;
  storage.set("active_run", { runId, startedAt: new Date().toISOString() });

  const counter: StatementCounter = { count: 0 };
  const database = createDatabase(env.DB, counter);
  const identity = { agentId: agent.id, entityId: agent.entityId, name: agent.name };
  const spaceEvents = new SpaceEventBuffer(env);
  const usage = emptyUsage();
  const steps: RunStep[] = [];
  const toolCalls = new Map<string, RunToolCall>();
  const trigger = events.map((queued) => ({ id: queued.id, receivedAt: queued.receivedAt, attempt: queued.attempts + 1, ...queued.event }));
  let spaceIds: string[] = [];
  let mcp: McpTools | undefined;
  let runInserted: Promise<void> = Promise.resolve();

  try {
    // The run row is written while the cycle starts thinking; it is awaited before the run closes.
    runInserted = database
      .insert(runs)
      .values({ id: runId, agentId: agent.id, agentEntityId: agent.entityId, status: "running", trigger })
      .then(() => undefined);
    const spaces = await host.loadSpaces(database);
    spaceIds = spaces.map((space) => space.id);
    host.publish("agent.cycle.started", { runId, trigger });
    for (const spaceId of spaceIds) {
      spaceEvents.push(spaceId, { type: "agent.cycle.started", data: { agentEntityId: agent.entityId, runId } });
    }

    const knowledge: KnowledgeContext = { database, agentId: agent.id, plansChanged: host.plansChanged };
    const known = await host.loadKnowledge(knowledge);
    const now = new Date();
    let activeSpaceId = storage.get<string>("active_space_id");
    if (activeSpaceId && !spaceIds.includes(activeSpaceId)) activeSpaceId = undefined;

    const settled = new DeferredMap();
    const context: CycleContext = {
      env,
      database,
      agent: identity,
      config: agent.config,
      runId,
      knowledge,
      spaces: new Map(spaces.map((space) => [space.id, space.name])),
      getActiveSpaceId: () => activeSpaceId,
      setActiveSpaceId: (spaceId) => {
        activeSpaceId = spaceId;
        if (spaceId) storage.set("active_space_id", spaceId);
        else storage.delete("active_space_id");
      },
      spaceEvents,
      publish: host.publish,
      streamIds: new Map(),
      // Membership as of the cycle's start; a space joined since is checked in D1.
      // (A removal takes effect from the next cycle.)
      isMemberOf: async (spaceId) => {
        if (context.spaces.has(spaceId)) return true;
        const spaceList = await listSpacesOfEntity(database, agent.entityId);
        for (const space of spaceList) context.spaces.set(space.id, space.name);
        return context.spaces.has(spaceId);
      },
      knowledgeChanged: host.invalidateKnowledge,
      inputSettled: (toolCallId) => settled.wait(toolCallId, inputSettleTimeoutMs),
      toolRuntime: host.toolRuntime,
    };

    const builtinQueue = new SerialQueue();
    const configured = createConfiguredTools(context);
    mcp = await loadMcpTools(agent.config.mcp?.servers ?? [], {
      env,
      toolTimeoutMs: agent.config.limits.toolTimeout,
      maxResultBytes: agent.config.limits.toolResponseMaxBytes,
      report: host.publish,
    });
    // Built-ins win a name clash, then the agent's own tools, then MCP tools.
    const tools: ToolSet = { ...mcp.tools, ...configured.tools, ...createBuiltinTools(context, builtinQueue) };
    const observers: ToolStreamObserver[] = [createSendMessageStreamer(context), ...configured.observers];

    const previous = storage.get<ModelMessage[]>("consciousness") ?? [];
    const maxEventChars = agent.config.limits.toolResponseMaxBytes;
    const userMessage: ModelMessage = { role: "user", content: inboxMessage(events, now, maxEventChars) };
    const system = buildSystemPrompt({
      system: agent.config.agent.system,
      description: agent.config.agent.description,
      agent: identity,
      spaces,
      activeSpaceId,
      ...known,
      events,
      now,
      maxEventChars,
    });

    const model = createModel(agent.config.model, env, {
      nextTurn: () => storage.get<number>("scripted_turn") ?? 0,
      consumeTurn: (index) => storage.set("scripted_turn", index + 1),
    });

    const result = streamText({
      model,
      system,
      messages: [...previous, userMessage],
      tools,
      toolChoice: agent.config.loop.toolChoice,
      stopWhen: [isStepCount(agent.config.loop.maxSteps), hasToolCall("skip")],
      toolCallConcurrency: agent.config.limits.maxConcurrentTools,
      maxRetries: 2,
      // Nothing waits forever: a cycle past its deadline is aborted and fails.
      abortSignal: AbortSignal.timeout(agent.config.limits.cycleTimeout),
      ...(agent.config.model.temperature !== undefined && { temperature: agent.config.model.temperature }),
      ...(agent.config.model.maxOutputTokens !== undefined && { maxOutputTokens: agent.config.model.maxOutputTokens }),
    });

    const streamError = await consumeCycleStream(result.fullStream, { runId, publish: host.publish, observers, settled, toolCalls, steps, usage });
    await spaceEvents.drain();
    if (streamError !== undefined) throw streamError;

    const response = await result.response;
    storage.set(
      "consciousness",
      trimConsciousness(compactToolResults([...previous, userMessage, ...response.messages]), agent.config.limits.consciousnessTokens),
    );
    await runInserted;
    await finishRun(host, database, counter, { runId, status: "completed", steps, toolCalls: [...toolCalls.values()], usage, spaceIds, spaceEvents });
    storage.complete(runId);
    return { runId, status: "completed" };
  } catch (error) {
    const message = errorMessage(error);
    await spaceEvents.drain().catch(() => undefined);
    const retried = storage.retryLater(runId, maxEventAttempts, retryBackoffMs);
    try {
      await runInserted;
      await finishRun(host, database, counter, {
        runId,
        status: "failed",
        steps,
        toolCalls: [...toolCalls.values()],
        usage,
        error: `${message}${retried > 0 ? ` (events will be retried)` : " (no attempts left; events kept on this run)"}`,
        spaceIds,
        spaceEvents,
      });
    } catch (finishError) {
      console.error("could not record failed run", runId, finishError);
    }
    return { runId, status: "failed", error: message };
  } finally {
    storage.delete("active_run");
    await mcp?.close();
  }
}

async function finishRun(
  host: CycleHost,
  database: ReturnType<typeof createDatabase>,
  counter: StatementCounter,
  outcome: {
    runId: string;
    status: "completed" | "failed";
    steps: RunStep[];
    toolCalls: RunToolCall[];
    usage: RunUsage;
    error?: string;
    spaceIds: string[];
    spaceEvents: SpaceEventBuffer;
  },
): Promise<void> {
  const finishedAt = new Date().toISOString();
  // +1: this update itself.
  const d1Statements = counter.count + 1;
  await database
    .update(runs)
    .set({
      status: outcome.status,
      steps: outcome.steps,
      toolCalls: outcome.toolCalls,
      usage: outcome.usage,
      error: outcome.error ?? null,
      d1Statements,
      finishedAt,
    })
    .where(eq(runs.id, outcome.runId));
  host.publish("agent.cycle.finished", { runId: outcome.runId, status: outcome.status, usage: outcome.usage, d1Statements, ...(outcome.error && { error: outcome.error }) });
  for (const spaceId of outcome.spaceIds) {
    outcome.spaceEvents.push(spaceId, { type: "agent.cycle.finished", data: { agentEntityId: host.agent.entityId, runId: outcome.runId } });
  }
  await outcome.spaceEvents.drain();
}

export type { QueuedEvent };
