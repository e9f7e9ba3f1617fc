/**
 * `read_output`: the built-in reader of whole outputs stored behind a
 * handle (`output-store.ts`). It reads a byte range (`offset`, `limit`) or
 * greps the output line by line (`grep`: text, or a regular expression with
 * `regex: true`; each match gives its line number and the byte offset where
 * the line starts, to read around it). An agent reads only its own outputs; an expired handle is
 * an error that says when it expired.
 */
import { dynamicTool, jsonSchema, type Tool } from "ai";
import { readOutput } from "../engine/output-store";
import { headOf } from "../engine/limit-output";
import { failed, succeeded, type ToolOutcome } from "../engine/tool-outcome";
import type { ToolContext } from "../tool-context";
import { formatArgumentError, validateToolArguments } from "../validate-tool-arguments";
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
    regex: { type: "boolean", description: "Treat grep as a regular expression" },
    ignoreCase: { type: "boolean" },
  },
  required: ["handle"],
  additionalProperties: false,
};

type ReadInput = { handle: string; offset?: number; limit?: number; grep?: string; regex?: boolean; ignoreCase?: boolean };

export async function readStoredOutput(context: ToolContext, input: unknown): Promise<ToolOutcome> {
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
  let pattern: RegExp;
  try {
    pattern = args.regex ? new RegExp(args.grep, args.ignoreCase ? "i" : "") : new RegExp(args.grep.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), args.ignoreCase ? "i" : "");
  } catch (error) {
    return failed(`grep is not a valid regular expression: ${(error as Error).message}`, "validation");
  }
  const read = await readOutput(context.env.FILES, context.agent.agentId, args.handle);
  if (!read.ok) return failed(read.message, read.problem === "expired" ? "timeout" : "validation");
  // Each match says where its line starts, so the model can read around it by offset.
  const matches: { line: number; offset: number; text: string }[] = [];
  let total = 0;
  let budget = maxBytes - 300;
  let offset = 0;
  const encoder = new TextEncoder();
  read.output.text.split("\n").forEach((line, index) => {
    const lineStart = offset;
    offset += encoder.encode(line).byteLength + 1;
    if (!pattern.test(line)) return;
    total += 1;
    const text = line.length > maxMatchChars ? `${line.slice(0, maxMatchChars)}…` : line;
    if (matches.length >= maxMatches || budget - text.length - 40 < 0) return;
    budget -= text.length + 40;
    matches.push({ line: index + 1, offset: lineStart, text });
  });
  return succeeded({ handle: args.handle, bytes: read.output.bytes, lines: read.output.lines, matches, totalMatches: total, truncated: total > matches.length });
}

export function outputReaderProvider(): ToolProvider {
  return {
    name: "builtin",
    kind: "outputs",
    async load(context) {
      const tool: Tool = dynamicTool({
        description: "Read a whole tool output that was too large to show: by byte range (offset, limit), or the lines matching grep.",
        inputSchema: jsonSchema(inputSchema),
        execute: (input) => readStoredOutput(context, input),
      });
      return { tools: [{ kind: "raw", name: outputReaderName, origin: outputReaderName, tool }] };
    },
  };
}
