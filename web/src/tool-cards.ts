/**
 * Tool cards: how a message's `tool_call` part is drawn, whatever the
 * message's role (`tool`, or `assistant` for a tool whose `display.messageRole`
 * says so). A registry maps a tool's `display.customUI` (first) or its name
 * to a component; anything else gets the generic card, which shows the
 * streamed arguments, the result or the error, and for a call waiting on a
 * person (`requires_action`) a form
 * generated from the tool's `resultSchema` (a one-field reply when it has none).
 * A card the signed-in person may not answer (its `answeredBy`) is read-only
 * and says who may. Approval cards have their own component (`approval-card.ts`),
 * and so do calls waiting for a person to connect an account (`account-card.ts`).
 * `minimal` tools arrive without arguments or results, and show none.
 */
import type { SpaceTool, ToolCallPart } from "../../client/src/index";
import { accountCard } from "./account-card";
import { approvalCard } from "./approval-card";
import { cardBadge } from "./card-badge";
import { argumentsBlock, cardNotes, resultBlock, type ToolCardContext, type ToolComponent } from "./card-context";
import { h } from "./dom";
import { defaultAnswerSchema, schemaForm, type JsonSchema } from "./schema-form";

export type { ToolCardContext, ToolComponent };

const registry = new Map<string, ToolComponent>();

/** Registers a component for a `display.customUI` value or a tool name. */
export function registerToolComponent(key: string, component: ToolComponent): void {
  registry.set(key, component);
}

/** An approval is drawn as one whatever its tool; then `display.customUI`, then the tool's name, then the generic card. */
export function componentFor(part: ToolCallPart, tool?: SpaceTool): ToolComponent {
  if (part.kind === "approval") return approvalCard;
  if (part.account && part.status === "requires_action") return accountCard;
  const customUI = part.customUI ?? tool?.display.customUI;
  return (customUI && registry.get(customUI)) || registry.get(part.toolName) || genericToolCard;
}

/** The card: a frame with the tool's name, who called it and its status, around the component. */
export function toolCard(context: ToolCardContext): HTMLElement {
  const { part, message } = context;
  const body = componentFor(part, context.tool)(context);
  const approval = part.kind === "approval";
  const waitingForOthers = part.status === "requires_action" && !context.permission.ok;
  const badge = cardBadge(context);
  const nameId = `tool-name-${part.toolCallId}`;
  return h(
    "article",
    {
      class: `tool-card status-${part.status}${message.draft ? " streaming" : ""}${approval ? " approval-card" : ""}${waitingForOthers ? " read-only" : ""}`,
      "aria-labelledby": nameId,
      "data-tool-call-id": part.toolCallId,
      "data-tool-name": part.toolName,
      "data-status": part.status,
      "data-tone": badge.tone,
      "data-kind": part.kind,
      "data-can-answer": part.status === "requires_action" ? String(context.permission.ok) : undefined,
    },
    h(
      "header",
      {},
      h("span", { class: "tool-name", id: nameId }, h("span", { "aria-hidden": "true" }, approval ? "☑ " : "⚙ "), part.toolName),
      h("span", { class: "tool-agent" }, ` · ${context.agentName}`),
      h("span", { class: `badge badge-${badge.tone}`, "data-tone": badge.tone }, badge.text),
    ),
    body,
  );
}

/** A form that answers the call, with Send and Decline, and the gateway's refusal shown if any. */
export function answerForm(context: ToolCardContext, schema: JsonSchema): HTMLElement {
  const form = schemaForm(schema);
  const problems = h("div", { class: "problems", role: "alert" });
  const send = h("button", { type: "submit", class: "primary" }, "Send answer");
  const decline = h("button", { type: "button", class: "secondary" }, "Decline");
  const submit = async (result: unknown) => {
    send.disabled = decline.disabled = true;
    problems.textContent = "";
    try {
      await context.answer(result);
      element.replaceChildren(h("p", { class: "sent" }, "Answer sent."));
    } catch (error) {
      problems.textContent = (error as Error).message;
      send.disabled = decline.disabled = false;
    }
  };
  const element = h(
    "form",
    {
      class: "answer-form",
      novalidate: true,
      onsubmit: (event: Event) => {
        event.preventDefault();
        const read = form.read();
        if (!read.ok) {
          problems.replaceChildren(...read.problems.map((problem) => h("div", {}, problem)));
          return;
        }
        void submit(read.value);
      },
    },
    form.element,
    problems,
    h("div", { class: "actions" }, send, decline),
  );
  decline.addEventListener("click", async () => {
    // A no is not a result (it would not fit the tool's resultSchema): the call ends in error, and the card says declined.
    send.disabled = decline.disabled = true;
    problems.textContent = "";
    try {
      await context.decline("The person asked declined to answer");
      element.replaceChildren(h("p", { class: "sent" }, "Declined."));
    } catch (error) {
      problems.textContent = (error as Error).message;
      send.disabled = decline.disabled = false;
    }
  });
  return element;
}

/** The fallback card for any tool. */
export function genericToolCard(context: ToolCardContext): HTMLElement {
  const { part, message, tool } = context;
  const waiting = part.status === "requires_action" && !message.draft && context.permission.ok;
  return h(
    "div",
    { class: "tool-body" },
    argumentsBlock(part, message.draft === true),
    resultBlock(part, cardBadge(context).tone === "declined" ? "declined" : "error"),
    cardNotes(context),
    waiting ? answerForm(context, (tool?.resultSchema as JsonSchema | undefined) ?? defaultAnswerSchema) : null,
  );
}

// ------------------------------------------------------------ built-in components

/** `display.customUI: "ConfirmButtons"`: a question (`args.question`) with Yes and No → `{confirmed}`. */
registerToolComponent("ConfirmButtons", (context) => {
  const { part } = context;
  const question = typeof part.args === "object" && part.args !== null && "question" in part.args ? String((part.args as { question: unknown }).question) : undefined;
  const body = h("div", { class: "tool-body confirm" }, question ? h("p", { class: "question" }, question) : argumentsBlock(part, context.message.draft === true));
  const notes = cardNotes(context);
  if (notes) body.append(notes);
  if (part.status === "requires_action" && !context.message.draft && context.permission.ok) {
    const problems = h("div", { class: "problems", role: "alert" });
    const choose = (confirmed: boolean) => async () => {
      try {
        await context.answer({ confirmed });
        body.replaceChildren(h("p", { class: "sent" }, confirmed ? "You said yes." : "You said no."));
      } catch (error) {
        problems.textContent = (error as Error).message;
      }
    };
    body.append(
      h("div", { class: "actions" }, h("button", { class: "primary", onclick: choose(true) }, "Yes"), h("button", { class: "secondary", onclick: choose(false) }, "No")),
      problems,
    );
  } else {
    const result = resultBlock(part);
    if (result) body.append(result);
  }
  return body;
});

/** `display.customUI: "BarChart"`: `args.values` (numbers) as bars, `args.labels` and `args.title` if given. */
registerToolComponent("BarChart", (context) => {
  const args = (context.part.args ?? {}) as { title?: unknown; values?: unknown; labels?: unknown };
  const values = Array.isArray(args.values) ? args.values.filter((value): value is number => typeof value === "number") : [];
  if (values.length === 0) return genericToolCard(context);
  const labels = Array.isArray(args.labels) ? args.labels.map(String) : values.map((_, index) => String(index + 1));
  const top = Math.max(...values, 1);
  return h(
    "figure",
    { class: "tool-body bar-chart" },
    typeof args.title === "string" ? h("figcaption", {}, args.title) : null,
    h(
      "div",
      { class: "bars" },
      values.map((value, index) =>
        h("div", { class: "bar", style: `height:${Math.max(2, (value / top) * 100)}%`, title: `${labels[index] ?? ""}: ${value}` }, h("span", {}, String(value))),
      ),
    ),
  );
});
