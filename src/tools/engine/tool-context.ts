/**
 * What the tool layer needs from whoever runs a cycle (the agent object),
 * declared here so tools depend on nothing above them. It comes in
 * capabilities, each a few members: who is calling (`RunIdentity`), the
 * deployment's bindings (`PlatformAccess`), the agent's settings, its spaces,
 * its knowledge, the journal's view of a call, the agent stream, the runtime
 * the agent object lends (waits, deadlines, webhooks, MCP, queues), and what
 * the cycle does for a tool (`CycleAccess`). `ToolContext` is all of them; a
 * function takes the intersection of those it uses, so its signature says
 * what it touches.
 */
import type { Database } from "../../db/client";
import type { AppEnv } from "../../env";
import type { KnowledgeAccess } from "../../knowledge/knowledge-context";
import type { ImageModelConfig } from "../../models/image-model-config";
import type { ModelConfig } from "../../models/model-config";
import type { Message } from "../../protocol/message";
import type { SpaceEventInput } from "../../protocol/space-event";
import type { SpacePort } from "../../protocol/space-port";
import type { CallIds } from "./call-ids";
import type { CallStat } from "./call-stats";
import type { PendingCallPort } from "./pending-call-port";
import type { ResponseCache } from "./response-cache";
import type { ToolOutcome } from "./tool-outcome";
import type { ToolDeadline } from "./tool-deadlines";
import type { QueueSettings, ToolQueues } from "./tool-queues";
import type { FilesConfig } from "../config/builtin-config";
import type { McpPool } from "../mcp/mcp-pool";
import type { McpServerConfig } from "../config/mcp-server-config";
import type { ProviderConfig } from "../config/provider-config";
import type { AgentTask } from "../../protocol/agent-task";
import type { ToolConfig } from "../config/tool-config";
import type { WebhookEvent } from "../../webhooks/webhook-event";
import type { ApprovalConfig } from "../config/wait-policy-config";
import type { WebSearchConfig } from "../config/web-search-config";
import type { ToolCategory } from "../config/tool-categories";
import type { RouterConfig } from "../config/router-config";
import type { SpanParent } from "../../telemetry/tracer";

export type AgentIdentity = { agentId: string; entityId: string; name: string };

/** The part of an agent's config the tools read. */
export type ToolSettings = {
  tools: ToolConfig[];
  /** Approvals of tools by the name the model calls them (a configured tool's own `approval` wins). */
  approvals?: Record<string, ApprovalConfig>;
  /** Other names the model may call a tool by: alias → tool name (`config/tool-aliases.ts`). */
  aliases?: Record<string, string>;
  /** Agents the router may hand a conversation to (`providers/router-provider.ts`). */
  router?: RouterConfig;
  /** Built-in groups (default: `spaces`, `knowledge` and `calls`) and tools taken away from them. */
  builtins?: readonly string[];
  deniedTools?: readonly string[];
  /** The folders the file tools may use. */
  files?: FilesConfig;
  /** The model `generate_image` draws with. */
  images?: ImageModelConfig;
  /** The search API `web_search` asks. */
  webSearch?: WebSearchConfig;
  mcp?: { servers: McpServerConfig[] };
  providers?: ProviderConfig[];
  queues?: Record<string, QueueSettings>;
  /** The model the agent thinks with: a sub-agent tool with `inherit: ["model"]` hands it on with the task. */
  model?: ModelConfig;
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

/** The agent object's deadline table and wake-ups, as tools use them. */
export type DeadlinePort = {
  set(deadline: ToolDeadline): void;
  /** One of the tool engine's deadlines, while it is armed (a call done again after a restart finds what it kept there). */
  get(id: string): ToolDeadline | undefined;
  delete(id: string): void;
  /** Arms a wake-up (`sleep`); an event id already queued or armed is left as it is. */
  wakeLater(wake: WakeLater): void;
};

/** What leaves the agent for others: pushes to webhooks, events for subscriptions, tasks for other agents. */
export type OutboxPort = {
  /**
   * Delivers a call to its webhook, retried with backoff (in memory, and from the alarm after a restart)
   * until the call settles or `giveUpAt` (the call's expiry; a day when it has none) passes.
   */
  sendWebhook(toolCallId: string, url: string, body: string, giveUpAt?: number, traceparent?: string): void;
  /**
   * Pushes an event to the webhook subscriptions of the agent and of `spaceIds`, and to the push configs of
   * the A2A task it concerns (at least once, from the agent object); `tasksOnly`: to the task's alone.
   */
  notify(event: WebhookEvent, spaceIds: readonly string[], tasksOnly?: boolean): void;
  /**
   * Puts a task in another agent's inbox (a sub-agent call), idempotent by the
   * call id. Says why when the agent cannot take it.
   */
  delegate(agentId: string, task: AgentTask): Promise<{ ok: true } | { ok: false; error: string }>;
};

/** What the agent object keeps across cycles for its tools. */
export type KeptPort = {
  /** MCP connections and tool lists. */
  mcp: McpPool;
  /** Named queues, spanning the agent's cycles. */
  queues: ToolQueues;
  /** The response cache. */
  cache: ResponseCache;
  /** Call statistics. */
  recordCall(stat: CallStat): void;
};

/** The agent's own variables (`get_env` / `set_env`), kept in the agent object's storage. */
export type VariablesPort = {
  get(key: string): string | null;
  /** Sets a variable for a call; the same call again answers the same `previous`. */
  set(key: string, value: string, callId: string): { ok: true; previous: string | null } | { ok: false; error: string };
};

/** What the agent object lends the tool engine, in ports of a few members each. */
export type ToolRuntime = {
  /** A pending call's life (its owner is the agent object). */
  calls: PendingCallPort;
  deadlines: DeadlinePort;
  outbox: OutboxPort;
  kept: KeptPort;
  /** The agent's inbox: a call's `tool_result` event taken out if still queued (the cycle got the result another way). */
  inbox: { takeQueuedResult(toolCallId: string): boolean };
  variables: VariablesPort;
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

/** Who is calling: the agent, its run and how it came to run. */
export type RunIdentity = {
  agent: AgentIdentity;
  runId: string;
  /** How many agent cycles led to this one (a person's message is 0). */
  hop: number;
  /** How deep in sub-agent calls this cycle is (0: not working on another agent's task). */
  depth: number;
  /** The entity whose message started the run, if one did (for `answeredBy: "initiator"`). */
  initiatorEntityId?: string;
  /** Set on the reflection pass that follows a cycle (notes tools only; it never wakes anyone). */
  reflection?: boolean;
};

/** The deployment's bindings: the env (R2, secrets, vars) and D1. */
export type PlatformAccess = { env: AppEnv; database: Database };

/** What the agent's config says to the tools, and what its model takes. */
export type SettingsAccess = {
  config: ToolSettings;
  /** Whether the agent's model takes images and audio in tool results (else they are described in text). */
  mediaToolResults: boolean;
};

/** The agent's spaces: which, the active one, the channel to them, and waking the agents a message mentions. */
export type SpaceAccess = {
  /** Spaces the agent belonged to when the cycle started (id → name). */
  spaces: Map<string, string>;
  getActiveSpaceId(): string | undefined;
  setActiveSpaceId(spaceId: string | undefined): void;
  /** Membership check: the start-of-cycle list, then D1 for spaces joined since. */
  isMemberOf(spaceId: string): Promise<boolean>;
  spaceEvents: SpaceChannel;
  /** Wakes the agents a message mentions (a reply one hop further). */
  wakeMentioned(message: Message): Promise<void>;
};

export type { KnowledgeAccess };

/** The cycle's bookkeeping of its calls: the journal, gateway ids, the step, and when a call's streamed input is complete. */
export type JournalAccess = {
  journal: CallJournal;
  /** Gateway ids of the model's calls. */
  callIds: CallIds;
  /** The step of the cycle being run (the context budget is per step). */
  stepNumber(): number;
  /**
   * Resolves once the cycle has seen a call's complete input and passed every
   * streamed delta to the observers (so a tool's final event never overtakes
   * its streaming events). Keyed by the model's call id.
   */
  inputSettled(modelToolCallId: string): Promise<void>;
  /** Tells `inputSettled` a call's input is complete (calls made by `batch`, which never stream). */
  markInputSettled(modelToolCallId: string): void;
};

/** Events on the agent's own stream. */
export type StreamAccess = { publish(type: string, data: Record<string, unknown>): void };

/** What the agent object lends across cycles, and the links that answer a pending call. */
export type RuntimeAccess = {
  toolRuntime: ToolRuntime;
  /** A signed, expiring URL that answers a pending call with one POST (no key needed). */
  callbackUrl(pendingId: string, expiresAt?: string): Promise<string>;
  /** Where people reach the gateway (`PUBLIC_URL`, else the origin requests came in on), when known. */
  publicOrigin?(): string | undefined;
};

/** What the cycle does for a tool: run a call `batch` makes, keep the final report. */
export type CycleAccess = {
  /**
   * Runs a call `batch` makes through the cycle's tool pipeline, under `toolCallId`
   * (derived from the batch call's): the gate refuses it when it needs approval.
   */
  runBatched(call: { toolName: string; input: unknown; modelToolCallId: string; toolCallId: string; abortSignal?: AbortSignal }): Promise<ToolOutcome>;
  /** Keeps the cycle's `final_report` on its run record (the same call reported again changes nothing). */
  reportFinal(toolCallId: string, report: FinalReport): void;
  /** The cycle's tools as the model is offered them, each with its category (`list_by_category`). */
  listTools?(): ToolListing[];
};

/** One of the cycle's tools as `list_by_category` shows it. */
export type ToolListing = { name: string; category: ToolCategory; description: string };

/** Where the spans of the cycle's calls go: under the run's root span (a no-op when tracing is off or the context has none). */
export type TraceAccess = { trace?: SpanParent };

/** Everything a cycle lends its tools: what a tool of any provider may use. */
export type ToolContext = RunIdentity & PlatformAccess & SettingsAccess & SpaceAccess & KnowledgeAccess & JournalAccess & StreamAccess & RuntimeAccess & CycleAccess & TraceAccess;
