/**
 * One run in the console as a timeline (`GET /api/runs/:id`): each step with
 * what the model said and why it stopped, and under it the step's tool calls
 * with their arguments, result or error, latency, provider and why a call
 * failed; the calls still waiting; the notes (retries, recoveries, operator
 * actions, failed pushes) with their times.
 */
import type { Run } from "../../../client/src/index";
import { h } from "../dom";
import { type ConsoleContext, errorText, formatDuration, formatTime, jsonBlock, viewHeader } from "./console-context";
import { readSteps, readToolCalls, readUsage, type ToolCallRecord } from "./run-record";

export async function runView(context: ConsoleContext, runId: string): Promise<HTMLElement> {
  let run: Run;
  try {
    run = await context.client.runs.get(runId);
  } catch (error) {
    return h("section", { class: "view" }, viewHeader("Run"), h("div", { class: "problems", role: "alert" }, `Could not read the run: ${errorText(error)}`));
  }
  const steps = readSteps(run.steps);
  const calls = readToolCalls(run.toolCalls);
  const usage = readUsage(run.usage);
  const took = run.finishedAt ? new Date(run.finishedAt).getTime() - new Date(run.createdAt).getTime() : undefined;
  const stepNumbers = new Set(steps.map((step) => step.stepNumber));
  const loose = calls.filter((call) => !stepNumbers.has(call.stepNumber));

  return h(
    "section",
    { class: "view run-view", "data-run-id": run.id, "data-status": run.status },
    viewHeader(`Run ${run.id}`, h("span", { class: `badge ${run.status}` }, run.status)),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Agent"),
      h("dd", {}, h("a", { href: `#runs/${run.agentId}` }, run.agentId)),
      h("dt", {}, "Started"),
      h("dd", {}, formatTime(run.createdAt)),
      h("dt", {}, "Finished"),
      h("dd", {}, run.finishedAt ? `${formatTime(run.finishedAt)} (${formatDuration(took)})` : "still running"),
      h("dt", {}, "Tokens"),
      h("dd", {}, usage ? `${usage.inputTokens} in · ${usage.outputTokens} out` : "—"),
      h("dt", {}, "D1 statements"),
      h("dd", {}, run.d1Statements === null ? "—" : String(run.d1Statements)),
    ),
    run.error ? h("div", { class: "problems run-error", role: "alert" }, run.error) : null,
    jsonBlock("What woke it (trigger)", run.trigger, "trigger"),
    h(
      "ol",
      { class: "run-timeline", id: "run-timeline" },
      ...steps.map((step) =>
        h(
          "li",
          { class: "step", "data-step": step.stepNumber },
          h(
            "div",
            { class: "step-head" },
            h("strong", {}, `Step ${step.stepNumber}`),
            step.finishReason ? h("span", { class: "badge" }, step.finishReason) : null,
            step.inputTokens !== undefined ? h("small", {}, `${step.inputTokens} in · ${step.outputTokens ?? 0} out`) : null,
          ),
          step.text ? h("blockquote", { class: "step-text" }, step.text) : null,
          callList(calls.filter((call) => call.stepNumber === step.stepNumber)),
        ),
      ),
      loose.length > 0 ? h("li", { class: "step" }, h("div", { class: "step-head" }, h("strong", {}, "Calls of a step not recorded yet")), callList(loose)) : null,
      steps.length === 0 && loose.length === 0 ? h("li", { class: "empty" }, run.status === "running" ? "No step has finished yet." : "No steps.") : null,
    ),
    run.pendingCalls && run.pendingCalls.length > 0
      ? h(
          "section",
          { class: "run-pending" },
          h("h2", {}, "Still waiting"),
          h(
            "ul",
            {},
            ...run.pendingCalls.map((call) =>
              h(
                "li",
                { "data-tool-call-id": call.toolCallId },
                h("code", {}, call.toolName),
                ` ${call.kind} · ${call.status}`,
                call.expiresAt ? ` · expires ${formatTime(call.expiresAt)}` : "",
                " · ",
                h("a", { href: `#pending/${run.agentId}` }, "operate"),
              ),
            ),
          ),
        )
      : null,
    h(
      "section",
      { class: "run-notes" },
      h("h2", {}, "Notes"),
      run.notes.length === 0
        ? h("p", { class: "empty" }, "None: no retry, recovery, operator action or failed push touched this run.")
        : h(
            "ul",
            { id: "run-notes" },
            ...run.notes.map((note) =>
              h("li", { "data-kind": note.kind }, h("time", {}, formatTime(note.at)), h("span", { class: "badge" }, note.kind), h("span", {}, note.message)),
            ),
          ),
    ),
  );
}

function callList(calls: ToolCallRecord[]): HTMLElement | null {
  if (calls.length === 0) return null;
  return h(
    "ol",
    { class: "calls" },
    ...calls.map((call) =>
      h(
        "li",
        { class: "call", "data-tool-call-id": call.toolCallId, "data-tool-name": call.toolName, "data-status": call.status },
        h(
          "div",
          { class: "call-head" },
          h("code", { class: "tool-name" }, call.toolName),
          h("span", { class: `badge ${call.status}` }, call.status),
          call.provider ? h("small", {}, call.provider) : null,
          h("span", { class: "latency" }, call.latencyMs === undefined ? "" : formatDuration(call.latencyMs)),
          call.queuedMs ? h("small", {}, `queued ${formatDuration(call.queuedMs)}`) : null,
          call.cacheHit ? h("small", { class: "badge" }, "cache hit") : null,
          call.failureKind ? h("span", { class: "badge failed failure-kind", title: "failure kind" }, call.failureKind) : null,
          call.startedAt ? h("time", {}, formatTime(call.startedAt)) : null,
        ),
        h(
          "div",
          { class: "call-body" },
          jsonBlock("Arguments", call.args, "call-args"),
          // A failed call's result repeats its error: the error alone says it.
          call.error ? h("div", { class: "error-line call-error" }, call.error) : call.result !== undefined ? jsonBlock("Result", call.result, "call-result") : null,
        ),
      ),
    ),
  );
}
