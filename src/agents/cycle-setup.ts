/**
 * What one attempt of a cycle works with: the tool context, every tool
 * (from every provider: built-ins, the agent's own, OpenAPI sources,
 * sub-agents, MCP servers) behind the one tool pipeline that runs its calls
 * (journal, approval, …, statistics: `tools/engine/tool-pipeline.ts`), the
 * stream observers, the system prompt (with what providers
 * ask to be said) and the model. A reflection pass (its trigger is a
 * `reflection` event) gets the notes tools alone and no spaces.
 */
import type { LanguageModel, ToolSet } from "ai";
import { z } from "zod";
import type { AgentRecord } from "./agent-record";
import type { Database } from "../db/client";
import { listSpacesOfEntity } from "../db/spaces";
import type { AppEnv } from "../env";
import { createModel } from "../models/create-model";
import type { Message } from "../protocol/message";
import type { SpaceEventBuffer } from "../spaces/space-event-buffer";
import {
  assembleTools,
  builtinProvider,
  CallIds,
  createSendMessageStreamer,
  describeBuiltins,
  providersOf,
  type ToolContext,
  ToolPipeline,
  type ToolRuntime,
  type ToolStreamObserver,
} from "../tools";
import { mediaToolResults } from "../models/media-tool-results";
import type { AgentStorage } from "./agent-storage";
import type { ActiveRun, CycleJournal } from "./cycle-journal";
import { DeferredMap } from "./deferred-map";
import { presentEvents } from "./double-texting";
import { callbackUrl } from "../security/callback-token";
import type { Goal } from "../knowledge/goals";
import type { KnowledgeContext, PlanSchedule } from "../knowledge/knowledge-context";
import type { Memory } from "../knowledge/memories";
import type { Plan } from "../knowledge/plans";
import { buildReflectionPrompt, isReflectionRun } from "./reflection/reflection";
import { buildSystemPrompt } from "./system-prompt";
import { scriptedTurnKey } from "./run-config";
import type { SpanParent, Tracer } from "../telemetry/tracer";

const inputSettleTimeoutMs = 10_000;

export type Knowledge = { goals: Goal[]; memories: Memory[]; plans: Plan[] };

/** What the agent object lends a cycle. */
/** What a cycle runs on: the object's storage and journal, the agent, and what the object lends it, in small groups. */
export type CycleHost = {
  env: AppEnv;
  storage: AgentStorage;
  journal: CycleJournal;
  agent: AgentRecord;
  /** Goals, memories and plans, read once and kept by the object until a tool changes them. */
  knowledge: KnowledgeCache;
  effects: CycleEffects;
  signals: {
    /** Aborted when the agent is deleted: the cycle stops and records nothing. */
    deleted: AbortSignal;
    /** Aborted by an operator: the cycle stops at once and fails, keeping its events (the reason is the signal's). */
    stopped: AbortSignal;
  };
  toolRuntime: ToolRuntime;
  /** The object's spans (off without `OTEL_EXPORTER_OTLP_ENDPOINT`). */
  tracer: Tracer;
};

export type KnowledgeCache = {
  load(knowledge: KnowledgeContext): Promise<Knowledge>;
  invalidate(): void;
  plansChanged(changed: PlanSchedule[], deletedIds: string[]): void;
};

/** What a cycle asks of the agent object besides its storage. */
export type CycleEffects = {
  /** The spaces the agent belongs to (cached by the agent object, refreshed on membership changes). */
  loadSpaces(database: Database): Promise<{ id: string; name: string }[]>;
  /** The agent stream. */
  publish(type: string, data: Record<string, unknown>): void;
  /** Wakes the agents a reply mentions, one hop further than the cycle; says why if it refused. */
  wakeMentioned(message: Message, spaceName: string | undefined, hop: number): Promise<{ refused?: string }>;
  /** Where the gateway is reachable (`PUBLIC_URL`, else the origin requests last came in on), for callback URLs. */
  publicOrigin(): string | undefined;
  /** Fans out webhook events queued with the run's end (`webhooks/event-notifier.ts`). */
  fanOut(eventId: string): void;
};

export type Attempt = {
  context: ToolContext;
  /** What the model is offered: every call goes through `pipeline`. */
  tools: ToolSet;
  pipeline: ToolPipeline;
  observers: ToolStreamObserver[];
  settled: DeferredMap;
  spaceIds: string[];
  system: string;
  model: LanguageModel;
  /** This attempt is a reflection pass. */
  reflection: boolean;
};

export async function prepareAttempt(host: CycleHost, run: ActiveRun, database: Database, spaceEvents: SpaceEventBuffer, trace: SpanParent): Promise<Attempt> {
  const { env, storage, journal, agent } = host;
  const identity = { agentId: agent.id, entityId: agent.entityId, name: agent.name };
  const claimed = storage.claimed(run.runId);
  const reflection = isReflectionRun(claimed);
  // A reflection pass is in no space: it shows nowhere and can post nowhere.
  const spaces = reflection ? [] : await host.effects.loadSpaces(database);
  const knowledge: KnowledgeContext = { database, agentId: agent.id, plansChanged: host.knowledge.plansChanged };
  const known = await host.knowledge.load(knowledge);
  let activeSpaceId = storage.read("active_space_id", z.string());
  if (activeSpaceId && !spaces.some((space) => space.id === activeSpaceId)) activeSpaceId = undefined;

  const settled = new DeferredMap();
  const callIds = new CallIds(journal.openCalls(run.runId));
  // Working on another agent's task: as deep as the deepest task this cycle took.
  const depth = Math.max(0, ...claimed.map((queued) => (queued.event.type === "agent_task" ? queued.event.depth : 0)));
  const context: ToolContext = {
    env,
    database,
    agent: identity,
    config: agent.config,
    runId: run.runId,
    hop: run.hop,
    ...(run.initiatorEntityId && { initiatorEntityId: run.initiatorEntityId }),
    callbackUrl: (pendingId, expiresAt) => callbackUrl(env.WEBHOOK_SECRET, host.effects.publicOrigin(), pendingId, expiresAt),
    publicOrigin: () => host.effects.publicOrigin(),
    depth,
    stepNumber: () => run.step,
    mediaToolResults: mediaToolResults(agent.config.model),
    knowledge,
    spaces: new Map(spaces.map((space) => [space.id, space.name])),
    getActiveSpaceId: () => activeSpaceId,
    setActiveSpaceId: (spaceId) => {
      activeSpaceId = spaceId;
      if (spaceId) storage.write("active_space_id", spaceId);
      else storage.delete("active_space_id");
    },
    spaceEvents,
    publish: host.effects.publish,
    callIds,
    journal: {
      previous: (toolCallId) => journal.call(toolCallId),
      markAnnounced: (toolCallId) => journal.markAnnounced(toolCallId),
      outcome: (toolCallId) => journal.call(toolCallId)?.outcome,
      markCard: (toolCallId, spaceId, minimal) => journal.markCard(toolCallId, spaceId, minimal),
      openWait: (pendingId, argsSchema) => journal.openWait(pendingId, run.runId, argsSchema),
      closeWait: (pendingId) => journal.closeWait(pendingId),
    },
    // Membership as of the cycle's start; a space joined since is checked in D1.
    // (A removal takes effect from the next cycle.)
    isMemberOf: async (spaceId) => {
      if (context.spaces.has(spaceId)) return true;
      for (const space of await listSpacesOfEntity(database, agent.entityId)) context.spaces.set(space.id, space.name);
      return context.spaces.has(spaceId);
    },
    knowledgeChanged: host.knowledge.invalidate,
    inputSettled: (modelToolCallId) => settled.wait(modelToolCallId, inputSettleTimeoutMs),
    wakeMentioned: async (message) => {
      const { refused } = await host.effects.wakeMentioned(message, context.spaces.get(message.spaceId), run.hop + 1);
      if (refused) journal.note(run, "refused", refused);
    },
    toolRuntime: host.toolRuntime,
    markInputSettled: (modelToolCallId) => settled.resolve(modelToolCallId),
    runBatched: (call) =>
      pipeline.run({ toolName: call.toolName, modelToolCallId: call.modelToolCallId, input: call.input, abortSignal: call.abortSignal, batchedAs: call.toolCallId }),
    reportFinal: (toolCallId, report) => {
      // The same call done again after a restart finds its report already kept.
      if (run.notes.some((note) => note.toolCallId === toolCallId)) return;
      const preview = report.content ?? JSON.stringify(report.contentJson ?? null);
      run.notes.push({ at: new Date().toISOString(), kind: "final_report", message: `${report.status}: ${preview.slice(0, 200)}`, toolCallId, report });
      journal.saveRun(run);
    },
    listTools: () => pipeline.listing(),
    ...(reflection && { reflection: true }),
    trace,
  };

  // Sessions of servers that left the config, or sat idle, end (without holding the cycle up).
  void host.toolRuntime.kept.mcp
    .sweep(new Set((agent.config.mcp?.servers ?? []).filter((server) => server.enabled !== false).map((server) => server.name)))
    .catch((error: unknown) => console.error("MCP sweep failed", error));
  // Built-ins win a name clash, then the agent's own tools, then its providers and MCP servers in config order.
  // A reflection pass has the built-ins alone (and of those, the notes tools).
  const assembled = await assembleTools(context, reflection ? [builtinProvider()] : providersOf(agent.config));
  const pipeline = new ToolPipeline(context, assembled.tools, journal);
  const events = presentEvents(agent.config.loop.doubleTexting, claimed);
  const now = new Date();
  const builtins = await describeBuiltins(context);
  const system = reflection
    ? buildReflectionPrompt({ system: agent.config.agent.system, agent: identity, instruction: agent.config.reflection?.instruction, sections: builtins.sections, now })
    : buildSystemPrompt({
        system: agent.config.agent.system,
        description: agent.config.agent.description,
        agent: identity,
        spaces,
        activeSpaceId,
        ...known,
        events,
        now,
        maxEventChars: agent.config.limits.toolResponseMaxBytes,
        providerInstructions: assembled.instructions,
        // Without `builtins` in the config the prompt stays as it was before the catalogue.
        ...((agent.config.builtins !== undefined || agent.config.deniedTools !== undefined) && { builtins }),
      });
  // An inherited scripted model keeps its place apart from the agent's own script.
  const turnKey = scriptedTurnKey(claimed);
  const model = await createModel(agent.config.model, env, {
    nextTurn: () => storage.read(turnKey, scriptedTurn) ?? 0,
    consumeTurn: (index) => storage.write(turnKey, index + 1),
  });
  return {
    context,
    tools: pipeline.modelTools(),
    pipeline,
    observers: [createSendMessageStreamer(context), ...assembled.observers, pipeline.observer],
    settled,
    spaceIds: spaces.map((space) => space.id),
    system,
    model,
    reflection,
  };
}

/** A scripted model's place in its script (stored by the agent object). */
export const scriptedTurn = z.number().int().min(0);
