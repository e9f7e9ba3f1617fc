/**
 * Inbox events (docs/agents.md): what wakes an agent. `hop` counts how many
 * agent cycles led to an event (a person's message is 0, an agent's reply or
 * a tool calling the gateway back is one more), so loops stop at a bound.
 * `reflection` is the agent's own follow-up after a cycle (never from outside).
 */
import { z } from "@hono/zod-openapi";
import { AgentTaskEvent } from "../protocol/agent-task";

const hop = z.number().int().min(0).max(1_000).optional();
/** The W3C `traceparent` of the request that caused the event (checked where it came in): the run it starts is in that trace. */
const traceparent = z.string().max(64).optional();

export const SpaceMessageEvent = z.object({
  type: z.literal("space_message"),
  spaceId: z.string(),
  spaceName: z.string().optional(),
  messageId: z.string(),
  seq: z.number().int(),
  entityId: z.string(),
  entityName: z.string().optional(),
  text: z.string(),
  mentions: z.array(z.string()).optional(),
  hop,
  traceparent,
});

export const ToolResultEvent = z.object({
  type: z.literal("tool_result"),
  toolCallId: z.string(),
  toolName: z.string(),
  runId: z.string(),
  result: z.unknown(),
  /** Set when the call expired before anyone answered. */
  error: z.string().optional(),
  hop,
  /** The W3C `traceparent` of the call's span (kept with the pending call): the run this result wakes links to it. */
  traceparent,
});

export const PlanDueEvent = z.object({
  type: z.literal("plan_due"),
  planId: z.string(),
  name: z.string(),
  instruction: z.string(),
  dueAt: z.string(),
});

export const ExternalEvent = z.object({ type: z.literal("external"), data: z.unknown(), hop, traceparent });

/** Queued by the agent itself after a cycle that did real work (config `reflection`): a notes-only pass runs on it, alone. */
export const ReflectionEvent = z.object({ type: z.literal("reflection"), runId: z.string() });

/** `agent_task`: another agent gave this one a task (a sub-agent call); its final answer goes back to that call. */
export { AgentTaskEvent };

export const InboxEvent = z.discriminatedUnion("type", [SpaceMessageEvent, ToolResultEvent, PlanDueEvent, ExternalEvent, ReflectionEvent, AgentTaskEvent]);

export type InboxEvent = z.infer<typeof InboxEvent>;

/** An inbox event as stored: with its id and arrival time. */
export type QueuedEvent = { id: string; receivedAt: string; attempts: number; event: InboxEvent };
