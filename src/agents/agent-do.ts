/**
 * AgentDO: one per agent. Owns the durable inbox and runs one cycle at a time
 * from its alarm, set to now when an event arrives. The one alarm is
 * multiplexed over a deadline table (plans, tool timeouts, call expiry,
 * webhook retries) and, while a cycle runs, armed as its watchdog: if the
 * object dies, a fresh instance marks the run interrupted and runs its events
 * again. Also serves the agent's own event stream.
 */
import { DurableObject } from "cloudflare:workers";
import { getAgent, type AgentRecord } from "../db/agents";
import { getDatabase } from "../db/client";
import { listSpacesOfEntity } from "../db/spaces";
import type { AppEnv } from "../env";
import { ConnectionHub } from "../streams/connection-hub";
import { MemoryEventLog } from "../streams/memory-event-log";
import { AgentStorage, type Deadline } from "./agent-storage";
import { InboxEvent } from "./inbox-event";
import { listGoals } from "./knowledge/goals";
import type { KnowledgeContext, PlanSchedule } from "./knowledge/knowledge-context";
import { listMemories } from "./knowledge/memories";
import { listPlans } from "./knowledge/plans";
import { nextAlarmAt } from "./next-alarm-at";
import { processDeadlines } from "./process-deadlines";
import { type ActiveRun, recoverInterruptedRun } from "./recover-interrupted-run";
import { type Knowledge, runCycle } from "./run-cycle";
import type { ToolRuntime } from "./cycle-context";
import { expireToolCall } from "../tools/engine/expire-tool-call";
import { settleToolCall, type ToolCallSettlement } from "../tools/engine/settle-tool-call";
import { ToolWaiters } from "../tools/engine/tool-waiters";
import { WebhookSender } from "../tools/engine/webhook-sender";


/** The watchdog alarm fires this long after a cycle's own deadline. */
const watchdogGraceMs = 30_000;

export class AgentDO extends DurableObject<AppEnv> {
  readonly #storage: AgentStorage;
  readonly #log: MemoryEventLog;
  readonly #hub: ConnectionHub;
  #agent: AgentRecord | undefined;
  #knowledge: Knowledge | undefined;
  #spaces: { id: string; name: string }[] | undefined;
  #cycleRunning = false;
  #watchdogAt: number | undefined;
  readonly #waiters = new ToolWaiters();
  readonly #webhooks: WebhookSender;
  readonly #toolRuntime: ToolRuntime;

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.#storage = new AgentStorage(ctx.storage.sql);
    this.#log = new MemoryEventLog(2_000);
    this.#hub = new ConnectionHub(ctx);
    this.#webhooks = new WebhookSender({
      env,
      storage: this.#storage,
      publish: (type, data) => this.#publish(type, data),
      scheduleAlarm: () => this.#scheduleAlarm(),
    });
    this.#toolRuntime = {
      waiters: this.#waiters,
      setDeadline: (deadline) => {
        this.#storage.setDeadline(deadline);
        void this.#scheduleAlarm();
        // The alarm cannot fire while a cycle runs in it: expiry also gets a live timer.
        if (deadline.kind === "call_expiry") this.#expireLater(deadline);
      },
      deleteDeadline: (id) => this.#storage.deleteDeadline(id),
      sendWebhook: (toolCallId, url, body) => this.#webhooks.send(toolCallId, url, body, 1),
    };
    void ctx.blockConcurrencyWhile(() => this.#recoverInterruptedRun());
  }

  // ── RPC ────────────────────────────────────────────────────────────────

  /**
   * Puts an event in the inbox. It is durable when this returns; the alarm
   * starts a cycle. An event id the inbox already holds is ignored.
   */
  async deliver(agentId: string, event: InboxEvent, eventId?: string): Promise<{ eventId: string }> {
    this.#remember(agentId);
    const parsed = InboxEvent.parse(event);
    const id = this.#storage.enqueue(parsed, eventId);
    this.#publish("agent.inbox.received", { eventId: id, event: parsed });
    this.#kick();
    return { eventId: id };
  }

  /**
   * A result was accepted for one of this agent's calls (the route already won
   * the D1 transition). A live waiting cycle gets it at once; otherwise it
   * goes to the inbox as `tool_result`.
   */
  async settleToolCall(agentId: string, settlement: ToolCallSettlement): Promise<{ delivery: "inline" | "inbox" }> {
    this.#remember(agentId);
    const delivery = settleToolCall(settlement, this.#waiters, this.#storage, () => this.#kick());
    if (delivery === "inbox") this.#kick();
    this.#publish("tool.result.received", { toolCallId: settlement.toolCallId, runId: settlement.runId, delivery });
    return { delivery };
  }

  /** Expires a call now (its `expiresAt` has passed); a no-op if it was already settled. */
  async expireToolCall(agentId: string, toolCallId: string): Promise<{ expired: boolean }> {
    this.#remember(agentId);
    const expired = await expireToolCall(this.env, toolCallId, this.#waiters, this.#storage);
    this.#storage.deleteDeadline(`expiry:${toolCallId}`);
    if (expired) this.#kick();
    return { expired };
  }

  /** The agent joined or left a space: its cached space list is stale. */
  async membershipChanged(agentId: string): Promise<void> {
    this.#remember(agentId);
    this.#spaces = undefined;
  }

  /** The config was replaced: reload it, and restart a scripted model's turns. */
  async configReplaced(agentId: string): Promise<void> {
    this.#remember(agentId);
    this.#agent = undefined;
    this.#storage.delete("scripted_turn");
  }

  /** The agent was deleted: forget everything and close its streams. */
  async destroy(): Promise<void> {
    this.#hub.closeAll("agent deleted");
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  /** For tests and the bench: what the inbox holds and which deadlines are armed. */
  inspect(): { pending: number; deadlines: { id: string; kind: string; dueAt: number }[]; activeRun: ActiveRun | undefined; scriptedTurn: number } {
    return {
      pending: this.#storage.pendingEvents().length,
      deadlines: this.#storage.deadlines().map(({ id, kind, dueAt }) => ({ id, kind, dueAt })),
      activeRun: this.#storage.get<ActiveRun>("active_run"),
      scriptedTurn: this.#storage.get<number>("scripted_turn") ?? 0,
    };
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
   * The alarm: due deadlines (plans, expiries, webhook retries, lost waits),
   * then any cycle that is owed. It is also the watchdog: armed while a cycle
   * runs, it wakes a fresh instance after a crash, which recovers the
   * interrupted run.
   */
  override async alarm(): Promise<void> {
    try {
      await this.#processDeadlines();
      await this.#runCycles();
    } finally {
      await this.#scheduleAlarm();
    }
  }

  // ── cycles ─────────────────────────────────────────────────────────────

  /**
   * Owes a cycle: the alarm, set to now, runs it. An alarm is a request of
   * its own (the caller's answer is not held behind the cycle), it may run for
   * minutes, and the runtime retries it if the object dies.
   */
  #kick(): void {
    if (this.#cycleRunning) return;
    void this.ctx.storage.setAlarm(Date.now());
  }

  /** Runs cycles, one at a time, until no inbox event is ready. */
  async #runCycles(): Promise<void> {
    if (this.#cycleRunning) return;
    this.#cycleRunning = true;
    try {
      while (this.#storage.readyCount() > 0) {
        const agent = await this.#loadAgent();
        if (!agent) {
          // The agent is gone: nothing will ever process these events.
          await this.destroy();
          return;
        }
        // If this instance dies mid-cycle, the alarm wakes a new one to recover.
        this.#watchdogAt = Date.now() + agent.config.limits.cycleTimeout + watchdogGraceMs;
        await this.#scheduleAlarm();
        await runCycle({
          env: this.env,
          storage: this.#storage,
          agent,
          loadKnowledge: (knowledge) => this.#loadKnowledge(knowledge),
          loadSpaces: async (database) => {
            this.#spaces ??= (await listSpacesOfEntity(database, agent.entityId)).map(({ id, name }) => ({ id, name }));
            return this.#spaces;
          },
          invalidateKnowledge: () => {
            this.#knowledge = undefined;
          },
          plansChanged: (changed, deletedIds) => this.#plansChanged(changed, deletedIds),
          publish: (type, data) => this.#publish(type, data),
          toolRuntime: this.#toolRuntime,
        });
      }
    } finally {
      this.#cycleRunning = false;
      this.#watchdogAt = undefined;
      await this.#scheduleAlarm();
    }
  }

  // ── internals ──────────────────────────────────────────────────────────

  #expireLater(deadline: Deadline): void {
    const { toolCallId } = deadline.payload as { toolCallId: string };
    const agentId = this.#agentId();
    if (!agentId) return;
    setTimeout(() => {
      this.expireToolCall(agentId, toolCallId).catch((error: unknown) => console.error("expiry failed", toolCallId, error));
    }, Math.max(0, deadline.dueAt - Date.now()));
  }

  #agentId(): string | undefined {
    return this.#storage.get<string>("agent_id");
  }

  #remember(agentId: string): void {
    if (this.#agentId() !== agentId) this.#storage.set("agent_id", agentId);
  }

  async #loadAgent(): Promise<AgentRecord | undefined> {
    const agentId = this.#agentId();
    if (!agentId) return undefined;
    this.#agent ??= await getAgent(getDatabase(this.env.DB), agentId);
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

  #publish(type: string, data: Record<string, unknown>): void {
    const { frame, seq } = this.#log.append({ agentId: this.#agentId(), type, at: new Date().toISOString(), data });
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

  async #processDeadlines(): Promise<void> {
    await processDeadlines({
      env: this.env,
      storage: this.#storage,
      agentId: this.#agentId(),
      waiters: this.#waiters,
      webhooks: this.#webhooks,
      plansChanged: (changed) => this.#plansChanged(changed, []),
    });
  }

  async #scheduleAlarm(): Promise<void> {
    const at = nextAlarmAt({
      now: Date.now(),
      earliestDeadline: this.#storage.earliestDeadline(),
      nextReadyAt: this.#storage.nextReadyAt(),
      cycleRunning: this.#cycleRunning,
      watchdogAt: this.#watchdogAt,
    });
    const current = await this.ctx.storage.getAlarm();
    if (at === undefined) {
      if (current !== null) await this.ctx.storage.deleteAlarm();
    } else if (current !== at) await this.ctx.storage.setAlarm(at);
  }

  async #recoverInterruptedRun(): Promise<void> {
    const runId = await recoverInterruptedRun(this.env, this.#storage);
    if (!runId) return;
    this.#publish("agent.cycle.interrupted", { runId });
    await this.ctx.storage.setAlarm(Date.now());
  }
}
