/**
 * The system prompt of a cycle: the agent's own `system`, who it is, its
 * spaces and active space, its goals, memories and plans, how its tools
 * behave, and a summary of this cycle's inbox.
 */
import type { AgentIdentity } from "../tools";
import type { Goal } from "../knowledge/goals";
import type { Memory } from "../knowledge/memories";
import type { Plan } from "../knowledge/plans";
import type { QueuedEvent } from "./inbox-event";

export type PromptInput = {
  system?: string;
  description?: string;
  agent: AgentIdentity;
  spaces: { id: string; name: string }[];
  activeSpaceId: string | undefined;
  goals: Goal[];
  memories: Memory[];
  plans: Plan[];
  events: QueuedEvent[];
  now: Date;
  /** The agent's `limits.toolResponseMaxBytes`: the cap on each inbox payload the model sees. */
  maxEventChars?: number;
  /** The built-ins the agent has (`describeBuiltins`); absent: `spaces` and `knowledge`, as before the catalogue. */
  builtins?: { groups: ReadonlySet<string>; names: ReadonlySet<string>; sections: string[] };
  /** What tool providers ask to be said (MCP servers' `instructions`, a provider's `instructions`). */
  providerInstructions?: { provider: string; kind: string; text: string }[];
};

function section(title: string, lines: string[]): string {
  return `## ${title}\n${lines.length > 0 ? lines.join("\n") : "(none)"}`;
}

/** Inbox payloads (tool results, external data) shown to the model are cut to this many characters by default. */
export const defaultMaxEventChars = 16_000;

function clip(value: unknown, maxChars: number): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}… [${text.length - maxChars} more characters cut]`;
}

export function describeEvent(queued: QueuedEvent, maxChars = defaultMaxEventChars): string {
  const event = queued.event;
  switch (event.type) {
    case "space_message":
      return `space_message in "${event.spaceName ?? event.spaceId}" (${event.spaceId}) from ${event.entityName ?? "?"} (${event.entityId}): ${JSON.stringify(event.text)}${event.mentions?.length ? ` mentions: ${event.mentions.join(", ")}` : ""}`;
    case "tool_result":
      return `tool_result for ${event.toolName} (callId ${event.toolCallId}, run ${event.runId}): ${event.error ? `error: ${event.error}` : clip(event.result, maxChars)}`;
    case "plan_due":
      return `plan_due "${event.name}" (due ${event.dueAt}): ${event.instruction}`;
    case "external":
      return `external: ${clip(event.data, maxChars)}`;
    case "reflection":
      return `reflection on run ${event.runId}: write what you learned into your notes`;
    case "agent_task":
      return `agent_task from agent "${event.fromName}" (${event.fromEntityId}, callId ${event.toolCallId}): ${clip(event.task, maxChars)}. Work on it; your final answer (the text of your last step) goes back to "${event.fromName}" when this cycle ends.`;
  }
}

export function buildSystemPrompt(input: PromptInput): string {
  const active = input.spaces.find((space) => space.id === input.activeSpaceId);
  const has = (group: string) => input.builtins === undefined || input.builtins.groups.has(group);
  const hasTool = (name: string) => input.builtins === undefined || input.builtins.names.has(name);
  const parts = [
    input.system?.trim() || "You are a helpful agent.",
    section("Who you are", [
      `You are the agent "${input.agent.name}" (entity id ${input.agent.entityId}).`,
      ...(input.description ? [input.description] : []),
      `The time is ${input.now.toISOString()}.`,
    ]),
    ...(has("spaces")
      ? [
          section(
            "Your spaces",
            input.spaces.map((space) => `- "${space.name}" (id ${space.id})${space.id === input.activeSpaceId ? " ← active" : ""}`),
          ),
          `Active space: ${active ? `"${active.name}" (${active.id})` : "none. Call enter_space before send_message or any visible tool."}`,
        ]
      : []),
    ...(has("knowledge")
      ? [
          section(
            "Goals",
            input.goals.map((goal) => `- [${goal.isCompleted ? "x" : " "}] (${goal.id}, priority ${goal.priority}${goal.isLongTerm ? ", long-term" : ""}) ${goal.description}`),
          ),
          section(
            "Memories",
            input.memories.map((memory) => `- ${memory.key}: ${memory.value}`),
          ),
          section(
            "Plans",
            input.plans.map((plan) => `- "${plan.name}" next ${plan.nextRunAt ?? "never (done)"}: ${plan.instruction}`),
          ),
        ]
      : []),
    ...(input.builtins?.sections ?? []),
    section("How you work", [
      "You live in cycles: each cycle you are woken by new inbox events (the latest user message lists them) and act with tools.",
      ...(hasTool("send_message")
        ? [`People only see what you send with send_message into your active space.${hasTool("skip") ? " Use skip when there is nothing to do." : ""}`]
        : hasTool("skip")
          ? ["Use skip when there is nothing to do."]
          : []),
      `Tool results that say pending arrive later as tool_result events in your inbox${hasTool("wait_for_results") ? ", or wait for them now with wait_for_results" : ""}.`,
    ]),
    ...(input.providerInstructions?.length
      ? [
          section(
            "Tool providers",
            input.providerInstructions.map((entry) => `### ${entry.provider} (${entry.kind})\n${entry.text}`),
          ),
        ]
      : []),
    section(
      "Inbox this cycle",
      input.events.map((queued) => `- ${describeEvent(queued, Math.min(2_000, input.maxEventChars ?? defaultMaxEventChars))}`),
    ),
  ];
  return parts.join("\n\n");
}

/** The user message that records this cycle's inbox in the consciousness. */
export function inboxMessage(events: QueuedEvent[], now: Date, maxEventChars = defaultMaxEventChars): string {
  return [`[inbox at ${now.toISOString()}: ${events.length} event${events.length === 1 ? "" : "s"}]`, ...events.map((queued) => `- ${describeEvent(queued, maxEventChars)}`)].join(
    "\n",
  );
}
