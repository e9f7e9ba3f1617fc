/**
 * A task one agent gives another (a sub-agent call): the `agent_task` inbox
 * event. Its id derives from the caller's gateway call id
 * (`evt_task_<callId>`), so delivering it again never queues it twice; the
 * answer goes back to that call through the caller's object.
 */
import { z } from "@hono/zod-openapi";

export const AgentTaskEvent = z.object({
  type: z.literal("agent_task"),
  /** The caller's gateway call id: where the answer goes. */
  toolCallId: z.string(),
  toolName: z.string(),
  fromAgentId: z.string(),
  fromEntityId: z.string(),
  fromName: z.string(),
  /** The caller's run: the new run's parent (absent from tasks given before runs named their parents). */
  fromRunId: z.string().optional(),
  task: z.string(),
  /** 1 for a task from an agent no one gave a task; one more for each agent in between. */
  depth: z.number().int().min(1).max(64),
  hop: z.number().int().min(0).max(1_000).optional(),
  /** The caller's tool span (W3C `traceparent`), when the caller traces: the task's run is a child of it. */
  traceparent: z.string().max(64).optional(),
  /**
   * Parts of the caller's config the task's run uses instead of the receiving agent's own (a sub-agent
   * tool's `inherit`), as the caller had them. Taken as objects here and checked by the receiving agent,
   * with its own config's schemas, when the run starts: a value that does not pass fails that run, and
   * so the task, saying why (an inbox event that does not parse is never worked on, so never answered).
   */
  inherited: z
    .object({
      model: z.record(z.string(), z.unknown()).optional(),
      limits: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});

export type AgentTask = z.infer<typeof AgentTaskEvent>;

export const agentTaskEventId = (toolCallId: string) => `evt_task_${toolCallId}`;
