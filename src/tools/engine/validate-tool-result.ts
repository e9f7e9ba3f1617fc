/**
 * A result given for a call (by the result route, a callback URL or a
 * sub-agent's answer: every way goes through the agent object's pending-call
 * owner) checked against its tool's `resultSchema` before anything changes.
 * The same compiled validator and `/path: problem` lines as the arguments a
 * model gives (`validateToolArguments`). A tool whose `resultSchemaMode` is
 * `advisory` takes any result (the schema only shapes the answer form); a
 * reported failure (`error`) and an approval's answer are not results.
 */
import { compileInputSchema } from "../json-schema/compile-input-schema";
import type { ToolOutcome } from "./tool-outcome";
import type { ToolConfig } from "../config/tool-config";
import { validateToolArguments } from "./validate-tool-arguments";

/** Why `outcome` may not stand as the call's result, or undefined. */
export function resultSchemaProblem(call: { kind: string; toolName: string }, outcome: ToolOutcome, tools: readonly ToolConfig[]): string | undefined {
  if (call.kind === "approval" || outcome.type !== "ok") return undefined;
  const tool = tools.find((entry) => entry.name === call.toolName);
  if (!tool?.resultSchema || tool.resultSchemaMode === "advisory") return undefined;
  // Checked at save since result schemas are enforced; one stored before that and broken is not held against the answer.
  if (!compileInputSchema(tool.resultSchema).ok) return undefined;
  const checked = validateToolArguments(tool.resultSchema, outcome.value);
  return checked.ok ? undefined : `The result does not match the resultSchema of tool "${call.toolName}": ${checked.problems.join("; ")}`;
}
