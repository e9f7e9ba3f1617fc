/**
 * `read_output`: the built-in reader of whole outputs stored behind a
 * handle (`output-store.ts`). It reads a byte range (`offset`, `limit`) or
 * greps the output line by line (`grep`: text, or a regular expression with
 * `regex: true`; each match gives its line number and the byte offset where
 * the line starts, to read around it). Patterns run on the linear-time
 * engine (`security/safe-pattern`) with one call's budget: a pattern that
 * would cost more over this output stops early and says where. An agent
 * reads only its own outputs; an expired handle is an error that says when
 * it expired.
 */
import { dynamicTool, jsonSchema, type Tool } from "ai";
import { compileSafePattern, PatternBudget, searchBudgetUnits } from "../../security/safe-pattern/safe-pattern";
import { readOutput } from "../engine/output-store";
import { headOf } from "../engine/limit-output";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import type { PlatformAccess, RunIdentity, SettingsAccess } from "../engine/tool-context";
import { formatArgumentError, validateToolArguments } from "../engine/validate-tool-arguments";
import type { ToolProvider } from "./tool-provider";

export const outputReaderName = "read_output";
const maxMatches = 200;
const maxMatchChars = 500;

const inputSchema = {
  type: "object",
  properties: {
    handle: { type: "string", pattern: "^out_[A-Za-z0-9]{1,80}$", description: "The handle a truncated result gave (out_…)" },
    offset: { type: "integer", minimum: 0, description: "Byte offset to read from (default 0)" },
    limit: { type: "integer", minimum: 1, description: "Bytes to read (default and maximum: a bit under the agent's toolResponseMaxBytes)" },
    grep: { type: "string", minLength: 1, maxLength: 200, description: "Return the lines that contain this text instead of a range" },
    regex: { type: "boolean", description: "Treat grep as a regular expression (JavaScript syntax; no backreferences or lookaround)" },
    ignoreCase: { type: "boolean" },
  },
  required: ["handle"],
  additionalProperties: false,
};

type ReadInput = { handle: string; offset?: number; limit?: number; grep?: string; regex?: boolean; ignoreCase?: boolean };

export async function readStoredOutput(context: RunIdentity & PlatformAccess & SettingsAccess, input: unknown): Promise<ToolOutcome> {
  const validation = validateToolArguments(inputSchema, input);
  if (!validation.ok) return failed(formatArgumentError(outputReaderName, validation.problems), "validation");
  const args = input as ReadInput;
  const maxBytes = Math.max(256, context.config.limits.toolResponseMaxBytes - 500);
  if (args.grep === undefined) {
    const offset = args.offset ?? 0;
    const limit = Math.min(args.limit ?? maxBytes, maxBytes);
    const read = await readOutput(context.env.FILES, context.agent.agentId, args.handle, { offset, length: limit });
    if (!read.ok) return failed(read.message, read.problem === "expired" ? "timeout" : "validation");
    const text = headOf(read.output.text, limit);
    const readBytes = new TextEncoder().encode(text).byteLength;
    const next = offset + readBytes;
    return succeeded({ handle: args.handle, bytes: read.output.bytes, offset, text, nextOffset: next < read.output.bytes ? next : null, expiresAt: read.output.expiresAt });
  }
  // Plain text or a regular expression, both on the linear-time engine: no pattern can hold the isolate.
  const compiled = compileSafePattern(args.grep, { ignoreCase: args.ignoreCase, literal: !args.regex });
  if (!compiled.ok) return failed(`grep ${compiled.kind === "invalid" ? "is not a valid regular expression" : "cannot be used"}: ${compiled.message}`, "validation");
  const read = await readOutput(context.env.FILES, context.agent.agentId, args.handle);
  if (!read.ok) return failed(read.message, read.problem === "expired" ? "timeout" : "validation");
  const text = read.output.text;
  // Each match says where its line starts, so the model can read around it by offset.
  const matches: { line: number; offset: number; text: string }[] = [];
  let total = 0;
  let budget = maxBytes - 300;
  let bytesBefore = 0;
  let counted = 0;
  const searched = compiled.pattern.matcher().searchLines(text, new PatternBudget(searchBudgetUnits), ({ index, start, end }) => {
    total += 1;
    const lineLength = end - start;
    const line = text.slice(start, start + Math.min(lineLength, maxMatchChars));
    const shown = lineLength > maxMatchChars ? `${line}…` : line;
    if (matches.length >= maxMatches || budget - shown.length - 40 < 0) return true;
    budget -= shown.length + 40;
    bytesBefore += utf8Length(text, counted, start);
    counted = start;
    matches.push({ line: index + 1, offset: bytesBefore, text: shown });
    return true;
  });
  const stopped =
    searched.stopped === "over-budget" ? { stoppedAt: { line: searched.line + 1, offset: bytesBefore + utf8Length(text, counted, searched.at) }, note: stoppedNote } : {};
  return succeeded({
    handle: args.handle,
    bytes: read.output.bytes,
    lines: read.output.lines,
    matches,
    totalMatches: total,
    truncated: total > matches.length || searched.stopped !== false,
    ...stopped,
  });
}

const stoppedNote =
  "The search stopped early: this pattern over this much text costs more than one call may spend. totalMatches counts the lines before stoppedAt; read on from stoppedAt.offset by range, or use a simpler pattern.";

/** UTF-8 bytes of `text` from `from` to `to` (UTF-16 indexes), without copying it. */
function utf8Length(text: string, from: number, to: number): number {
  let bytes = 0;
  for (let index = from; index < to; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < to) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

export function outputReaderProvider(): ToolProvider {
  return {
    name: "builtin",
    kind: "outputs",
    async load(context: RunIdentity & PlatformAccess & SettingsAccess) {
      const tool: Tool = dynamicTool({
        description: "Read a whole tool output that was too large to show: by byte range (offset, limit), or the lines matching grep.",
        inputSchema: jsonSchema(inputSchema),
        execute: (input) => readStoredOutput(context, input),
      });
      return { tools: [{ kind: "raw", name: outputReaderName, origin: outputReaderName, tool }] };
    },
  };
}
