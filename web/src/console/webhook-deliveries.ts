/**
 * The Webhooks view's deliveries: every attempt to push an event to a
 * subscription (and, from the same streams, every push of a tool call),
 * newest first, live. The gateway reports each attempt on the stream of the
 * agent whose event it pushes, so the console reads the streams of the agents
 * with a subscription, and of the agents that are members of a space with
 * one, from the history each stream still keeps (`afterSeq: 0`), then live.
 *
 * Bounded: at most `maxRows` attempts are kept, and at most a few streams are
 * open at once (each is an SSE request held open: the secret key may not go
 * in a WebSocket's URL). Every stream is closed when the view is left
 * (`context.leaving`).
 */
import { type StreamStatus, SwitchboardError, type WebhookSubscription } from "../../../client/src/index";
import { h } from "../dom";
import { type ConsoleContext, errorText, formatTime } from "./console-context";
import { type Delivery, DeliveryList, deliveryOf } from "./delivery-list";

export const maxRows = 500;
/** Streams open at once when the browser multiplexes requests (HTTP/2 or HTTP/3). */
const maxStreamsMultiplexed = 20;
/** Over HTTP/1.1 a browser opens at most 6 connections to one host; each stream holds one, and the console's own requests need the rest. */
const maxStreamsHttp1 = 4;

/** How many streams this page may hold open, from the protocol its requests to the gateway went over. */
function streamBound(): { max: number; why: string } {
  const entries = performance.getEntriesByType("resource").concat(performance.getEntriesByType("navigation"));
  const protocols = entries.flatMap((entry) =>
    entry instanceof PerformanceResourceTiming && entry.name.startsWith(location.origin) && entry.nextHopProtocol ? [entry.nextHopProtocol] : [],
  );
  const protocol = protocols.at(-1);
  // Unknown is taken as HTTP/1.1: too few streams is a note on the page, too many would stall every request it makes.
  if (protocol === "h2" || protocol === "h3") return { max: maxStreamsMultiplexed, why: "" };
  return { max: maxStreamsHttp1, why: ` over ${protocol ?? "HTTP/1.1"}, where a browser opens at most 6 connections to one host and each stream holds one` };
}

const outcomeText: Record<Delivery["outcome"], string> = { delivered: "delivered", failed: "failed", dead_lettered: "dead-lettered" };
const outcomeBadge: Record<Delivery["outcome"], string> = { delivered: "completed", failed: "failed", dead_lettered: "expired" };

export type WebhookDeliveries = {
  element: HTMLElement;
  /** A subscription made while the view is open: its agent (or its space's agents) are read too. */
  watch(subscription: WebhookSubscription): void;
};

export function webhookDeliveries(context: ConsoleContext): WebhookDeliveries {
  const bound = streamBound();
  const rows = new DeliveryList(maxRows);
  const subscriptions = new Map<string, WebhookSubscription | "gone">();
  const lookups = new Set<string>();
  const agentNames = new Map<string, string>();
  /** Every agent whose stream has deliveries to show, in the order found (newest subscription first). */
  const wanted = new Set<string>();
  /** The streams opened (each closes with `context.leaving`), with their state as shown. */
  const streams = new Map<string, { status: StreamStatus; item: HTMLElement }>();
  const seenSpaces = new Set<string>();
  /** Every subscription was read (false while reading, or when reading stopped at the bound). */
  let complete = false;

  const body = h("tbody", {});
  const table = h(
    "table",
    { class: "list deliveries-table", id: "deliveries-table", hidden: true },
    h(
      "thead",
      {},
      h("tr", {}, h("th", {}, "When"), h("th", {}, "Event"), h("th", {}, "To"), h("th", {}, "webhook-id"), h("th", { class: "number" }, "Attempt"), h("th", {}, "Outcome")),
    ),
    body,
  );
  const empty = h("p", { class: "empty", id: "deliveries-empty" }, "No attempts yet on these agents' streams.");
  const streamList = h("ul", { class: "delivery-streams", id: "delivery-streams", "aria-label": "Streams read" });
  const streamBoundNote = h("p", { class: "bound-note", id: "deliveries-stream-bound", hidden: true });
  const rowBoundNote = h("p", { class: "bound-note", id: "deliveries-row-bound", hidden: true });
  const problems = h("div", { class: "problems", role: "alert", id: "deliveries-problems" });
  const showCalls = h("input", {
    type: "checkbox",
    id: "deliveries-show-calls",
    checked: true,
    onchange: () => (table.dataset.calls = showCalls.checked ? "shown" : "hidden"),
  });
  table.dataset.calls = "shown";

  const problem = (text: string) => problems.append(h("div", {}, text));
  const rowDeliveries = new WeakMap<HTMLElement, Delivery>();

  const targetCell = (delivery: Delivery): HTMLElement => {
    const from = h("div", { class: "meta" }, "from ", h("a", { href: `#agents/${delivery.agentId}` }, agentNames.get(delivery.agentId) ?? delivery.agentId));
    if (delivery.kind === "call")
      return h("td", { class: "delivery-target" }, h("span", { class: "badge" }, "pushed tool call"), " ", h("code", {}, delivery.toolCallId ?? ""), from);
    const id = delivery.subscriptionId ?? "";
    const known = subscriptions.get(id);
    const url = known === "gone" ? "(deleted)" : known ? known.url : "…";
    return h("td", { class: "delivery-target" }, h("code", {}, id), h("div", { class: "url" }, url), from);
  };

  /** A subscription not in the list read at the start (deleted, or beyond it): read on its own, once, and its rows filled in. */
  const lookUp = (subscriptionId: string) => {
    if (subscriptions.has(subscriptionId) || lookups.has(subscriptionId)) return;
    lookups.add(subscriptionId);
    context.client.webhooks
      .get(subscriptionId)
      .then((subscription) => subscriptions.set(subscriptionId, subscription))
      .catch((error: unknown) => {
        if (error instanceof SwitchboardError && error.status === 404) subscriptions.set(subscriptionId, "gone");
        else problem(`Could not read subscription ${subscriptionId}: ${errorText(error)}`);
      })
      .then(() => {
        for (const row of body.querySelectorAll<HTMLElement>(`tr[data-subscription-id="${CSS.escape(subscriptionId)}"]`)) {
          const delivery = rowDeliveries.get(row);
          if (delivery) row.querySelector(".delivery-target")?.replaceWith(targetCell(delivery));
        }
      });
  };
  const outcomeCell = (delivery: Delivery): HTMLElement => {
    const next =
      delivery.outcome !== "failed"
        ? null
        : delivery.willRetry && delivery.nextAttemptAt
          ? `next attempt ${formatTime(delivery.nextAttemptAt)}`
          : delivery.willRetry === false
            ? "no more attempts"
            : null;
    return h(
      "td",
      { class: "delivery-outcome" },
      h("span", { class: `badge ${outcomeBadge[delivery.outcome]}` }, outcomeText[delivery.outcome]),
      delivery.error ? h("div", { class: "error-line" }, delivery.error) : null,
      next ? h("div", { class: "meta" }, next) : null,
      delivery.deadLetterId ? h("div", { class: "meta" }, `dead letter ${delivery.deadLetterId} (below)`) : null,
    );
  };

  const show = (delivery: Delivery) => {
    const placed = rows.add(delivery);
    if (!placed) {
      noteRowBound();
      return;
    }
    if (delivery.subscriptionId) lookUp(delivery.subscriptionId);
    const row = h(
      "tr",
      {
        class: "delivery",
        "data-kind": delivery.kind,
        "data-outcome": delivery.outcome,
        "data-webhook-id": delivery.webhookId,
        "data-attempt": delivery.attempt,
        "data-agent-id": delivery.agentId,
        "data-subscription-id": delivery.subscriptionId,
      },
      h("td", {}, h("time", { datetime: delivery.at }, formatTime(delivery.at))),
      h("td", {}, h("code", { class: "delivery-type" }, delivery.type)),
      targetCell(delivery),
      h("td", {}, h("code", { class: "webhook-id" }, delivery.webhookId)),
      h("td", { class: "number" }, delivery.outcome === "dead_lettered" ? `after ${delivery.attempt}` : String(delivery.attempt)),
      outcomeCell(delivery),
    );
    rowDeliveries.set(row, delivery);
    body.insertBefore(row, body.children[placed.index] ?? null);
    if (placed.dropped) body.lastElementChild?.remove();
    table.hidden = false;
    empty.hidden = true;
    noteRowBound();
  };

  const noteRowBound = () => {
    if (rows.dropped === 0) return;
    rowBoundNote.hidden = false;
    rowBoundNote.textContent = `Only the newest ${maxRows} attempts are kept here: ${rows.dropped} older one${rows.dropped === 1 ? " was" : "s were"} let go.`;
  };

  /** Says how many agents are read, and how many are not when the bound is hit. */
  const noteStreams = () => {
    empty.textContent = wanted.size === 0 ? "No subscriptions, so no agent stream to read." : "No attempts yet on these agents' streams.";
    const left = wanted.size - streams.size;
    streamBoundNote.hidden = left <= 0;
    streamBoundNote.textContent =
      `${complete ? wanted.size : `At least ${wanted.size}`} agents have subscriptions (their own, or their spaces'), and the console reads at most ${bound.max} streams at once${bound.why}: ` +
      `the ${streams.size} found first (newest subscriptions first) are read, the other ${left}${complete ? "" : " or more"} are not.`;
  };

  const drawStream = (agentId: string) => {
    const stream = streams.get(agentId);
    if (!stream) return;
    stream.item.dataset.status = stream.status;
    stream.item.replaceChildren(h("a", { href: `#agents/${agentId}` }, agentNames.get(agentId) ?? agentId), " ", h("span", { class: `badge ${stream.status}` }, stream.status));
  };

  const open = (agentId: string) => {
    // The view may be left while the agents were being found: nothing opens then.
    if (context.leaving.aborted || streams.has(agentId) || streams.size >= bound.max) return;
    const subscription = context.client.subscribeAgent(agentId, { afterSeq: 0, transport: "sse", signal: context.leaving });
    const item = h("li", { "data-agent-id": agentId });
    streams.set(agentId, { status: subscription.status, item });
    streamList.append(item);
    drawStream(agentId);
    subscription.on("event", (event) => {
      const delivery = deliveryOf(event);
      if (delivery) show(delivery);
    });
    subscription.on("status", ({ status }) => {
      const stream = streams.get(agentId);
      if (stream) stream.status = status;
      drawStream(agentId);
    });
    subscription.on("error", (error) => problem(`The stream of ${agentNames.get(agentId) ?? agentId} ended: ${errorText(error)}`));
  };

  const want = (agentId: string) => {
    if (wanted.has(agentId)) return;
    wanted.add(agentId);
    open(agentId);
  };

  const watchSubscription = async (subscription: WebhookSubscription) => {
    subscriptions.set(subscription.id, subscription);
    if (subscription.agentId) want(subscription.agentId);
    else if (subscription.spaceId && !seenSpaces.has(subscription.spaceId)) {
      seenSpaces.add(subscription.spaceId);
      try {
        const { members } = await context.client.spaces.members(subscription.spaceId);
        for (const member of members) if (member.type === "agent" && member.agentId) want(member.agentId);
      } catch (error) {
        problem(`Could not read the members of space ${subscription.spaceId}: ${errorText(error)}`);
      }
    }
  };

  /** Every subscription, newest first, until more agents are found than streams may be opened. */
  const start = async () => {
    try {
      // Read afresh (the form below shares it): an agent made since the last read is named, not just numbered.
      for (const agent of await context.agents(true)) agentNames.set(agent.id, agent.name);
      let cursor: string | undefined;
      reading: while (!context.leaving.aborted) {
        const page = await context.client.webhooks.list({ limit: 200, ...(cursor ? { cursor } : {}) });
        for (const subscription of page.webhooks) {
          // One agent past the bound is enough to say so; the rest are not read.
          if (wanted.size > bound.max) break reading;
          await watchSubscription(subscription);
        }
        if (!page.nextCursor) {
          complete = true;
          break;
        }
        cursor = page.nextCursor;
      }
      noteStreams();
    } catch (error) {
      problem(`Could not find the agents to read: ${errorText(error)}`);
    }
  };
  void start();

  const element = h(
    "section",
    { class: "deliveries-panel", id: "deliveries" },
    h("header", { class: "space-header" }, h("h1", {}, "Deliveries"), h("label", { class: "check" }, showCalls, "Pushed tool calls too")),
    h(
      "p",
      { class: "hint" },
      "Each attempt to push an event to a subscription (webhook.*), newest first, as the gateway reports it on the stream of the agent whose event it is: for a subscription on a space, the streams of the agents in it. With them, each push of a tool call of those agents (tool.webhook.*). What each stream still keeps first, then live.",
    ),
    h("div", { class: "delivery-streams-line" }, h("span", { class: "meta" }, "Streams read:"), streamList),
    streamBoundNote,
    rowBoundNote,
    problems,
    empty,
    h("div", { class: "deliveries-scroll" }, table),
  );
  return {
    element,
    watch: (subscription) => {
      void watchSubscription(subscription).then(noteStreams);
    },
  };
}
