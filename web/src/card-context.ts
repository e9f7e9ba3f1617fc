/**
 * What every card component gets (`ToolCardContext`), and the pieces cards
 * share: the arguments block, the result block, and the lines that say what
 * became of a card (its push failed, reminded, escalated, expired, who may answer).
 */
import type { SpaceTool, TimelineMessage, ToolCallPart } from "../../client/src/index";
import { h, pretty } from "./dom";
import type { AnswerPermission } from "./who-may-answer";

export type ToolCardContext = {
  part: ToolCallPart;
  message: TimelineMessage;
  /** The tool's configuration as `GET /api/spaces/:id/tools` gives it, when known. */
  tool?: SpaceTool;
  agentName: string;
  /** Whether the signed-in person may answer this card (its `answeredBy`), and if not, who may. */
  permission: AnswerPermission;
  /** A member's name (the id when unknown). */
  nameOf(entityId: string): string;
  /** A member's kind (undefined when not a member now). */
  entityType(entityId: string): "human" | "agent" | "service" | undefined;
  /** A space's name, when the signed-in person is in it (else its id). */
  spaceNameOf(spaceId: string): string;
  /** Answers the call as the signed-in person; rejects with the gateway's error. */
  answer(result: unknown): Promise<void>;
  /** Says no as the signed-in person: the call ends in error with `reason` (the agent sees it), and the card shows it declined. */
  decline(reason: string): Promise<void>;
  /** The signed-in person's one-time link that connects the account a card asks them for (`part.account.flowId`). */
  connectLink(flowId: string): Promise<{ startUrl: string }>;
};

/** Draws the body of a card (the frame with name and status is drawn around it). */
export type ToolComponent = (context: ToolCardContext) => HTMLElement;

export function argumentsBlock(part: ToolCallPart, streaming: boolean, caption = "arguments"): HTMLElement | null {
  if (part.args === undefined) return null;
  return h(
    "div",
    { class: "tool-args" },
    h("div", { class: "caption" }, streaming ? `${caption} (streaming)` : caption),
    h("pre", {}, pretty(part.args), streaming ? h("span", { class: "cursor" }, "▍") : null),
  );
}

/** The result, or the error under `errorCaption` ("declined" when a person said no). */
export function resultBlock(part: ToolCallPart, errorCaption = "error"): HTMLElement | null {
  if (part.result === undefined || part.status === "running" || part.status === "requires_action") return null;
  const error = typeof part.result === "object" && part.result !== null && "error" in part.result ? (part.result as { error: unknown }).error : undefined;
  if (part.status === "error" || error !== undefined) {
    return h("div", { class: "tool-error" }, h("div", { class: "caption" }, errorCaption), h("pre", {}, pretty(error ?? part.result)));
  }
  return h("div", { class: "tool-result" }, h("div", { class: "caption" }, "result"), h("pre", {}, pretty(part.result)));
}

/** When a time was, for a person: the local time, with the date when not today. */
export function whenText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const time = date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return date.toDateString() === new Date().toDateString() ? time : `${date.toLocaleDateString()} ${time}`;
}

/** A failed push of the call to its webhook, as the card says it: the attempt, why (when the viewer may see it), and what comes next. */
export function pushFailureText(failure: NonNullable<ToolCallPart["pushFailure"]>): string {
  const why = failure.error ? `: ${failure.error}` : "";
  return `Pushing this call to its webhook failed (attempt ${failure.attempt}, ${whenText(failure.at)})${why}. ${failure.willRetry ? "Trying again." : "No more attempts."}`;
}

/** What became of the card, one line each: its push failed, brought up again, moved from or to another space, expired, who may answer it. */
export function cardNotes(context: ToolCardContext, verb = "answer"): HTMLElement | null {
  const { part, permission } = context;
  const lines: HTMLElement[] = [];
  if (part.pushFailure) lines.push(h("li", { class: "note-push-failed", role: "status" }, pushFailureText(part.pushFailure)));
  if (part.escalatedFrom) lines.push(h("li", { class: "note-escalated" }, `Escalated here: nobody answered in ${context.spaceNameOf(part.escalatedFrom)} in time.`));
  if (part.remindedAt && part.status === "requires_action") lines.push(h("li", { class: "note-reminded" }, `Reminder: brought up again at ${whenText(part.remindedAt)}.`));
  if (part.escalatedTo) lines.push(h("li", { class: "note-escalated" }, `Nobody answered in time: moved to ${context.spaceNameOf(part.escalatedTo)}.`));
  if (part.expiredAt) lines.push(h("li", { class: "note-expired" }, `Expired at ${whenText(part.expiredAt)} without an answer.`));
  if (part.status === "requires_action" && !permission.ok) lines.push(h("li", { class: "who-may-answer" }, `${permission.who} may ${verb} this.`));
  return lines.length > 0 ? h("ul", { class: "card-notes" }, lines) : null;
}
