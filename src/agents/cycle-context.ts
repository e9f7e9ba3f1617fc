/**
 * What one cycle knows while it runs: who the agent is, its config, its run,
 * its spaces, and the channels it reports through. Tools receive this.
 */
import type { Database } from "../db/client";
import type { AppEnv } from "../env";
import type { Message } from "../spaces/message";
import type { SpaceEventBuffer } from "../spaces/space-event-buffer";
import type { CallIds } from "../tools/engine/call-ids";
import type { PendingCallOwner } from "../tools/engine/pending-call-owner";
import type { ToolWaiters } from "../tools/engine/tool-waiters";
import type { AgentConfig } from "./agent-config";
import type { Deadline } from "./agent-storage";
import type { KnowledgeContext } from "./knowledge/knowledge-context";

export type AgentIdentity = { agentId: string; entityId: string; name: string };

/** What the agent object lends the tool engine: waits, the pending-call owner, deadlines, webhooks. */
export type ToolRuntime = {
  waiters: ToolWaiters;
  owner: PendingCallOwner;
  setDeadline(deadline: Deadline): void;
  deleteDeadline(id: string): void;
  /** Delivers a call to its webhook, retrying with backoff (in memory, and from the alarm after a restart). */
  sendWebhook(toolCallId: string, url: string, body: string): void;
};

/** What the cycle's journal tells a tool about its own call (set when the call is done again after a restart). */
export type CallJournal = {
  /** When the call first started and whether it was announced, if it ran before. */
  previous(toolCallId: string): { startedAt: number; announced: boolean } | undefined;
  markAnnounced(toolCallId: string): void;
  /** The space card a call posted, recorded so a failed run can close it. */
  markCard(toolCallId: string, spaceId: string): void;
};

export type CycleContext = {
  env: AppEnv;
  database: Database;
  agent: AgentIdentity;
  config: AgentConfig;
  runId: string;
  /** How many agent cycles led to this one (a person's message is 0). */
  hop: number;
  knowledge: KnowledgeContext;
  /** Spaces the agent belonged to when the cycle started (id → name). */
  spaces: Map<string, string>;
  getActiveSpaceId(): string | undefined;
  setActiveSpaceId(spaceId: string | undefined): void;
  /** Space events, batched per space and delivered in order. */
  spaceEvents: SpaceEventBuffer;
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
};
