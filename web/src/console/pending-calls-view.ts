/**
 * An agent's pending calls in the console (`GET /api/agents/:id/pending-tool-calls`),
 * newest first, with the operator's actions: cancel (the agent gets a
 * cancellation), expire now, and deliver a settled call's outcome again.
 * Each action goes through the agent's object and is noted on the call's
 * run; what the gateway refuses (a call that already settled) shows on the row.
 */
import { h } from "../dom";
import { agentPicker, type ConsoleContext, errorText, formatTime, jsonBlock, viewHeader } from "./console-context";
import { type PendingCallRecord, readPendingCalls } from "./run-record";

const filters = ["open", "waiting", "pending", "resolved", "expired", "all"] as const;
type Filter = (typeof filters)[number];
const isFilter = (value: string | undefined): value is Filter => filters.some((filter) => filter === value);

async function readCalls(context: ConsoleContext, agentId: string, filter: Filter): Promise<PendingCallRecord[]> {
  const read = async (status?: "waiting" | "pending" | "resolved" | "expired") =>
    readPendingCalls((await context.client.agents.pendingToolCalls(agentId, { limit: 200, ...(status && { status }) })).pendingToolCalls);
  if (filter === "all") return read();
  if (filter !== "open") return read(filter);
  const [waiting, pending] = await Promise.all([read("waiting"), read("pending")]);
  return [...waiting, ...pending].sort((a, b) => (b.createdAt ?? "").localeCompare(a.createdAt ?? ""));
}

export async function pendingCallsView(context: ConsoleContext, agentId: string | undefined, filterName?: string): Promise<HTMLElement> {
  const filter: Filter = isFilter(filterName) ? filterName : "open";
  const picker = await agentPicker(context, agentId, (id) => `#pending/${id}/${filter}`);
  const section = h("section", { class: "view pending-view" }, viewHeader("Pending calls", picker));
  if (!agentId) {
    section.append(h("p", { class: "empty" }, "Choose an agent to see its pending calls."));
    return section;
  }
  const choose = h(
    "select",
    { id: "pending-filter", "aria-label": "Which calls", onchange: () => context.navigate(`#pending/${agentId}/${choose.value}`) },
    ...filters.map((name) => h("option", { value: name }, name === "open" ? "open (waiting or pending)" : name)),
  );
  choose.value = filter;
  const reason = h("input", { id: "operator-reason", autocomplete: "off", placeholder: "Reason (optional; the agent sees a cancellation's)", maxlength: 2000 });
  const list = h("ul", { class: "pending-calls", id: "pending-calls" });
  const problem = h("div", { class: "problems", role: "alert" });
  const lastAction = h("div", { class: "outcome", id: "pending-outcome", role: "status" });

  const load = async () => {
    problem.textContent = "";
    try {
      const calls = await readCalls(context, agentId, filter);
      list.replaceChildren(...(calls.length > 0 ? calls.map((call) => row(call)) : [h("li", { class: "empty" }, `No ${filter === "all" ? "" : `${filter} `}calls.`)]));
    } catch (error) {
      problem.textContent = `Could not read the pending calls: ${errorText(error)}`;
    }
  };

  const row = (call: PendingCallRecord): HTMLElement => {
    const outcome = h("div", { class: "outcome", role: "status" });
    const open = call.status === "waiting" || call.status === "pending";
    const act = (name: "cancel" | "expire" | "redeliver") => async () => {
      for (const button of item.querySelectorAll("button")) button.disabled = true;
      outcome.textContent = "";
      const why = reason.value.trim() || undefined;
      try {
        const done = await context.client.pendingToolCalls[name](call.toolCallId, why);
        // The list is read again (a settled call may leave this filter): the outcome shows above it.
        lastAction.textContent = `${name === "cancel" ? "Cancelled" : name === "expire" ? "Expired" : "Delivered again"} ${call.toolName} (${call.toolCallId}): now ${done.status}`;
        await load();
      } catch (error) {
        outcome.textContent = `Not done: ${errorText(error)}`;
        for (const button of item.querySelectorAll("button")) button.disabled = false;
      }
    };
    const item = h(
      "li",
      { class: "pending-call", "data-tool-call-id": call.toolCallId, "data-status": call.status, "data-kind": call.kind },
      h(
        "div",
        { class: "call-head" },
        h("code", { class: "tool-name" }, call.toolName),
        h("span", { class: `badge ${call.status}` }, call.status),
        h("small", {}, `${call.kind} · ${call.executionType}`),
        h("small", { class: "id" }, call.toolCallId),
        h(
          "span",
          { class: "actions" },
          open ? h("button", { type: "button", class: "secondary", onclick: act("cancel") }, "Cancel") : null,
          open ? h("button", { type: "button", class: "secondary", onclick: act("expire") }, "Expire") : null,
          !open && call.kind === "call" ? h("button", { type: "button", class: "secondary", onclick: act("redeliver") }, "Redeliver") : null,
        ),
      ),
      h(
        "div",
        { class: "meta" },
        `created ${formatTime(call.createdAt)}`,
        call.expiresAt ? ` · expires ${formatTime(call.expiresAt)}` : "",
        call.resolvedAt ? ` · settled ${formatTime(call.resolvedAt)}` : "",
        " · run ",
        h("a", { href: `#run/${call.runId}` }, call.runId),
      ),
      jsonBlock("Arguments", call.args, "call-args"),
      call.result !== null && call.result !== undefined ? jsonBlock("Result", call.result, "call-result") : null,
      outcome,
    );
    return item;
  };

  await load();
  section.append(
    h("div", { class: "toolbar" }, choose, reason, h("button", { type: "button", class: "link", id: "refresh-pending", onclick: () => void load() }, "Refresh")),
    h(
      "p",
      { class: "hint" },
      "Cancel settles a call as cancelled (the agent gets the cancellation as a tool error); Expire ends it now as if its deadline had passed; Redeliver puts a settled call's outcome in the agent's inbox once more. Each is noted on the call's run.",
    ),
    lastAction,
    problem,
    list,
  );
  return section;
}
