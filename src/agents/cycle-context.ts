/**
 * What one cycle knows while it runs: who the agent is, its config, its run,
 * its spaces, and the channels it reports through. Tools receive this.
 */
import type { Database } from "../db/client";
import type { AppEnv } from "../env";
import type { SpaceEventBuffer } from "../spaces/space-event-buffer";
import type { ToolWaiters } from "../tools/engine/tool-waiters";
import type { AgentConfig } from "./agent-config";
import type { Deadline } from "./agent-storage";
import type { KnowledgeContext } from "./knowledge/knowledge-context";

export type AgentIdentity = { agentId: string; entityId: string; name: string };

/** What the agent object lends the tool engine: waits, deadlines, webhooks. */
export type ToolRuntime = {
  waiters: ToolWaiters;
  setDeadline(deadline: Deadline): void;
  deleteDeadline(id: string): void;
  /** Delivers a call to its webhook, retrying with backoff (in memory, and from the alarm after a restart). */
  sendWebhook(toolCallId: string, url: string, body: string): void;
};

export type CycleContext = {
  env: AppEnv;
  database: Database;
  agent: AgentIdentity;
  config: AgentConfig;
  runId: string;
  knowledge: KnowledgeContext;
  /** Spaces the agent belonged to when the cycle started (id → name). */
  spaces: Map<string, string>;
  getActiveSpaceId(): string | undefined;
  setActiveSpaceId(spaceId: string | undefined): void;
  /** Space events, batched per space and delivered in order. */
  spaceEvents: SpaceEventBuffer;
  /** Events on the agent's own stream. */
  publish(type: string, data: Record<string, unknown>): void;
  /** The message id announced while a `send_message` call streams, by tool call id. */
  streamIds: Map<string, string>;
  /** Membership check: the start-of-cycle list, then D1 for spaces joined since. */
  isMemberOf(spaceId: string): Promise<boolean>;
  /** Tells the agent object its goals/memories/plans changed (prompt cache). */
  knowledgeChanged(): void;
  /**
   * Resolves once the cycle has seen a call's complete input and passed every
   * streamed delta to the observers (so a tool's final event never overtakes
   * its streaming events).
   */
  inputSettled(toolCallId: string): Promise<void>;
  toolRuntime: ToolRuntime;
};
