/**
 * AgentDO: one per agent (named by its agent id). Owns the durable inbox and
 * runs one cycle at a time. The one alarm (multiplexed over a deadline table:
 * plans, tool timeouts, call expiry, webhook retries, run records, staged
 * outcomes) and the "a cycle is running" lease belong to `AgentScheduler`:
 * every way into a cycle goes through `owe()`, and while a cycle runs the
 * alarm is a heartbeat, so a fresh instance continues the cycle from its
 * journal if this one dies. Every pending-call transition goes through the
 * PendingCallOwner here. It also holds what the tools keep across cycles
 * (MCP connections, named queues, the response cache, call statistics) and
 * hands sub-agent tasks on. Also serves the agent's own event stream.
 */
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import { getAgent, type AgentRecord } from "./agent-record";
import { getDatabase } from "../db/client";
import { countedSql } from "../db/object-statements";
import { AgentVariables } from "./agent-variables";
import { listSpacesOfEntity } from "../db/spaces";
import type { AppEnv } from "../env";
import type { Message } from "../protocol/message";
import { spaceStub } from "../spaces/space-stub";
import { ConnectionHub } from "../streams/connection-hub";
import { MemoryEventLog } from "../streams/memory-event-log";
import { maxHops } from "../protocol/hop";
import {
  a2aPollId,
  a2aProvidersOf,
  approvalAnswerProblem,
  getPendingCall,
  McpPool,
  type PendingCall,
  ResponseCache,
  resultSchemaProblem,
  resumeGatewayAsPerson,
  resumeMcpAsPerson,
  resumeOpenApiAsPerson,
  openApiProvidersOf,
  pollA2aCall,
  type ToolOutcome,
  ToolQueues,
  type ToolRuntime,
  warmUpServers,
} from "../tools";
import { type WebhookDelivery, WebhookSender } from "../webhooks/webhook-sender";
import { PendingCallOwner, type SubmitAnswer } from "./pending-call-owner";
import { callbackUrl } from "../security/callback-token";
import { PublicOrigin } from "./public-origin";
import { showPushOutcome, type PushOutcomesHost } from "./push-outcomes";
import { noteOnRun } from "./run-notes";
import { EventNotifier } from "../webhooks/event-notifier";
import { a2aTaskPushes } from "../webhooks/a2a-task-push";
import { delegateTask, taskStillOpen } from "./delegate-task";
import { type AgentToolStats, ToolStatsStore } from "./tool-stats-store";
import { AgentStorage, type Deadline } from "./agent-storage";
import { migrateAgentStorage } from "./agent-migrations";
import { CycleJournal } from "./cycle-journal";
import type { CycleHost, Knowledge } from "./cycle-setup";
import { InboxEvent } from "./inbox-event";
import { listGoals } from "../knowledge/goals";
import type { KnowledgeContext, PlanSchedule } from "../knowledge/knowledge-context";
import { listMemories } from "../knowledge/memories";
import { listPlans } from "../knowledge/plans";
import { AgentScheduler, type OwedWork } from "./agent-scheduler";
import { processDeadlines } from "./process-deadlines";
import { giveUp, retryDelayMs, runCycle } from "./run-cycle";
import { wakeMentionedAgents } from "./wake-agents";
import { type ObjectTelemetry, objectTelemetry } from "../telemetry/object-telemetry";

/** The kinds of pending call whose outcome only the gateway gets (`settleWith`): a result sent from outside is refused. */
const gatewaySettled = new Set(["gateway", "mcp", "openapi", "a2a"]);

export class AgentDO extends DurableObject<AppEnv> {
  #storage: AgentStorage;
  #journal: CycleJournal;
  #stats: ToolStatsStore;
  /** MCP connections, queues and the response cache live as long as the object: they span cycles. */
  readonly #mcp = new McpPool();
  readonly #queues = new ToolQueues();
  readonly #cache = new ResponseCache();
  readonly #log: MemoryEventLog;
  readonly #hub: ConnectionHub;
  readonly #webhooks: WebhookSender;
  readonly #notifier: EventNotifier;
  readonly #owner: PendingCallOwner;
  readonly #toolRuntime: ToolRuntime;
  readonly #origin: PublicOrigin;
  /** Spans of this object's runs, batched and sent when a cycle ends (off without an OTLP endpoint). */
  readonly #telemetry: ObjectTelemetry;
  #agent: AgentRecord | undefined;
  #knowledge: Knowledge | undefined;
  #spaces: { id: string; name: string }[] | undefined;
  readonly #scheduler: AgentScheduler;
  /** Aborted when the agent is deleted: a running cycle stops where it is. */
  #deleted = new AbortController();
  /** Aborted when an operator stops the running cycle. */
  #stopped = new AbortController();

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.#storage = new AgentStorage(ctx.storage);
    this.#origin = new PublicOrigin(env, () => this.#storage);
    this.#journal = new CycleJournal(countedSql(ctx.storage.sql), this.#storage);
    this.#stats = new ToolStatsStore(countedSql(ctx.storage.sql));
    this.#log = new MemoryEventLog({
      read: () => this.#storage.read("stream_seq", z.number().int()) ?? 0,
      write: (upTo) => this.#storage.write("stream_seq", upTo),
    });
    this.#hub = new ConnectionHub(ctx);
    this.#telemetry = objectTelemetry(env, {
      keepAlive: (promise) => ctx.waitUntil(promise),
      // Spans that could not be sent are counted on the agent stream, never retried.
      onDropped: ({ count, reason, counters }) => this.#publish("telemetry.dropped", { dropped: count, reason, totalDropped: counters.dropped, totalExported: counters.exported }),
    });
    this.#scheduler = new AgentScheduler({
      alarms: ctx.storage,
      owed: () => this.#owedWork(),
      alarmFirst: () => this.#journal.active() !== undefined || this.#storage.hasStaged() || (this.#storage.earliestDeadline() ?? Infinity) <= Date.now(),
      runCycles: () => this.#cycleLoop(),
    });
    this.#webhooks = new WebhookSender({
      env,
      storage: this.#storage,
      agentId: () => this.#agentId,
      publish: (type, data) => this.#publish(type, data),
      reported: (delivery, outcome, data) => {
        showPushOutcome(this.#notesHost(), delivery, outcome, data).catch((error: unknown) => console.error("could not show a push's outcome", error));
      },
      callStatus: async (toolCallId) => (await getPendingCall(getDatabase(env.DB), toolCallId))?.status,
      scheduleAlarm: () => this.#scheduler.schedule(),
    });
    this.#notifier = new EventNotifier({
      env,
      storage: () => this.#storage,
      agentId: () => this.#agentId,
      webhooks: this.#webhooks,
      scheduleAlarm: () => this.#scheduler.schedule(),
      // Only an agent with an A2A face has tasks that may ask for pushes: no D1 read for the others.
      taskPushes: async (event) => ((await this.#loadAgent())?.config.a2a?.enabled ? a2aTaskPushes(getDatabase(env.DB), event) : []),
    });
    this.#owner = new PendingCallOwner(
      { storage: () => this.#storage, journal: () => this.#journal, scheduler: this.#scheduler },
      {
        database: () => getDatabase(env.DB),
        space: (spaceId) => spaceStub(env, spaceId),
        checkAnswer: async (call, outcome) => {
          // Calls only the gateway settles: one waiting for its person's account (the service answers it once they connect),
          // and a remote A2A agent's task (its own answer settles it). Nobody answers them in the service's place.
          if (gatewaySettled.has(call.executionType)) {
            const waitsFor = call.executionType === "a2a" ? "a remote agent's task" : "a person to connect their account";
            return { kind: "invalid", message: `"${call.toolName}" waits for ${waitsFor}: the service's answer settles it, not a result sent here` };
          }
          const tools = (await this.#loadAgent())?.config.tools ?? [];
          const approvalProblem = approvalAnswerProblem(call, outcome, { kept: this.#journal.argsSchemaOf(call.toolCallId), tools });
          if (approvalProblem !== undefined) return { kind: "invalid", message: approvalProblem };
          const resultProblem = resultSchemaProblem(call, outcome, tools);
          return resultProblem === undefined ? undefined : { kind: "invalid_result", message: resultProblem };
        },
        publish: (type, data) => this.#publish(type, data),
        notify: (event, spaceIds) => this.#notifier.emit(event, spaceIds),
        callbackUrl: (pendingId, expiresAt) => callbackUrl(env.WEBHOOK_SECRET, this.#origin.get(), pendingId, expiresAt),
      },
    );
    this.#toolRuntime = {
      calls: this.#owner,
      deadlines: {
        set: (deadline) => {
          this.#storage.setDeadline(deadline);
          // The alarm cannot fire while a cycle runs in it: expiry also gets a live timer.
          if (deadline.kind === "call_expiry") this.#expireLater(deadline);
        },
        get: (id) => {
          const deadline = this.#storage.getDeadline(id);
          return deadline?.kind === "a2a_poll" || deadline?.kind === "call_expiry" || deadline?.kind === "tool_timeout" ? deadline : undefined;
        },
        delete: (id) => this.#storage.deleteDeadline(id),
        wakeLater: (wake) => {
          const id = `sleep:${wake.eventId}`;
          // Done again after a restart: the wake-up is armed already, or its event is in the inbox.
          if (this.#storage.getDeadline(id) || this.#storage.hasEvent(wake.eventId)) return;
          const event = {
            type: "tool_result" as const,
            toolCallId: wake.toolCallId,
            toolName: wake.toolName,
            runId: wake.runId,
            result: wake.result,
            ...(wake.hop > 0 && { hop: wake.hop }),
          };
          this.#storage.setDeadline({ id, kind: "sleep", dueAt: wake.dueAt, payload: { eventId: wake.eventId, event } });
        },
      },
      outbox: {
        sendWebhook: (toolCallId, url, body, giveUpAt, traceparent) =>
          this.#webhooks.send({ toolCallId, url, body, attempt: 1, ...(giveUpAt !== undefined && { giveUpAt }), ...(traceparent !== undefined && { traceparent }) }),
        notify: (event, spaceIds, tasksOnly) => this.#notifier.emit(event, spaceIds, tasksOnly),
        delegate: (agentId, task) => delegateTask(env, agentId, task),
      },
      kept: { mcp: this.#mcp, queues: this.#queues, cache: this.#cache, recordCall: (stat) => this.#stats.record(stat) },
      inbox: { takeQueuedResult: (toolCallId) => this.#storage.dropQueued(`evt_result_${toolCallId}`) },
      variables: new AgentVariables(countedSql(ctx.storage.sql)),
    };
    // One start, before any request, alarm or socket event (they wait for it): the tables first
    // (nothing above reads storage), then recovery. A start that throws resets the object (the
    // runtime does that, and callers get the error); caught here so it is not also an unhandled rejection.
    ctx
      .blockConcurrencyWhile(async () => {
        migrateAgentStorage(ctx.storage);
        await this.#recoverAfterRestart();
      })
      .catch((error: unknown) => console.error("the agent object could not start", error));
  }

  // ── RPC ────────────────────────────────────────────────────────────────

  /**
   * Puts an event in the inbox. It is durable when this returns; the alarm
   * starts a cycle. An event id the inbox already holds is ignored.
   */
  async deliver(event: InboxEvent, eventId?: string, origin?: string): Promise<{ eventId: string; ignored?: true }> {
    this.#origin.remember(origin);
    const parsed = InboxEvent.parse(event);
    // A task delivered again after its call was answered (or expired) is not worked on twice.
    if (parsed.type === "agent_task" && eventId !== undefined && !(await taskStillOpen(this.env, parsed))) return { eventId, ignored: true };
    const id = this.#storage.enqueue(parsed, eventId);
    this.#publish("agent.inbox.received", { eventId: id, event: parsed });
    await this.#scheduler.owe();
    return { eventId: id };
  }

  /** A result (or a reported failure) for one of this agent's calls; the route checked who may answer it (`answerer`: the entity, when a token answered). */
  async submitToolResult(call: PendingCall, outcome: Extract<ToolOutcome, { type: "ok" | "error" }>, origin?: string, answerer?: string): Promise<SubmitAnswer> {
    this.#origin.remember(origin);
    const answer = await this.#owner.submit(call, outcome, answerer);
    if (answer.kind === "accepted") this.#publish("tool.result.received", { toolCallId: call.toolCallId, runId: call.runId });
    await this.#scheduler.schedule();
    return answer;
  }

  /**
   * A person connected the account one of this agent's calls waited for (the
   * OAuth callback stored their tokens): the call's request is sent now, with
   * their token, and its answer settles the call, once: under the call's
   * lock, only while it is open (a second callback, an expiry or a
   * settlement that came first leaves it as it is). False when nothing ran.
   */
  async resumeAccountCall(toolCallId: string, origin?: string): Promise<{ resumed: boolean }> {
    this.#origin.remember(origin);
    const agent = await this.#loadAgent();
    if (agent === undefined) return { resumed: false };
    const { limits } = agent.config;
    const resumed = await this.#owner.settleWith(toolCallId, (call) =>
      call.executionType === "mcp"
        ? resumeMcpAsPerson(this.env, this.#mcp, agent.config.mcp?.servers ?? [], call, {
            toolTimeoutMs: limits.toolTimeout,
            gatewayOrigin: this.#origin.get(),
            media: false,
          })
        : call.executionType === "openapi"
          ? resumeOpenApiAsPerson(this.env, openApiProvidersOf(agent.config), call, {
              toolTimeoutMs: limits.toolTimeout,
              maxResponseBytes: limits.toolOutputMaxBytes ?? limits.toolResponseMaxBytes,
              gatewayOrigin: this.#origin.get(),
            })
          : resumeGatewayAsPerson(this.env, agent.config.tools, call, {
              toolTimeoutMs: limits.toolTimeout,
              maxResponseBytes: limits.toolOutputMaxBytes ?? limits.toolResponseMaxBytes,
              gatewayOrigin: this.#origin.get(),
            }),
    );
    if (resumed) this.#publish("tool.result.received", { toolCallId });
    await this.#scheduler.schedule();
    return { resumed };
  }

  /**
   * A remote A2A agent pushed an update about the task one of this agent's
   * calls follows: the task is looked at now (`GetTask`), and a finished one
   * settles the call. The push's body is not read: it only says "look".
   */
  async a2aPushed(toolCallId: string, origin?: string): Promise<{ followed: boolean }> {
    this.#origin.remember(origin);
    const deadline = this.#storage.getDeadline(a2aPollId(toolCallId));
    if (deadline?.kind !== "a2a_poll") return { followed: false };
    await this.#pollA2a(deadline, "push");
    await this.#scheduler.schedule();
    return { followed: true };
  }

  /**
   * An operator acts on one of this agent's calls: cancel it (the agent gets a
   * cancellation), expire it now, or deliver its result to the inbox again.
   * Every action is noted on the call's run.
   */
  async operateOnCall(call: PendingCall, action: "cancel" | "expire" | "redeliver", reason: string, eventId?: string): Promise<{ done: boolean }> {
    let done = false;
    if (action === "cancel") done = await this.#owner.cancel(call.toolCallId, reason);
    else if (action === "expire") done = await this.#owner.expire(call.toolCallId);
    else if (call.status === "resolved" || call.status === "expired") {
      const error = call.status === "expired" ? `Tool "${call.toolName}" expired` : undefined;
      this.#storage.enqueue(
        {
          type: "tool_result",
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          runId: call.runId,
          result: call.status === "resolved" ? call.result : null,
          ...(error && { error }),
        },
        eventId ?? `evt_redeliver_${call.toolCallId}_${Date.now()}`,
      );
      await this.#scheduler.owe();
      done = true;
    }
    if (done) await this.#audit(call.runId, `An operator did "${action}" on call ${call.toolCallId} (${call.toolName})${reason ? `: ${reason}` : ""}`);
    await this.#scheduler.schedule();
    return { done };
  }

  /**
   * An operator stops the agent's run now: a running cycle is aborted and its
   * run fails (its events stay on the record; its pending calls stay
   * answerable); a run waiting to retry fails at once. With `onlyRunId`,
   * only that run: another run that is active is left alone.
   */
  async abortRun(reason: string, onlyRunId?: string): Promise<{ aborted: boolean; runId?: string }> {
    const run = this.#journal.active();
    if (!run) return { aborted: false };
    if (onlyRunId !== undefined && run.runId !== onlyRunId) return { aborted: false, runId: run.runId };
    this.#journal.note(run, "operator", `An operator aborted the run: ${reason}`);
    if (this.#scheduler.cycleRunning) {
      this.#stopped.abort(new Error(reason));
    } else {
      const agent = await this.#loadAgent();
      // Under the lease, like a cycle, so the alarm cannot start the run again while it fails.
      if (agent) await this.#scheduler.hold(() => giveUp(this.#cycleHost(agent), run, `Aborted by an operator: ${reason}`));
      this.#telemetry.flush();
    }
    return { aborted: true, runId: run.runId };
  }

  /** The active run, when it took inbox event `eventId` (its run record may not be written yet). */
  async activeRunFor(eventId: string): Promise<string | undefined> {
    const run = this.#journal.active();
    return run && this.#storage.claimed(run.runId).some((queued) => queued.id === eventId) ? run.runId : undefined;
  }

  /**
   * An operator redelivers one of this agent's dead letters: a fresh delivery
   * now, unless one is under way (the route checked its target still exists).
   */
  async redeliverWebhook(delivery: WebhookDelivery): Promise<{ started: boolean }> {
    return this.#webhooks.redeliver(delivery);
  }

  /** Webhook subscriptions of the agent or of one of its spaces changed: read them again. */
  async webhooksChanged(): Promise<void> {
    this.#notifier.invalidate();
  }

  /** The agent joined or left a space: its cached space list is stale. */
  async membershipChanged(): Promise<void> {
    this.#spaces = undefined;
  }

  /** The config was replaced: reload it, restart a scripted model's turns, end MCP sessions and forget cached answers; with `warmup`, connect again now. */
  async configReplaced(): Promise<void> {
    this.#agent = undefined;
    this.#storage.delete("scripted_turn");
    this.#cache.clear();
    void this.#mcp.closeAll().catch((error: unknown) => console.error("could not close MCP connections", error));
    await this.warmup();
  }

  /** With `warmup` in the config: the MCP servers connect now (in the background), not at the first cycle. */
  async warmup(): Promise<{ started: boolean }> {
    const agent = await this.#loadAgent();
    if (!agent?.config.warmup) return { started: false };
    const warming = warmUpServers(this.#mcp, agent.config.mcp?.servers ?? [], this.env, agent.config.mcpInitConcurrency, (result) =>
      result.ok
        ? this.#publish("mcp.server.connected", { server: result.server, tools: result.tools, reused: false, warmup: true })
        : this.#publish("mcp.server.failed", { server: result.server, error: result.error, warmup: true }),
    );
    this.ctx.waitUntil(warming.catch((error: unknown) => console.error("MCP warmup failed", error)));
    return { started: true };
  }

  /** Plans written by an import (not by a tool of a cycle): each gets its deadline, and the alarm follows. */
  async plansImported(plans: PlanSchedule[]): Promise<void> {
    this.#plansChanged(plans, []);
    await this.#scheduler.schedule();
  }

  /** Call statistics per tool (`GET /api/agents/:agentId/tool-stats`). */
  async toolStats(): Promise<AgentToolStats[]> {
    return this.#stats.read();
  }

  /**
   * The agent was deleted: its streams close, its timers and retries stop,
   * a waiting cycle is let go, and its storage is emptied. The instance stays
   * usable (fresh, empty tables), so a request that races the delete finds
   * nothing instead of failing.
   */
  async destroy(): Promise<void> {
    this.#deleted.abort(new Error("The agent was deleted"));
    this.#deleted = new AbortController();
    this.#webhooks.stopAll();
    this.#owner.wakeAll();
    this.#cache.clear();
    void this.#mcp.closeAll().catch((error: unknown) => console.error("could not close MCP connections", error));
    this.#hub.closeAll("agent deleted");
    this.#agent = undefined;
    this.#knowledge = undefined;
    this.#spaces = undefined;
    this.#origin.forget();
    await this.#scheduler.clear();
    await this.ctx.storage.deleteAll();
    migrateAgentStorage(this.ctx.storage);
    this.#storage = new AgentStorage(this.ctx.storage);
    this.#journal = new CycleJournal(countedSql(this.ctx.storage.sql), this.#storage);
    this.#stats = new ToolStatsStore(countedSql(this.ctx.storage.sql));
  }

  // ── runtime entry points ───────────────────────────────────────────────

  override fetch(request: Request): Response {
    return this.#hub.serve(request, this.#log);
  }

  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): void {
    this.#hub.handleClientFrame(socket, message);
  }

  override webSocketClose(socket: WebSocket, code: number, reason: string): void {
    this.#hub.handleClose(socket, code, reason);
  }

  /**
   * The alarm: staged outcomes first (a crash may have cut one short), then
   * due deadlines, then any cycle that is owed or must be continued.
   */
  override async alarm(): Promise<void> {
    await this.#scheduler.alarm(async () => {
      if (this.#storage.hasStaged()) await this.#owner.reconcile();
      await processDeadlines({
        env: this.env,
        storage: this.#storage,
        journal: this.#journal,
        agentId: this.#agentId,
        owner: this.#owner,
        webhooks: this.#webhooks,
        notifier: this.#notifier,
        plansChanged: (changed) => this.#plansChanged(changed, []),
        publish: (type, data) => this.#publish(type, data),
        pollA2a: (deadline) => this.#pollA2a(deadline, "alarm"),
      });
    });
  }

  // ── cycles ─────────────────────────────────────────────────────────────

  /** What the object owes, for the scheduler: deadlines, the next cycle (a run's next attempt, ready events after a throttle), staged outcomes. */
  #owedWork(): OwedWork {
    const active = this.#journal.active();
    const notBefore = this.#storage.read("cycle_not_before", z.number());
    const nextReadyAt = this.#storage.nextReadyAt();
    return {
      earliestDeadline: this.#storage.earliestDeadline(),
      nextCycleAt: active ? active.notBefore : nextReadyAt === undefined ? undefined : Math.max(nextReadyAt, notBefore ?? 0),
      staged: this.#storage.hasStaged(),
    };
  }

  /** Runs cycles, one after another, until none is owed now (under the scheduler's lease). */
  async #cycleLoop(): Promise<void> {
    this.#stopped = new AbortController();
    for (;;) {
      if (!this.#journal.active() && this.#storage.readyCount() === 0) return;
      const agent = await this.#loadAgent();
      if (!agent) {
        // The agent is gone: nothing will ever process these events.
        await this.destroy();
        return;
      }
      const outcome = await runCycle(this.#cycleHost(agent));
      // The cycle's tool statistics, written behind in one statement; its spans, sent without waiting.
      this.#stats.flush();
      this.#telemetry.flush();
      if (outcome.status === "idle" || outcome.status === "waiting") return;
    }
  }

  #cycleHost(agent: AgentRecord): CycleHost {
    return {
      env: this.env,
      storage: this.#storage,
      journal: this.#journal,
      agent,
      knowledge: {
        load: (knowledge) => this.#loadKnowledge(knowledge),
        invalidate: () => {
          this.#knowledge = undefined;
        },
        plansChanged: (changed, deletedIds) => this.#plansChanged(changed, deletedIds),
      },
      effects: {
        loadSpaces: async (database) => {
          this.#spaces ??= (await listSpacesOfEntity(database, agent.entityId)).map(({ id, name }) => ({ id, name }));
          return this.#spaces;
        },
        publish: (type, data) => this.#publish(type, data),
        wakeMentioned: (message, spaceName, hop) => this.#wakeMentioned(agent, message, spaceName, hop),
        publicOrigin: () => this.#origin.get(),
        fanOut: (eventId) => this.#notifier.fanOutSoon(eventId),
      },
      signals: { deleted: this.#deleted.signal, stopped: this.#stopped.signal },
      tracer: this.#telemetry.tracer,
      toolRuntime: this.#toolRuntime,
    };
  }

  /**
   * A fresh instance: live timers (webhook retries, expiries) are set again
   * from the deadline table; if the last instance died while an attempt ran,
   * that attempt counts, and the run continues from its journal after a short
   * backoff. Anything owed (a run, staged outcomes, ready events) gets the alarm.
   */
  async #recoverAfterRestart(): Promise<void> {
    // Live timers died with the last instance; the alarm cannot stand in for them while a cycle runs.
    for (const deadline of this.#storage.deadlines()) {
      if (deadline.kind === "webhook") this.#webhooks.resume(deadline);
      else if (deadline.kind === "call_expiry") this.#expireLater(deadline);
      // An event queued but not fanned out when the last instance died.
      else if (deadline.kind === "notify") this.#notifier.fanOutSoon(deadline.payload.event.id);
    }
    const run = this.#journal.active();
    if (run?.running) {
      run.running = false;
      run.attempt += 1;
      run.notBefore = Date.now() + retryDelayMs(run.attempt);
      this.#journal.note(run, "recovered", `The agent object restarted during attempt ${run.attempt - 1} at step ${run.step}; continued from its journal`);
      this.#publish("agent.cycle.interrupted", { runId: run.runId, step: run.step, attempt: run.attempt });
    }
    // Anything owed gets the alarm (only ever earlier: an alarm about to fire keeps its run).
    if (run || this.#storage.hasStaged() || this.#storage.readyCount() > 0) await this.#scheduler.schedule({ earlierOnly: true });
  }

  // ── pending calls ──────────────────────────────────────────────────────

  /** Notes an operator's action on a run: in its journal while it is active, else on its record in D1. */
  async #audit(runId: string, message: string): Promise<void> {
    await noteOnRun(this.#notesHost(), runId, { at: new Date().toISOString(), kind: "operator", message });
  }

  /** What adds a note to a run and changes a card from outside a cycle (the current storage: it is replaced when the agent is deleted). */
  #notesHost(): PushOutcomesHost {
    return { journal: this.#journal, storage: this.#storage, database: this.env.DB, space: (spaceId) => spaceStub(this.env, spaceId) };
  }

  /** One look at a remote A2A task, with the provider's headers as the agent's config says now. */
  async #pollA2a(deadline: Extract<Deadline, { kind: "a2a_poll" }>, why: "alarm" | "push"): Promise<void> {
    const agent = await this.#loadAgent();
    const host = {
      env: this.env,
      database: getDatabase(this.env.DB),
      calls: this.#owner,
      deadlines: { set: (next: Deadline) => this.#storage.setDeadline(next), delete: (id: string) => this.#storage.deleteDeadline(id) },
      isAwaited: (toolCallId: string) => this.#owner.isAwaited(toolCallId),
      publish: (type: string, data: Record<string, unknown>) => this.#publish(type, data),
    };
    await pollA2aCall(host, deadline, agent === undefined ? [] : a2aProvidersOf(agent.config), why);
  }

  #expireLater(deadline: Extract<Deadline, { kind: "call_expiry" }>): void {
    const { toolCallId } = deadline.payload;
    setTimeout(
      () => {
        this.#owner.expire(toolCallId).catch((error: unknown) => console.error("expiry failed", toolCallId, error));
      },
      Math.max(0, deadline.dueAt - Date.now()),
    );
  }

  // ── internals ──────────────────────────────────────────────────────────

  get #agentId(): string {
    const name = this.ctx.id.name;
    if (!name) throw new Error("AgentDO must be addressed by name (the agent id)");
    return name;
  }

  async #loadAgent(): Promise<AgentRecord | undefined> {
    this.#agent ??= await getAgent(getDatabase(this.env.DB), this.#agentId);
    return this.#agent;
  }

  /** Goals, memories and plans, read from D1 once and kept until a tool changes them. */
  async #loadKnowledge(knowledge: KnowledgeContext): Promise<Knowledge> {
    if (!this.#knowledge) {
      const [goals, memories, plans] = await Promise.all([listGoals(knowledge), listMemories(knowledge), listPlans(knowledge)]);
      this.#knowledge = { goals, memories, plans };
    }
    return this.#knowledge;
  }

  async #wakeMentioned(agent: AgentRecord, message: Message, spaceName: string | undefined, hop: number): Promise<{ refused?: string }> {
    if (hop > maxHops) {
      // A chain of agents waking each other stops here; the refusal goes on the run record too.
      const refused = `Mentions in message ${message.id} woke nobody: the chain of agent replies reached ${maxHops} hops`;
      this.#publish("agent.wake.refused", { messageId: message.id, hop, maxHops, reason: refused });
      return { refused };
    }
    await wakeMentionedAgents(this.env, getDatabase(this.env.DB), { message, spaceName, speaker: { entityId: agent.entityId, name: agent.name }, hop });
    return {};
  }

  #publish(type: string, data: Record<string, unknown>): void {
    const { frame, seq } = this.#log.append({ agentId: this.ctx.id.name, type, at: new Date().toISOString(), data });
    this.#hub.broadcast(seq, frame, frame);
  }

  /** One deadline per plan, keyed by its id: re-arming never duplicates. */
  #plansChanged(changed: PlanSchedule[], deletedIds: string[]): void {
    for (const plan of changed) {
      if (plan.nextRunAt) this.#storage.setDeadline({ id: `plan:${plan.planId}`, kind: "plan", dueAt: Date.parse(plan.nextRunAt), payload: { planId: plan.planId } });
      else this.#storage.deleteDeadline(`plan:${plan.planId}`);
    }
    for (const planId of deletedIds) this.#storage.deleteDeadline(`plan:${planId}`);
    this.#knowledge = undefined;
  }
}
