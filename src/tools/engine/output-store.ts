/**
 * Whole tool outputs in R2 (the `FILES` binding), behind a handle. A result
 * larger than `limits.toolResponseMaxBytes` is stored whole under
 * `outputs/<agentId>/<toolCallId>` (its key comes from the gateway call id,
 * so a call done again after a restart writes the same object) and the model
 * gets its head, its size and the handle; `read_output` reads it by byte
 * range or greps it. Handles expire after `limits.outputRetention`: the
 * reader refuses an expired one, and a bucket lifecycle rule on `outputs/`
 * deletes the objects (docs/tools.md).
 */
const handlePattern = /^out_([A-Za-z0-9]{1,80})$/;

export type StoredOutput = { handle: string; bytes: number; lines: number; expiresAt: string };
export type OutputText = { text: string; bytes: number; lines: number; expiresAt: string; toolName: string };
export type ReadProblem = { problem: "unknown" | "expired"; message: string };

/** The handle the model reads a call's output by. */
export function handleForCall(toolCallId: string): string {
  return `out_${toolCallId.replace(/^call_/, "")}`;
}

function keyFor(agentId: string, handle: string): string | undefined {
  const match = handlePattern.exec(handle);
  return match ? `outputs/${agentId}/call_${match[1]}` : undefined;
}

/** The text an output is stored as: a string as it is, anything else as indented JSON (one value a line, easy to grep). */
export function outputText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? "null");
}

export function countLines(text: string): number {
  let lines = 1;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) lines += 1;
  return lines;
}

export async function storeOutput(
  bucket: R2Bucket,
  agentId: string,
  toolCallId: string,
  text: string,
  options: { toolName: string; retentionMs: number; now?: number },
): Promise<StoredOutput> {
  const handle = handleForCall(toolCallId);
  const bytes = new TextEncoder().encode(text);
  const lines = countLines(text);
  const expiresAt = new Date((options.now ?? Date.now()) + options.retentionMs).toISOString();
  await bucket.put(`outputs/${agentId}/${toolCallId}`, bytes, {
    httpMetadata: { contentType: "text/plain; charset=utf-8" },
    customMetadata: { toolName: options.toolName, expiresAt, lines: String(lines) },
  });
  return { handle, bytes: bytes.byteLength, lines, expiresAt };
}

/** An output's bytes `[offset, offset + length)`, or all of it; never another agent's (the key is the agent's own prefix). */
export async function readOutput(
  bucket: R2Bucket,
  agentId: string,
  handle: string,
  range?: { offset: number; length: number },
  now = Date.now(),
): Promise<{ ok: true; output: OutputText } | ({ ok: false } & ReadProblem)> {
  const key = keyFor(agentId, handle);
  if (!key) return { ok: false, problem: "unknown", message: `"${handle}" is not an output handle (they look like out_…)` };
  const object = await bucket.get(key, range ? { range: { offset: range.offset, length: Math.max(1, range.length) } } : undefined);
  if (!object) return { ok: false, problem: "unknown", message: `No stored output "${handle}"` };
  const expiresAt = object.customMetadata?.expiresAt ?? new Date(0).toISOString();
  if (Date.parse(expiresAt) <= now) {
    await object.body.cancel();
    return { ok: false, problem: "expired", message: `The output "${handle}" expired at ${expiresAt}` };
  }
  const text = new TextDecoder().decode(await object.arrayBuffer());
  return {
    ok: true,
    output: { text, bytes: object.size, lines: Number(object.customMetadata?.lines ?? "0"), expiresAt, toolName: object.customMetadata?.toolName ?? "" },
  };
}

/** Deletes every stored output of an agent (when it is deleted). */
export async function deleteOutputsOf(bucket: R2Bucket, agentId: string): Promise<void> {
  await deletePrefix(bucket, `outputs/${agentId}/`);
}

/** Deletes every object under `prefix` (a page of up to 1,000 keys at a time). */
export async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor, limit: 1000 });
    if (page.objects.length > 0) await bucket.delete(page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}
