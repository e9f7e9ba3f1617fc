/**
 * Draws a space's timeline (messages, streaming drafts, tool cards, failed
 * runs) and keeps it current with few DOM changes: each item is keyed by its
 * id and redrawn only when its content changed, so a form someone is filling
 * in is never wiped by an unrelated event. Under it, the status line: who is
 * thinking, or whom an agent waits for. A card that asks the signed-in person
 * takes the keyboard focus when it arrives (unless they are typing elsewhere).
 */
import type { SpaceMember, SpaceState, SpaceTool, TimelineItem, TimelineMessage } from "../../client/src/index";
import { h } from "./dom";
import { renderMarkdown } from "./markdown";
import { toolCard } from "./tool-cards";
import { answerPermission, waitingFor } from "./who-may-answer";

export type TimelineContext = {
  me: string;
  members: Map<string, SpaceMember>;
  tools: SpaceTool[];
  /** Goes up when members (names, roles) or tools were read again: cards that depend on them are redrawn. */
  revision: number;
  spaceNameOf(spaceId: string): string;
  answer(message: TimelineMessage, toolCallId: string, result: unknown): Promise<void>;
  decline(message: TimelineMessage, toolCallId: string, reason: string): Promise<void>;
  /** The signed-in person's one-time link that connects the account a card asks them for. */
  connectLink(flowId: string): Promise<{ startUrl: string }>;
};

type Drawn = { signature: string; element: HTMLElement };

export class TimelineView {
  readonly element = h("ol", { class: "timeline", "aria-live": "polite" });
  readonly thinking = h("div", { class: "thinking", role: "status", "aria-live": "polite" });
  #drawn = new Map<string, Drawn>();
  /** Cards that asked the signed-in person already (focus goes to each once). */
  #asked = new Set<string>();

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
        if (drawn) replaceKeepingFocus(drawn.element, element);
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
    this.thinking.textContent = this.#statusLine(state);
    this.#focusNewCard();
  }

  /** "Ada is thinking…", or "Demo agent is waiting for you" while its run waits on a card (and whom it waits for, when not the viewer). */
  #statusLine(state: SpaceState): string {
    const viewer = { entityId: this.context.me, members: this.context.members };
    const thinking: string[] = [];
    const waiting: string[] = [];
    for (const [agentEntityId, runId] of state.thinking) {
      const cards = state.pendingCalls.filter(({ message, part }) => message.entityId === agentEntityId && (part.runId === undefined || part.runId === runId));
      if (cards.length === 0) {
        thinking.push(this.nameOf(agentEntityId));
        continue;
      }
      const whom = [...new Set(cards.map(({ part }) => waitingFor(part, viewer)))].sort((a, b) => Number(b === "you") - Number(a === "you"));
      waiting.push(`${this.nameOf(agentEntityId)} is waiting for ${whom.join(" and ")}`);
    }
    if (thinking.length > 0) waiting.push(`${thinking.join(", ")} ${thinking.length === 1 ? "is" : "are"} thinking…`);
    return waiting.join(" · ");
  }

  /** The newest card that asks the signed-in person and has not asked before gets the focus, on its first field. */
  #focusNewCard(): void {
    let newest: HTMLElement | undefined;
    for (const card of this.element.querySelectorAll<HTMLElement>('.tool-card[data-status="requires_action"][data-can-answer="true"]:not(.streaming)')) {
      const id = card.dataset.toolCallId ?? "";
      if (this.#asked.has(id)) continue;
      this.#asked.add(id);
      newest = card;
    }
    if (!newest || typingElsewhere(newest)) return;
    const field = [...newest.querySelectorAll<HTMLElement>("input, select, textarea, button, summary")].find((candidate) => candidate.getClientRects().length > 0);
    field?.focus();
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
                entityType: (entityId) => this.context.members.get(entityId)?.type,
                spaceNameOf: (spaceId) => this.context.spaceNameOf(spaceId),
                answer: (result) => this.context.answer(message, part.toolCallId, result),
                decline: (reason) => this.context.decline(message, part.toolCallId, reason),
                connectLink: (flowId) => this.context.connectLink(flowId),
              }),
        ),
      );
    }
    return h(
      "li",
      { class: classes, "data-seq": item.seq, "data-message-id": message.id },
      who,
      h("div", { class: "text" }, renderMarkdown(message.text ?? ""), message.draft ? h("span", { class: "cursor", "aria-hidden": "true" }, "▍") : null),
    );
  }
}

/** Swaps a redrawn item in; a field that had the focus in the old one has it again in the new one (found by its name). */
function replaceKeepingFocus(old: HTMLElement, next: HTMLElement): void {
  const focused = document.activeElement instanceof HTMLElement && old.contains(document.activeElement) ? document.activeElement.getAttribute("name") : null;
  old.replaceWith(next);
  if (focused) next.querySelector<HTMLElement>(`[name="${CSS.escape(focused)}"]`)?.focus();
}

/** Whether the person is in the middle of something the focus must not be taken from: text typed but not sent, or another card's form. */
function typingElsewhere(card: HTMLElement): boolean {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || card.contains(active)) return false;
  if (active.closest(".tool-card")) return true;
  return (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) && active.value.trim() !== "";
}
