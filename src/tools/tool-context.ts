/**
 * What the tool layer needs from whoever runs a cycle (the agent object),
 * declared here so tools depend on nothing above them: the agent and its
 * run, its spaces, the channel to them, the agent stream, the journal's view
 * of a call, and the runtime for waits, deadlines and webhooks.
 */
import type { Database } from "../db/client";
import type { AppEnv } from "../env";
import type { KnowledgeContext } from "../knowledge/knowledge-context";
import type { ImageModelConfig } from "../models/image-model-config";
import type { Message } from "../protocol/message";
import type { SpaceEventInput } from "../protocol/space-event";
import type { SpacePort } from "../protocol/space-port";
import type { CallIds } from "./engine/call-ids";
import type { CallStat } from "./engine/call-stats";
import type { PendingCallPort } from "./engine/pending-call-port";
import type { ResponseCache } from "./engine/response-cache";
import type { ToolOutcome } from "./engine/tool-outcome";
import type { ToolDeadline } from "./engine/tool-deadlines";
import type { QueueSettings, ToolQueues } from "./engine/tool-queues";
import type { FilesConfig } from "./builtins/builtin-config";
import type { McpPool } from "./mcp/mcp-pool";
import type { McpServerConfig } from "./mcp/mcp-server-config";
import type { ProviderConfig } from "./providers/provider-config";
import type { AgentTask } from "./subagents/agent-task";
import type { ToolConfig } from "./tool-config";
import type { WebhookEvent } from "../protocol/webhook-event";
import type { ApprovalConfig } from "./wait-policy-config";

export type AgentIdentity = { agentId: string; entityId: string; name: string };

/** The part of an agent's config the tools read. */
export type ToolSettings = {
  tools: ToolConfig[];
  /** Approvals of tools by the name the model calls them (a configured tool's own `approval` wins). */
  approvals?: Record<string, ApprovalConfig>;
  /** Built-in groups (default: the contract's `spaces` and `knowledge`) and tools taken away from them. */
  builtins?: readonly string[];
  deniedTools?: readonly string[];
  /** The folders the file tools may use. */
  files?: FilesConfig;
  /** The model `generate_image` draws with. */
  images?: ImageModelConfig;
  mcp?: { servers: McpServerConfig[] };
  providers?: ProviderConfig[];
  queues?: Record<string, QueueSettings>;
  limits: {
    toolTimeout: number;
    maxConcurrentTools: number;
    toolResponseMaxBytes: number;
    /** The largest whole output a tool may produce (read, stored behind a handle). */
    toolOutputMaxBytes?: number;
    /** How long a stored whole output stays readable (ms). */
    outputRetention?: number;
    contextWindowTokens?: number;
    /** The share of the context window one step's tool outputs may take together. */
    toolOutputContextShare?: number;
  };
};

/** A wake-up the agent object keeps in its alarm table: when due, a `tool_result` event for the call enters the inbox. */
export type WakeLater = {
  /** The inbox event's id (derived from the call, so a call done again never wakes twice). */
  eventId: string;
  dueAt: number;
  toolCallId: string;
  toolName: string;
  runId: string;
  result: unknown;
  hop: number;
};

/** The cycle's structured answer (`final_report`), kept on the run record. */
export type FinalReport = {
  status: "success" | "failure" | "partial";
  format: string;
  content?: string;
  contentJson?: unknown;
  metadata?: Record<string, unknown>;
};

/**
 * A cycle's line to its spaces: events pushed within a short window travel
 * in one batch; a port taken with `ordered` is behind everything pushed so far.
 */
export type SpaceChannel = {
  push(spaceId: string, event: SpaceEventInput): void;
  ordered(spaceId: string): SpacePort;
  /** Tracks a call made on an ordered port, so draining waits for it too. */
  track<T>(call: Promise<T>): Promise<T>;
  drain(): Promise<void>;
};

/** What the agent object lends the tool engine: a pending call's life (the port to its owner), deadlines, webhooks. */
export type ToolRuntime = {
  calls: PendingCallPort;
  setDeadline(deadline: ToolDeadline): void;
  deleteDeadline(id: string): void;
  /**
   * Delivers a call to its webhook, retried with backoff (in memory, and from the alarm after a restart)
   * until the call settles or `giveUpAt` (the call's expiry; a day when it has none) passes.
   */
  sendWebhook(toolCallId: string, url: string, body: string, giveUpAt?: number): void;
  /** Takes a call's `tool_result` event out of the inbox if it is still queued (the cycle got the result another way). */
  takeQueuedResult(toolCallId: string): boolean;
  /** Pushes an event to the webhook subscriptions of the agent and of `spaceIds` (at least once, from the agent object). */
  notify(event: WebhookEvent, spaceIds: readonly string[]): void;
  /** Arms a wake-up (`sleep`); an event id already queued or armed is left as it is. */
  wakeLater(wake: WakeLater): void;
  /** MCP connections and tool lists, kept across cycles by the agent object. */
  mcp: McpPool;
  /** Named queues, spanning the agent's cycles. */
  queues: ToolQueues;
  /** The response cache, spanning the agent's cycles. */
  cache: ResponseCache;
  /** Call statistics (kept by the agent object). */
  recordCall(stat: CallStat): void;
  /**
   * Puts a task in another agent's inbox (a sub-agent call), idempotent by the
   * call id. Says why when the agent cannot take it.
   */
  delegate(agentId: string, task: AgentTask): Promise<{ ok: true } | { ok: false; error: string }>;
};

/** What the cycle's journal tells a tool about its own call (set when the call is done again after a restart). */
export type CallJournal = {
  /** When the call first started and whether it was announced, if it ran before. */
  previous(toolCallId: string): { startedAt: number; announced: boolean } | undefined;
  markAnnounced(toolCallId: string): void;
  /** The outcome the journal already holds for a call (a result delivered before the cycle began to wait). */
  outcome(toolCallId: string): ToolOutcome | undefined;
  /** The space card a call posted (and whether it is minimal), recorded so a failed run can close it as it was shown. */
  markCard(toolCallId: string, spaceId: string, minimal: boolean): void;
  /** This cycle waits for another pending call (an approval): its outcome comes to the cycle, not the inbox. */
  openWait(pendingId: string, argsSchema?: Record<string, unknown>): void;
  /** Stops waiting: an outcome that has not come yet goes to the inbox when it does. */
  closeWait(pendingId: string): void;
};

export type ToolContext = {
  env: AppEnv;
  database: Database;
  agent: AgentIdentity;
  config: ToolSettings;
  runId: string;
  /** How many agent cycles led to this one (a person's message is 0). */
  hop: number;
  /** The entity whose message started the run, if one did (for `answeredBy: "initiator"`). */
  initiatorEntityId?: string;
  /** A signed, expiring URL that answers a pending call with one POST (no key needed). */
  callbackUrl(pendingId: string, expiresAt?: string): Promise<string>;
  /** How deep in sub-agent calls this cycle is (0: not working on another agent's task). */
  depth: number;
  /** The step of the cycle being run (the context budget is per step). */
  stepNumber(): number;
  /** Whether the agent's model takes images and audio in tool results (else they are described in text). */
  mediaToolResults: boolean;
  knowledge: KnowledgeContext;
  /** Spaces the agent belonged to when the cycle started (id → name). */
  spaces: Map<string, string>;
  getActiveSpaceId(): string | undefined;
  setActiveSpaceId(spaceId: string | undefined): void;
  spaceEvents: SpaceChannel;
  /** Events on the agent's own stream. */
  publish(type: string, data: Record<string, unknown>): void;
  /** Gateway ids of the model's calls. */
  callIds: CallIds;
  journal: CallJournal;
  /** Membership check: the start-of-cycle list, then D1 for spaces joined since. */
  isMemberOf(spaceId: string): Promise<boolean>;
  /** Tells the agent object its goals/memories/plans changed (prompt cache). */
  knowledgeChanged(): void;
  /**
   * Resolves once the cycle has seen a call's complete input and passed every
   * streamed delta to the observers (so a tool's final event never overtakes
   * its streaming events). Keyed by the model's call id.
   */
  inputSettled(modelToolCallId: string): Promise<void>;
  /** Wakes the agents a message mentions (a reply one hop further). */
  wakeMentioned(message: Message): Promise<void>;
  toolRuntime: ToolRuntime;
  /** Tells `inputSettled` a call's input is complete (calls made by `batch`, which never stream). */
  markInputSettled(modelToolCallId: string): void;
  /**
   * Runs a call `batch` makes through the cycle's tool pipeline, under `toolCallId`
   * (derived from the batch call's): the gate refuses it when it needs approval.
   */
  runBatched(call: { toolName: string; input: unknown; modelToolCallId: string; toolCallId: string; abortSignal?: AbortSignal }): Promise<ToolOutcome>;
  /** Keeps the cycle's `final_report` on its run record (the same call reported again changes nothing). */
  reportFinal(toolCallId: string, report: FinalReport): void;
  /** Set on the reflection pass that follows a cycle (notes tools only; it never wakes anyone). */
  reflection?: boolean;
};
