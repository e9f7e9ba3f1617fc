/**
 * Keeps what the model sees of a result under `limits.toolResponseMaxBytes`:
 * a larger result is stored whole in R2 (`output-store.ts`) and the model
 * gets `{truncated, bytes, lines, handle, expiresAt, preview, note}`, the
 * preview being the head of the stored text. If the store fails, the model
 * still gets the head, without a handle. Failures and pending outcomes pass
 * as they are.
 */
import { byteLength } from "../../json";
import type { PlatformAccess, RunIdentity, SettingsAccess } from "./tool-context";
import { handleForCall, outputText, storeOutput } from "./output-store";
import { type ToolOutcome, withMeta } from "./tool-outcome";

export const defaultOutputRetentionMs = 7 * 24 * 3600 * 1000;

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
  return storeWhole(context, call, outcome, maxBytes, `The result was ${size} bytes, over the ${maxBytes}-byte limit`);
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
  reason: string,
): Promise<ToolOutcome> {
  const text = outputText(outcome.value);
  const bytesOut = outcome.meta?.bytesOut ?? byteLength(JSON.stringify(outcome.value ?? null));
  const retentionMs = context.config.limits.outputRetention ?? defaultOutputRetentionMs;
  try {
    const stored = await storeOutput(context.env.FILES, context.agent.agentId, call.toolCallId, text, { toolName: call.toolName, retentionMs });
    const envelope = (preview: string) => ({
      truncated: true,
      bytes: stored.bytes,
      lines: stored.lines,
      handle: stored.handle,
      expiresAt: stored.expiresAt,
      note: `${reason}; it is stored whole: read more with read_output {"handle": "${stored.handle}", "offset": ${byteLength(preview)}} or search it with {"handle": "${stored.handle}", "grep": "…"}. This is its beginning.`,
      preview,
    });
    return { type: "ok", value: fitPreview(text, maxBytes, envelope), meta: { ...outcome.meta, bytesOut, outputHandle: handleForCall(call.toolCallId) } };
  } catch (error) {
    console.error("could not store a whole tool output", call.toolCallId, error);
    const envelope = (preview: string) => ({ truncated: true, bytes: byteLength(text), note: `${reason}; it could not be stored, so only its beginning is here.`, preview });
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
