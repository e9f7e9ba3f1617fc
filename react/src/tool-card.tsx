/**
 * Tool cards drawn by your components: a registry maps a tool's name to a
 * component (`byName`, or `by_name`: both spellings are taken), and
 * `Fallback` draws every other tool (default: `DefaultToolCard`).
 *
 *   <ToolCards message={message} tools={{ by_name: { ask_feedback: FeedbackCard }, Fallback: DefaultToolCard }} />
 *
 * A component gets the card (`call`), its message, and whether the signed-in
 * person may answer it now (`canAnswer`; else `waitingFor` says who may); it
 * answers with `useToolResult(call.toolCallId)`.
 */
import type { TimelineMessage, ToolCallPart } from "@switchboard/client";
import { type ComponentType, type ReactNode, useSyncExternalStore } from "react";
import { answerPermission, waitsForAnswer } from "./answer-permission.js";
import { DefaultToolCard } from "./default-tool-card.js";
import { useSwitchboardStore } from "./switchboard-context.js";
import { useMe } from "./use-me.js";

export type ToolCardProps = {
  /** The card: the tool call's part of its message (name, arguments as they stream, status, result, who may answer). */
  call: ToolCallPart;
  message: TimelineMessage;
  /** The card waits for an answer (`requires_action`, stored) and the signed-in person may give it. */
  canAnswer: boolean;
  /** When the card waits for someone else: who may answer it ("Only Ada", "Only members with the role approver"). */
  waitingFor: string | undefined;
};

export type ToolCardComponent = ComponentType<ToolCardProps>;

export type ToolRegistry = {
  /** Components by tool name. */
  byName?: Readonly<Record<string, ToolCardComponent>>;
  /** The same, spelt `by_name` (`tools.by_name`); `byName` is looked at first. */
  by_name?: Readonly<Record<string, ToolCardComponent>>;
  /** Draws every tool the names above do not (default: `DefaultToolCard`). */
  Fallback?: ToolCardComponent;
};

/** The tool cards of one message (none: nothing). */
export function ToolCards({ message, tools }: { message: TimelineMessage; tools?: ToolRegistry }): ReactNode {
  const calls = (message.parts ?? []).filter((part): part is ToolCallPart => part.type === "tool_call");
  return calls.map((call) => <ToolCard key={call.toolCallId} call={call} message={message} tools={tools} />);
}

/** One card, drawn by the component the registry names for its tool. */
export function ToolCard({ call, message, tools }: { call: ToolCallPart; message: TimelineMessage; tools?: ToolRegistry }): ReactNode {
  const store = useSwitchboardStore("ToolCard");
  const space = store.space(message.spaceId);
  const members = useSyncExternalStore(space.subscribeMembers, space.getMembers, space.getMembers);
  const { me } = useMe();
  // Until the provider knows who signed in, nobody may answer and nobody is named.
  const permission = waitsForAnswer(call, message.draft) && me ? answerPermission(call, me.entity.id, members) : undefined;
  const Component = componentFor(tools, call.toolName);
  return <Component call={call} message={message} canAnswer={permission?.ok === true} waitingFor={permission?.ok === false ? permission.who : undefined} />;
}

/** The registry's component for a tool: by name (own keys only: a tool named `constructor` is no method), else the fallback. */
export function componentFor(tools: ToolRegistry | undefined, toolName: string): ToolCardComponent {
  for (const byName of [tools?.byName, tools?.by_name]) if (byName && Object.hasOwn(byName, toolName)) return byName[toolName];
  return tools?.Fallback ?? DefaultToolCard;
}
