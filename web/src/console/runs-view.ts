/**
 * An agent's runs in the console, newest first (`GET /api/agents/:id/runs`):
 * status, when, how long, how many steps and tool calls, tokens, the error;
 * each opens as a timeline.
 */
import type { Run } from "../../../client/src/index";
import { h } from "../dom";
import { agentPicker, type ConsoleContext, errorText, formatDuration, formatTime, viewHeader } from "./console-context";
import { readToolCalls, readUsage } from "./run-record";

const pageSizes = [20, 50, 200] as const;

export async function runsView(context: ConsoleContext, agentId: string | undefined, limit = 20): Promise<HTMLElement> {
  const picker = await agentPicker(context, agentId, (id) => `#runs/${id}`);
  const section = h("section", { class: "view runs-view" }, viewHeader("Runs", picker));
  if (!agentId) {
    section.append(h("p", { class: "empty" }, "Choose an agent to see its runs."));
    return section;
  }
  let runs: Run[];
  try {
    runs = (await context.client.agents.runs(agentId, { limit })).runs;
  } catch (error) {
    section.append(h("div", { class: "problems", role: "alert" }, `Could not read the runs: ${errorText(error)}`));
    return section;
  }
  const size = h(
    "select",
    { id: "runs-limit", "aria-label": "How many runs", onchange: () => context.navigate(`#runs/${agentId}/${size.value}`) },
    ...pageSizes.map((count) => h("option", { value: count }, `last ${count}`)),
  );
  size.value = String(limit);
  section.append(
    h("div", { class: "toolbar" }, size, h("a", { href: `#runs/${agentId}/${limit}`, class: "link", id: "refresh-runs" }, "Refresh")),
    runs.length === 0
      ? h("p", { class: "empty" }, "No runs yet: the agent runs when a message, a plan, a result or an inbox push wakes it.")
      : h(
          "table",
          { class: "list", id: "runs-table" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", {}, "Run"),
              h("th", {}, "Status"),
              h("th", {}, "Started"),
              h("th", {}, "Took"),
              h("th", { class: "number" }, "Steps"),
              h("th", { class: "number" }, "Tool calls"),
              h("th", { class: "number" }, "Tokens"),
            ),
          ),
          h(
            "tbody",
            {},
            ...runs.map((run) => {
              const calls = readToolCalls(run.toolCalls);
              const failed = calls.filter((call) => call.status === "failed").length;
              const usage = readUsage(run.usage);
              const took = run.finishedAt ? new Date(run.finishedAt).getTime() - new Date(run.createdAt).getTime() : undefined;
              return h(
                "tr",
                { "data-run-id": run.id, "data-status": run.status },
                h("td", {}, h("a", { href: `#run/${run.id}` }, run.id)),
                h("td", {}, h("span", { class: `badge ${run.status}` }, run.status), run.error ? h("div", { class: "error-line" }, run.error) : null),
                h("td", {}, formatTime(run.createdAt)),
                h("td", {}, run.finishedAt ? formatDuration(took) : "running"),
                h("td", { class: "number" }, String(run.steps.length)),
                h("td", { class: "number" }, String(calls.length), failed > 0 ? h("span", { class: "failed-count" }, ` (${failed} failed)`) : ""),
                h("td", { class: "number" }, usage ? `${usage.inputTokens} in · ${usage.outputTokens} out` : "—"),
              );
            }),
          ),
        ),
  );
  return section;
}
