/**
 * Webhook subscriptions in the console (secret key): every subscription,
 * newest first, with its events, target and signing secret; a new one
 * (the gateway's problems shown under the fields they name); delete. Below,
 * every delivery attempt, live from the agents' streams
 * (`webhook-deliveries.ts`), then the dead letters (pushes that gave up) with
 * redelivery: the live page's operator view, reused.
 */
import { SwitchboardError, type WebhookSubscription } from "../../../client/src/index";
import { deadLettersView } from "../dead-letters-view";
import { h } from "../dom";
import { type ConsoleContext, errorText, formatTime, viewHeader } from "./console-context";
import { problemsOf } from "./config-editor";
import { webhookDeliveries } from "./webhook-deliveries";

const eventTypes = ["call.awaiting_input", "call.expired", "run.completed", "run.failed"] as const;

export async function webhooksView(context: ConsoleContext): Promise<HTMLElement> {
  const list = h("ul", { class: "subscriptions", id: "subscriptions" });
  const problem = h("div", { class: "problems", role: "alert" });
  const older = h("button", { type: "button", class: "link", hidden: true, onclick: () => void load(true) }, "Older…");
  let cursor: string | null = null;

  const row = (subscription: WebhookSubscription): HTMLElement => {
    const outcome = h("span", { class: "outcome", role: "status" });
    const remove = h(
      "button",
      {
        type: "button",
        class: "secondary delete-subscription",
        onclick: async () => {
          remove.disabled = true;
          try {
            await context.client.webhooks.delete(subscription.id);
            item.remove();
          } catch (error) {
            outcome.textContent = `Not deleted: ${errorText(error)}`;
            remove.disabled = false;
          }
        },
      },
      "Delete",
    );
    const target = subscription.agentId ? h("a", { href: `#agents/${subscription.agentId}` }, subscription.agentId) : h("span", {}, `space ${subscription.spaceId ?? ""}`);
    const item = h(
      "li",
      { class: "subscription", "data-webhook-id": subscription.id },
      h("div", { class: "call-head" }, h("strong", { class: "url" }, subscription.url), remove),
      h("div", { class: "meta" }, ...subscription.events.map((event) => h("span", { class: "badge" }, event)), " for ", target, ` · since ${formatTime(subscription.createdAt)}`),
      subscription.description ? h("div", { class: "meta" }, subscription.description) : null,
      h("details", { class: "secret" }, h("summary", {}, `Signing secret · ${subscription.id}`), h("code", {}, subscription.secret)),
      outcome,
    );
    return item;
  };

  async function load(append: boolean): Promise<void> {
    problem.textContent = "";
    try {
      const page = await context.client.webhooks.list({ limit: 50, ...(append && cursor ? { cursor } : {}) });
      const rows = page.webhooks.map(row);
      if (append) list.append(...rows);
      else list.replaceChildren(...(rows.length > 0 ? rows : [h("li", { class: "empty" }, "No subscriptions yet.")]));
      cursor = page.nextCursor;
      older.hidden = cursor === null;
    } catch (error) {
      problem.textContent = `Could not list the subscriptions: ${errorText(error)}`;
    }
  }

  await load(false);
  const deliveries = webhookDeliveries(context);
  return h(
    "section",
    { class: "view webhooks-view" },
    viewHeader("Webhooks", h("a", { href: "#webhooks", class: "link", id: "refresh-webhooks" }, "Refresh")),
    h("p", { class: "hint" }, "Standard Webhooks pushes of an agent's or a space's events, signed with each subscription's own secret (docs/webhooks.md)."),
    problem,
    list,
    older,
    await subscribeForm(context, (subscription) => {
      list.querySelector(".empty")?.remove();
      list.prepend(row(subscription));
      deliveries.watch(subscription);
    }),
    deliveries.element,
    h("div", { class: "dead-letters-panel" }, deadLettersView(context.client)),
  );
}

async function subscribeForm(context: ConsoleContext, created: (subscription: WebhookSubscription) => void): Promise<HTMLElement> {
  const url = h("input", { id: "webhook-url", name: "url", type: "url", autocomplete: "off", placeholder: "https://example.com/hooks/switchboard" });
  const events = eventTypes.map((event) => h("input", { type: "checkbox", name: "events", value: event, checked: event.startsWith("run.") }));
  const agents = await context.agents();
  const agent = h(
    "select",
    { id: "webhook-agent", name: "agentId" },
    h("option", { value: "" }, "(a space instead)"),
    ...agents.map((entry) => h("option", { value: entry.id }, `${entry.name} (${entry.id})`)),
  );
  const space = h("input", { id: "webhook-space", name: "spaceId", autocomplete: "off", placeholder: "spc_… (or choose an agent)" });
  const description = h("input", { id: "webhook-description", name: "description", autocomplete: "off", maxlength: 500 });
  const outcome = h("div", { class: "problems", role: "alert" });
  const fieldNotes = new Map<string, HTMLElement>();
  const note = (path: string) => {
    const element = h("small", { class: "field-problem", "data-path": path });
    fieldNotes.set(path, element);
    return element;
  };
  const field = (path: string, label: string, control: HTMLElement) => h("label", { class: "field" }, h("span", {}, label), control, note(path));
  return h(
    "form",
    {
      class: "panel narrow",
      id: "new-webhook",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        outcome.textContent = "";
        for (const note of fieldNotes.values()) note.textContent = "";
        try {
          const subscription = await context.client.webhooks.create({
            url: url.value.trim(),
            events: events.filter((box) => box.checked).flatMap((box) => eventTypes.filter((type) => type === box.value)),
            ...(agent.value ? { agentId: agent.value } : {}),
            ...(space.value.trim() ? { spaceId: space.value.trim() } : {}),
            ...(description.value.trim() ? { description: description.value.trim() } : {}),
          });
          created(subscription);
          url.value = "";
          description.value = "";
        } catch (error) {
          outcome.textContent = `Not subscribed: ${errorText(error)}`;
          if (error instanceof SwitchboardError) {
            // Each problem under the field it names; one about a field not on the form stays in the line above.
            for (const problem of problemsOf(error.details, "")) {
              const note = fieldNotes.get(problem.path.split(".")[0] ?? "");
              if (note) note.textContent = problem.message;
            }
          }
        }
      },
    },
    h("h2", {}, "New subscription"),
    field("url", "URL", url),
    h(
      "fieldset",
      { class: "field" },
      h("legend", {}, "Events"),
      h("div", { class: "checks" }, ...events.map((box) => h("label", { class: "check" }, box, box.value))),
      note("events"),
    ),
    field("agentId", "Agent", agent),
    field("spaceId", "or space", space),
    field("description", "Description (optional)", description),
    h("button", { type: "submit", class: "primary" }, "Subscribe"),
    outcome,
  );
}
