/**
 * Draws a space's timeline (messages, streaming drafts, tool cards, failed
 * runs) and keeps it current with few DOM changes: each item is keyed by its
 * id and redrawn only when its content changed, so a form someone is filling
 * in is never wiped by an unrelated event.
 */
import type { SpaceMember, SpaceState, SpaceTool, TimelineItem, TimelineMessage } from "../../client/src/index";
import { h } from "./dom";
import { toolCard } from "./tool-cards";
import { answerPermission } from "./who-may-answer";

export type TimelineContext = {
  me: string;
  members: Map<string, SpaceMember>;
  tools: SpaceTool[];
  /** Goes up when members (names, roles) or tools were read again: cards that depend on them are redrawn. */
  revision: number;
  spaceNameOf(spaceId: string): string;
  answer(message: TimelineMessage, toolCallId: string, result: unknown): Promise<void>;
};

type Drawn = { signature: string; element: HTMLElement };

export class TimelineView {
  readonly element = h("ol", { class: "timeline", "aria-live": "polite" });
  readonly thinking = h("div", { class: "thinking", "aria-live": "polite" });
  #drawn = new Map<string, Drawn>();

  constructor(private readonly context: TimelineContext) {}

  nameOf(entityId: string): string {
    return this.context.members.get(entityId)?.name ?? entityId;
  }

  render(state: SpaceState): void {
    const items = state.timeline;
    const seen = new Set<string>();
    let previous: Element | null = null;
    for (const item of items) {
      const key = item.kind === "message" ? `m:${item.message.id}` : `f:${item.failure.runId}`;
      seen.add(key);
      const signature = this.#signature(item);
      let drawn = this.#drawn.get(key);
      if (!drawn || drawn.signature !== signature) {
        const element = this.#draw(item);
        if (drawn) drawn.element.replaceWith(element);
        drawn = { signature, element };
        this.#drawn.set(key, drawn);
      }
      const expectedNext: Element | null = previous ? previous.nextElementSibling : this.element.firstElementChild;
      if (expectedNext !== drawn.element) {
        if (previous) previous.after(drawn.element);
        else this.element.prepend(drawn.element);
      }
      previous = drawn.element;
    }
    for (const [key, drawn] of this.#drawn) {
      if (!seen.has(key)) {
        drawn.element.remove();
        this.#drawn.delete(key);
      }
    }
    const thinking = [...state.thinking.keys()].map((entityId) => this.nameOf(entityId));
    this.thinking.textContent = thinking.length > 0 ? `${thinking.join(", ")} ${thinking.length === 1 ? "is" : "are"} thinking…` : "";
  }

  #signature(item: TimelineItem): string {
    if (item.kind === "run_failed") return `${item.failure.error}|${this.nameOf(item.failure.agentEntityId)}`;
    const cards = item.message.parts?.some((part) => part.type === "tool_call") ? `|${this.context.revision}` : "";
    return `${JSON.stringify(item.message)}|${this.nameOf(item.message.entityId)}${cards}`;
  }

  #draw(item: TimelineItem): HTMLElement {
    if (item.kind === "run_failed") {
      const { failure } = item;
      return h(
        "li",
        { class: "item run-failed", "data-seq": item.seq, "data-run-id": failure.runId },
        h("strong", {}, `${this.nameOf(failure.agentEntityId)}'s run failed`),
        h("div", { class: "error-text" }, failure.error),
        h("small", {}, failure.runId),
      );
    }
    const { message } = item;
    const mine = message.entityId === this.context.me;
    const member = this.context.members.get(message.entityId);
    const classes = ["item", "message", `role-${message.role}`, mine ? "mine" : "", message.draft ? "draft" : ""].filter(Boolean).join(" ");
    const who = h("div", { class: "who" }, this.nameOf(message.entityId), member?.type === "agent" ? h("span", { class: "tag" }, "agent") : null);
    if (message.parts && message.parts.length > 0) {
      return h(
        "li",
        { class: classes, "data-seq": item.seq, "data-message-id": message.id },
        who,
        message.parts.map((part) =>
          part.type === "image"
            ? h("figure", { class: "image-part" }, h("img", { src: part.url, alt: part.alt ?? "An image", loading: "lazy" }), part.alt ? h("figcaption", {}, part.alt) : null)
            : toolCard({
                part,
                message,
                tool: this.context.tools.find((tool) => tool.name === part.toolName && tool.agentEntityId === message.entityId),
                agentName: this.nameOf(message.entityId),
                permission: answerPermission(part, { entityId: this.context.me, members: this.context.members }),
                nameOf: (entityId) => (entityId === this.context.me ? `${this.nameOf(entityId)} (you)` : this.nameOf(entityId)),
                spaceNameOf: (spaceId) => this.context.spaceNameOf(spaceId),
                answer: (result) => this.context.answer(message, part.toolCallId, result),
              }),
        ),
      );
    }
    return h(
      "li",
      { class: classes, "data-seq": item.seq, "data-message-id": message.id },
      who,
      h("div", { class: "text" }, message.text ?? "", message.draft ? h("span", { class: "cursor" }, "▍") : null),
    );
  }
}
