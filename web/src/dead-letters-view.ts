/**
 * The operator's view of dead letters (signed in with the secret key):
 * webhook deliveries that gave up, newest first, each with what it was, where
 * it went, how often it was tried and why it failed, and a button that
 * delivers it again now (the same `webhook-id`, so the receiver dedupes it).
 */
import type { Switchboard } from "../../client/src/index";
import { h } from "./dom";

type DeadLetter = Awaited<ReturnType<Switchboard["webhooks"]["deadLetters"]>>["deadLetters"][number];

const statusText: Record<DeadLetter["status"], string> = { dead: "gave up", redelivering: "redelivering…", delivered: "delivered" };

export function deadLettersView(client: Switchboard): HTMLElement {
  const problem = h("div", { class: "problems", role: "alert" });
  const list = h("ul", { class: "dead-letters", id: "dead-letters" });
  const older = h("button", { class: "link", hidden: true, onclick: () => void load(true) }, "Older…");
  let cursor: string | null = null;

  function row(letter: DeadLetter): HTMLElement {
    const outcome = h("span", { class: "outcome", role: "status" });
    const redeliver = h(
      "button",
      {
        class: "secondary redeliver",
        disabled: letter.status === "delivered",
        onclick: async () => {
          redeliver.disabled = true;
          outcome.textContent = "";
          try {
            item.replaceWith(row(await client.webhooks.redeliver(letter.id)));
          } catch (error) {
            outcome.textContent = `Not redelivered: ${(error as Error).message}`;
            redeliver.disabled = false;
          }
        },
      },
      "Redeliver",
    );
    const target = letter.subscriptionId ? `subscription ${letter.subscriptionId}` : `call ${letter.toolCallId ?? ""}`;
    const item = h(
      "li",
      { class: "dead-letter", "data-dead-letter-id": letter.id, "data-status": letter.status },
      h("div", { class: "dead-letter-head" }, h("strong", {}, letter.type), h("span", { class: `state ${letter.status}` }, statusText[letter.status]), redeliver),
      h("div", { class: "meta" }, `${target} → ${letter.url}`),
      h(
        "div",
        { class: "meta" },
        `${letter.attempts} attempt${letter.attempts === 1 ? "" : "s"}, gave up ${new Date(letter.deadAt).toLocaleString()}`,
        letter.redeliveries > 0 ? ` · redelivered ${letter.redeliveries}×` : "",
      ),
      h("div", { class: "error-line" }, letter.lastError),
      outcome,
    );
    return item;
  }

  async function load(append: boolean): Promise<void> {
    problem.textContent = "";
    try {
      const page = await client.webhooks.deadLetters({ limit: 50, ...(append && cursor ? { cursor } : {}) });
      const rows = page.deadLetters.map(row);
      if (append) list.append(...rows);
      else list.replaceChildren(...(rows.length > 0 ? rows : [h("li", { class: "empty" }, "No dead letters: every push got through, or is still being retried.")]));
      cursor = page.nextCursor;
      older.hidden = cursor === null;
    } catch (error) {
      problem.textContent = `Could not read the dead letters: ${(error as Error).message}`;
    }
  }

  void load(false);
  return h(
    "section",
    { class: "operator" },
    h("header", { class: "space-header" }, h("h1", {}, "Dead letters"), h("button", { class: "link", id: "refresh-dead-letters", onclick: () => void load(false) }, "Refresh")),
    h(
      "p",
      { class: "hint" },
      "Webhook deliveries that gave up: a subscription's event after its retry schedule (about 28 hours), a pushed tool call past its deadline. Redeliver starts a fresh delivery now with the same webhook-id.",
    ),
    problem,
    list,
    older,
  );
}
