/**
 * The `reports` group (orchestration tools): `final_report` (the
 * cycle's structured answer: kept on the run record, posted to the active
 * space, and the end of the cycle), `task_status` (progress, shown as one
 * live card per run in the active space, updated in place) and `batch`
 * (`batch-tool.ts`). Records they make take ids derived from the call or the
 * run, so doing a call again finds them. The orchestrator's snake_case names
 * (`content_json`, `ready_for_final_report`, `need_to_run_more_tools`) are
 * taken beside today's and kept under today's; both at once is refused.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import type { ToolCallPart } from "../../protocol/message";
import type { CycleAccess, FinalReport, JournalAccess, RunIdentity, SpaceAccess, StreamAccess } from "../engine/tool-context";
import { messageIdForCall } from "../engine/call-ids";
import { failed, succeeded } from "../engine/tool-outcome";

const schemas = {
  finalReport: zodSchema(
    z.object({
      status: z.enum(["success", "failure", "partial"]),
      format: z.enum(["markdown", "text", "json"]).optional().describe("Default markdown; json takes contentJson"),
      content: z.string().max(100_000).optional().describe("The answer (markdown or text formats)"),
      contentJson: z.unknown().optional().describe("The answer as JSON (json format)"),
      content_json: z.unknown().optional().describe("The same as contentJson"),
      metadata: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  taskStatus: zodSchema(
    z.object({
      status: z.enum(["starting", "in-progress", "completed"]),
      done: z.string().max(2_000).optional().describe("What is done"),
      pending: z.string().max(2_000).optional().describe("What remains"),
      now: z.string().max(1_000).optional().describe("What you are doing right now"),
      readyForFinalReport: z.boolean().optional(),
      needToRunMoreTools: z.boolean().optional(),
      ready_for_final_report: z.boolean().optional().describe("The same as readyForFinalReport"),
      need_to_run_more_tools: z.boolean().optional().describe("The same as needToRunMoreTools"),
    }),
  ),
};

/** One field under two names (today's, the orchestrator's): the value, or a refusal when both are given. */
function eitherName(input: Record<string, unknown>, name: string, alias: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (input[name] !== undefined && input[alias] !== undefined) return { ok: false, error: `Give ${name} or ${alias}, not both` };
  return { ok: true, value: input[name] ?? input[alias] };
}

const suffix = (id: string) => id.replace(/^[a-z]+_/, "");

/** The id of a run's status card in a space, and of the tool part it holds. */
export function statusCardIds(runId: string, spaceId: string): { messageId: string; partId: string } {
  return { messageId: `msg_status_${suffix(runId)}_${suffix(spaceId)}`, partId: `status_${suffix(runId)}` };
}

function reportText(report: FinalReport): string {
  const body = report.format === "json" ? `\`\`\`json\n${JSON.stringify(report.contentJson ?? null, null, 2)}\n\`\`\`` : (report.content ?? "");
  return report.status === "success" ? body : `**${report.status === "failure" ? "Could not finish" : "Partly done"}**\n\n${body}`;
}

export function createReportTools(context: RunIdentity & SpaceAccess & JournalAccess & StreamAccess & CycleAccess) {
  return {
    final_report: tool({
      description:
        "Deliver the final answer of this cycle: it is kept on the run record, posted to your active space (if you are in one), and the cycle ends. Use format json with contentJson for structured answers.",
      inputSchema: schemas.finalReport,
      execute: async (input, { toolCallId: modelToolCallId }) => {
        const { status, format = "markdown", content, metadata } = input;
        const json = eitherName(input, "contentJson", "content_json");
        if (!json.ok) return failed(json.error);
        const contentJson = json.value;
        if (format === "json" ? contentJson === undefined : content === undefined) {
          return failed(format === "json" ? "The json format needs contentJson" : `The ${format} format needs content`);
        }
        const toolCallId = context.callIds.idFor(modelToolCallId);
        const report: FinalReport = { status, format, ...(format === "json" ? { contentJson } : { content }), ...(metadata && { metadata }) };
        context.reportFinal(toolCallId, report);
        const spaceId = context.getActiveSpaceId();
        if (!spaceId || !(await context.isMemberOf(spaceId))) return succeeded({ recorded: true, posted: false });
        const message = await context.spaceEvents.track(
          context.spaceEvents
            .ordered(spaceId)
            .postMessage({ id: messageIdForCall(toolCallId), entityId: context.agent.entityId, role: "assistant", text: reportText(report).slice(0, 32_000) }),
        );
        return succeeded({ recorded: true, posted: true, spaceId, messageId: message.id });
      },
    }),

    task_status: tool({
      description: "Report your progress on the current task; people in your active space see it as a live status card (one per cycle, updated in place).",
      inputSchema: schemas.taskStatus,
      execute: async (given) => {
        const { ready_for_final_report, need_to_run_more_tools, ...rest } = given;
        const ready = eitherName(given, "readyForFinalReport", "ready_for_final_report");
        const more = eitherName(given, "needToRunMoreTools", "need_to_run_more_tools");
        if (!ready.ok) return failed(ready.error);
        if (!more.ok) return failed(more.error);
        const input = {
          ...rest,
          ...(typeof ready.value === "boolean" && { readyForFinalReport: ready.value }),
          ...(typeof more.value === "boolean" && { needToRunMoreTools: more.value }),
        };
        context.publish("agent.task.status", { runId: context.runId, ...input });
        const spaceId = context.getActiveSpaceId();
        if (!spaceId || !(await context.isMemberOf(spaceId))) return succeeded({ status: input.status, shown: false });
        const { messageId, partId } = statusCardIds(context.runId, spaceId);
        const state = input.status === "completed" ? "complete" : "running";
        const part: ToolCallPart = { type: "tool_call", toolCallId: partId, toolName: "task_status", args: input, status: state, runId: context.runId, customUI: "TaskStatus" };
        const port = context.spaceEvents.ordered(spaceId);
        const card = await context.spaceEvents.track(port.postMessage({ id: messageId, entityId: context.agent.entityId, role: "tool", parts: [part], status: state }));
        const shown = card.parts?.find((existing) => existing.type === "tool_call" && existing.toolCallId === partId);
        // The card was there already (an earlier status of this cycle): it changes in place.
        if (JSON.stringify(shown) !== JSON.stringify(part) || card.status !== state) {
          await context.spaceEvents.track(port.updateToolPart(messageId, partId, { args: input, status: state }, state));
        }
        return succeeded({ status: input.status, shown: true, spaceId, messageId });
      },
    }),
  };
}
