/**
 * Keeps what the model sees of a result under `limits.toolResponseMaxBytes`:
 * a larger result is stored whole in R2 (`output-store.ts`) and the model
 * gets `{truncated, bytes, lines, handle, expiresAt, reason, tokens,
 * tool_output, note, preview}`, the preview being the head of the stored
 * text; `reason` (`size_limit_exceeded`, or `context_budget_exceeded` when the
 * step's budget stored it), `tokens` (about four bytes a token) and
 * `tool_output: {handle, reason, bytes, lines, tokens}` are the orchestrator's
 * handle message, beside the gateway's own fields. If the store fails, the
 * model still gets the head, without a handle. Failures and pending outcomes
 * pass as they are.
 */
import { byteLength } from "../../json";
import type { PlatformAccess, RunIdentity, SettingsAccess } from "./tool-context";
import { handleForCall, outputText, storeOutput } from "./output-store";
import { type ToolOutcome, withMeta } from "./tool-outcome";

export const defaultOutputRetentionMs = 7 * 24 * 3600 * 1000;

/** Why an output went behind a handle, in the orchestrator's words. */
export type StoredReason = "size_limit_exceeded" | "context_budget_exceeded";

/** About four bytes a token: the estimate the context budget counts in too. */
export const bytesPerToken = 4;
export const estimatedTokens = (bytes: number) => Math.ceil(bytes / bytesPerToken);

/** The first `maxBytes` of `text`, never cutting a character in half. */
export function headOf(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return "";
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength <= maxBytes) return text;
  const head = new TextDecoder().decode(bytes.subarray(0, maxBytes));
  // Drop the half character the cut made, by a scan from the end: `/\uFFFD+$/` would retry a long
  // run of replacement characters (an upstream's invalid bytes) from each of them.
  let end = head.length;
  while (end > 0 && head.charCodeAt(end - 1) === 0xfffd) end -= 1;
  return head.slice(0, end);
}

/** The size of what the model sees of an outcome. */
export function modelBytes(outcome: ToolOutcome): number {
  if (outcome.type !== "ok") return 0;
  if (outcome.content) return outcome.content.reduce((sum, part) => sum + (part.type === "text" ? byteLength(part.text) : part.data.length), 0);
  return byteLength(JSON.stringify(outcome.value ?? null));
}

export async function limitOutput(
  context: RunIdentity & PlatformAccess & SettingsAccess,
  call: { toolCallId: string; toolName: string },
  outcome: ToolOutcome,
  maxBytes = context.config.limits.toolResponseMaxBytes,
): Promise<ToolOutcome> {
  if (outcome.type !== "ok" || outcome.content) return outcome;
  if (outcome.meta?.outputHandle) return outcome;
  const size = modelBytes(outcome);
  if (size <= maxBytes) return withMeta(outcome, { bytesOut: outcome.meta?.bytesOut ?? size });
  return storeWhole(context, call, outcome, maxBytes, { code: "size_limit_exceeded", text: `The result was ${size} bytes, over the ${maxBytes}-byte limit` });
}

/**
 * Stores an ok outcome's value whole and answers with its head and handle,
 * the whole answer (as the model sees it, JSON) at most `maxBytes`.
 */
export async function storeWhole(
  context: RunIdentity & PlatformAccess & SettingsAccess,
  call: { toolCallId: string; toolName: string },
  outcome: Extract<ToolOutcome, { type: "ok" }>,
  maxBytes: number,
  reason: { code: StoredReason; text: string },
): Promise<ToolOutcome> {
  const text = outputText(outcome.value);
  const bytesOut = outcome.meta?.bytesOut ?? byteLength(JSON.stringify(outcome.value ?? null));
  const retentionMs = context.config.limits.outputRetention ?? defaultOutputRetentionMs;
  try {
    const stored = await storeOutput(context.env.FILES, context.agent.agentId, call.toolCallId, text, { toolName: call.toolName, retentionMs });
    const tokens = estimatedTokens(stored.bytes);
    const envelope = (preview: string) => ({
      truncated: true,
      bytes: stored.bytes,
      lines: stored.lines,
      handle: stored.handle,
      expiresAt: stored.expiresAt,
      reason: reason.code,
      tokens,
      tool_output: { handle: stored.handle, reason: reason.code, bytes: stored.bytes, lines: stored.lines, tokens },
      note: `${reason.text}; it is stored whole: read more with read_output {"handle": "${stored.handle}", "offset": ${byteLength(preview)}} or search it with {"handle": "${stored.handle}", "grep": "…"}. This is its beginning.`,
      preview,
    });
    return { type: "ok", value: fitPreview(text, maxBytes, envelope), meta: { ...outcome.meta, bytesOut, outputHandle: handleForCall(call.toolCallId) } };
  } catch (error) {
    console.error("could not store a whole tool output", call.toolCallId, error);
    const bytes = byteLength(text);
    const envelope = (preview: string) => ({
      truncated: true,
      bytes,
      reason: reason.code,
      tokens: estimatedTokens(bytes),
      note: `${reason.text}; it could not be stored, so only its beginning is here.`,
      preview,
    });
    return { type: "ok", value: fitPreview(text, maxBytes, envelope), meta: { ...outcome.meta, bytesOut } };
  }
}

/** The envelope with the longest head of `text` whose JSON fits in `maxBytes` (escaping makes text longer as JSON). */
export function fitPreview<T>(text: string, maxBytes: number, envelope: (preview: string) => T): T {
  let previewBytes = Math.max(0, maxBytes - byteLength(JSON.stringify(envelope(""))));
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const candidate = envelope(headOf(text, previewBytes));
    const over = byteLength(JSON.stringify(candidate)) - maxBytes;
    if (over <= 0 || previewBytes === 0) return candidate;
    previewBytes = Math.max(0, previewBytes - over - 8);
  }
  return envelope("");
}
