/**
 * An approval card (`kind: "approval"`): an agent wants to run a tool and a
 * person says yes or no first. It shows the tool's arguments; someone the
 * card's `answeredBy` allows gets Approve and Deny, a reason, and the
 * arguments to edit as JSON (sent as `args`, checked again by the gateway
 * against the tool's schema). Refusals (422 invalid arguments, 403 not yours,
 * 409 someone else answered first) stay on the card. Once answered, the card
 * shows the decision live: approved or denied, by whom, why, with which
 * arguments; or that nobody answered in time.
 */
import { canonicalJson } from "../../src/canonical-json";
import { argumentsBlock, cardNotes, type ToolCardContext } from "./card-context";
import { h, pretty } from "./dom";

/** A stored answer: a person's, or the timeout policy's (`automatic`). */
type Decision = { approved: boolean; args?: unknown; reason?: string; automatic?: boolean };

export function decisionOf(result: unknown): Decision | undefined {
  if (typeof result !== "object" || result === null || typeof (result as { approved?: unknown }).approved !== "boolean") return undefined;
  return result as Decision;
}

export function approvalCard(context: ToolCardContext): HTMLElement {
  const { part, message } = context;
  const body = h(
    "div",
    { class: "tool-body approval" },
    h(
      "p",
      { class: "question" },
      `${context.agentName} wants to run `,
      h("code", {}, part.toolName),
      part.status === "requires_action" && context.permission.ok ? ". Approve?" : ".",
    ),
    argumentsBlock(part, message.draft === true),
    cardNotes(context, "approve or deny"),
  );
  if (part.status === "requires_action" && !message.draft && context.permission.ok) body.append(decisionForm(context));
  else if (part.status === "complete") body.append(outcome(context));
  else if (part.status === "error" && !part.escalatedTo && !part.expiredAt) body.append(errorLine(part.result));
  return body;
}

/** Approve / Deny, a reason, and the arguments to edit. */
function decisionForm(context: ToolCardContext): HTMLElement {
  const original = context.part.args ?? {};
  const reason = h("input", { type: "text", name: "reason", maxlength: 2000, placeholder: "Reason (optional; the agent sees it)", "aria-label": "Reason" });
  const argsText = h("textarea", { name: "args", rows: Math.min(12, pretty(original).split("\n").length + 1), class: "json", spellcheck: false, "aria-label": "Arguments (JSON)" });
  argsText.value = JSON.stringify(original, null, 2);
  const edit = h(
    "details",
    { class: "edit-args" },
    h("summary", {}, "Edit arguments"),
    argsText,
    h("small", { class: "hint" }, "Approving sends these instead; the gateway checks them against the tool's schema."),
  );
  const problems = h("div", { class: "problems", role: "alert" });
  const approve = h("button", { type: "button", class: "primary", name: "approve" }, "Approve");
  const deny = h("button", { type: "button", class: "danger", name: "deny" }, "Deny");
  const status = h("p", { class: "sent", role: "status" });

  const send = async (answer: Record<string, unknown>) => {
    approve.disabled = deny.disabled = true;
    problems.textContent = "";
    status.textContent = "Sending…";
    try {
      await context.answer(answer);
      // The card redraws from the space's events; until then, say it went.
      status.textContent = answer.approved ? "Approved: waiting for the agent…" : "Denied.";
    } catch (error) {
      status.textContent = "";
      problems.textContent = (error as Error).message;
      approve.disabled = deny.disabled = false;
    }
  };
  approve.addEventListener("click", () => {
    const answer: Record<string, unknown> = { approved: true };
    if (edit.open) {
      let edited: unknown;
      try {
        edited = JSON.parse(argsText.value);
      } catch (error) {
        problems.textContent = `The arguments are not valid JSON: ${(error as Error).message}`;
        return;
      }
      if (typeof edited !== "object" || edited === null || Array.isArray(edited)) {
        problems.textContent = "The arguments must be a JSON object";
        return;
      }
      if (canonicalJson(edited) !== canonicalJson(original)) answer.args = edited;
    }
    if (reason.value.trim()) answer.reason = reason.value.trim();
    void send(answer);
  });
  deny.addEventListener("click", () => void send({ approved: false, ...(reason.value.trim() && { reason: reason.value.trim() }) }));
  return h("div", { class: "decision-form" }, edit, reason, problems, h("div", { class: "actions" }, approve, deny), status);
}

/** Approved or denied, by whom, why, and the arguments the tool ran with when they were edited. */
function outcome(context: ToolCardContext): HTMLElement {
  const { part } = context;
  const decision = decisionOf(part.result);
  if (!decision) return errorLine(part.result);
  const by = decision.automatic ? "automatically: nobody answered in time" : part.answerer ? `by ${context.nameOf(part.answerer)}` : "";
  const edited = decision.approved && decision.args !== undefined && canonicalJson(decision.args) !== canonicalJson(part.args);
  return h(
    "div",
    { class: `decision ${decision.approved ? "approved" : "denied"}`, "data-outcome": decision.approved ? "approved" : "denied" },
    h(
      "p",
      { class: "decision-line" },
      decision.approved ? "✔ Approved" : "✘ Denied",
      by ? ` ${by}` : "",
      decision.reason && !decision.automatic ? `: ${decision.reason}` : "",
      edited ? ", with edited arguments" : "",
    ),
    edited ? h("div", { class: "tool-args edited" }, h("div", { class: "caption" }, "approved arguments"), h("pre", {}, pretty(decision.args))) : null,
  );
}

function errorLine(result: unknown): HTMLElement {
  const error = typeof result === "object" && result !== null && "error" in result ? (result as { error: unknown }).error : result;
  return h("div", { class: "tool-error" }, h("div", { class: "caption" }, "error"), h("pre", {}, pretty(error ?? "The approval ended without an answer")));
}
