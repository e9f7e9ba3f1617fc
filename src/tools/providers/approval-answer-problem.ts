/**
 * The check of an approval's answer, beside the configured tools because a
 * gated configured tool's schema is the one its provider gives it.
 */
import type { ToolConfig } from "../config/tool-config";
import { ApprovalAnswer } from "../engine/run-approval";
import type { ToolOutcome } from "../engine/tool-outcome";
import { formatArgumentError, validateToolArguments } from "../engine/validate-tool-arguments";
import { resolveConfiguredTool } from "./configured-tools";

/**
 * What is wrong with an answer to a call, if it is an approval's: not the
 * `{approved, args?, reason?}` shape, or edited arguments that do not fit the
 * gated tool's schema (the one kept when the approval was asked, whatever
 * provider made the tool; else the configured tool's). Undefined when the
 * answer may stand.
 */
export function approvalAnswerProblem(
  call: { kind: string; toolName: string },
  outcome: ToolOutcome,
  schemaOf: { kept: Record<string, unknown> | undefined; tools: readonly ToolConfig[] },
): string | undefined {
  if (call.kind !== "approval" || outcome.type !== "ok") return undefined;
  const answer = ApprovalAnswer.safeParse(outcome.value);
  if (!answer.success) return 'An approval is answered with {"approved": true | false, "args"?: {…}, "reason"?: "…"}';
  if (!answer.data.args) return undefined;
  const configured = schemaOf.tools.find((entry) => entry.name === call.toolName);
  const schema = schemaOf.kept ?? (configured ? resolveConfiguredTool(configured).inputSchema : undefined);
  if (!schema) return undefined;
  const checked = validateToolArguments(schema, answer.data.args);
  return checked.ok ? undefined : formatArgumentError(call.toolName, checked.problems);
}
