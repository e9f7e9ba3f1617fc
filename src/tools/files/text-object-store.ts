/**
 * Text objects in R2 as the notes and file tools use them: reads bounded in
 * size and refused when they are not UTF-8 text; read-modify-writes that
 * are serialised per key in this isolate and conditional on the etag they
 * read (another agent writing the same shared file in between makes the
 * write retry on the new text, never lose it); and idempotent per call: the
 * ids of the last calls that changed an object are kept in its metadata, so
 * a call done again after a restart finds its change already made.
 */
import { KeyedLock } from "../engine/keyed-lock";

const locks = new KeyedLock();
const keptCallIds = 16;
const maxAttempts = 5;

export type StoredText = { text: string; size: number; etag: string; uploaded: Date; contentType: string | undefined; metadata: Record<string, string> };

export type ReadText = { ok: true; value: StoredText } | { ok: false; reason: "not_found" | "too_large" | "not_text"; size?: number; contentType?: string };

export async function readText(bucket: R2Bucket, key: string, maxBytes: number): Promise<ReadText> {
  const head = await bucket.head(key);
  if (!head) return { ok: false, reason: "not_found" };
  if (head.size > maxBytes) return { ok: false, reason: "too_large", size: head.size };
  const object = await bucket.get(key);
  if (!object) return { ok: false, reason: "not_found" };
  const bytes = new Uint8Array(await object.arrayBuffer());
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { ok: false, reason: "not_text", size: bytes.byteLength, contentType: object.httpMetadata?.contentType };
  }
  return {
    ok: true,
    value: { text, size: bytes.byteLength, etag: object.etag, uploaded: object.uploaded, contentType: object.httpMetadata?.contentType, metadata: object.customMetadata ?? {} },
  };
}

export type Change = { text: string; metadata?: Record<string, string>; contentType?: string } | { error: string };
export type Changed = { ok: true; size: number; created: boolean; alreadyDone: boolean; metadata: Record<string, string> } | { ok: false; error: string };

/** The call ids an object's metadata says already changed it. */
export function callsOf(metadata: Record<string, string> | undefined): string[] {
  return metadata?.calls ? metadata.calls.split(",") : [];
}

/**
 * Changes a text object: `change` sees the current text (undefined when there
 * is none) and returns the new text or an error. Done at most once per
 * `callId`; written only if the object did not change since it was read.
 */
export async function changeText(
  bucket: R2Bucket,
  key: string,
  options: { callId: string; maxBytes: number; overwrite?: boolean },
  change: (current: StoredText | undefined) => Change,
): Promise<Changed> {
  return locks.run(key, async () => {
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      const read = await readText(bucket, key, options.maxBytes);
      if (!read.ok && read.reason !== "not_found" && !options.overwrite) {
        return { ok: false, error: read.reason === "too_large" ? `The file is ${read.size} bytes, over the ${options.maxBytes}-byte limit` : "The file is not UTF-8 text" };
      }
      // An overwrite does not need the old content, only the object's metadata (its calls) and etag.
      const head = !read.ok && read.reason !== "not_found" ? await bucket.head(key) : null;
      const current = read.ok
        ? read.value
        : head
          ? { text: "", size: head.size, etag: head.etag, uploaded: head.uploaded, contentType: head.httpMetadata?.contentType, metadata: head.customMetadata ?? {} }
          : undefined;
      if (current && callsOf(current.metadata).includes(options.callId)) {
        return { ok: true, size: current.size, created: false, alreadyDone: true, metadata: current.metadata };
      }
      const next = change(current);
      if ("error" in next) return { ok: false, error: next.error };
      const bytes = new TextEncoder().encode(next.text);
      if (bytes.byteLength > options.maxBytes) return { ok: false, error: `The result would be ${bytes.byteLength} bytes, over the ${options.maxBytes}-byte limit` };
      const calls = [...callsOf(current?.metadata), options.callId].slice(-keptCallIds).join(",");
      const metadata = { ...(current?.metadata ?? {}), ...next.metadata, calls };
      const written = await bucket.put(key, bytes, {
        ...(current && { onlyIf: { etagMatches: current.etag } }),
        customMetadata: metadata,
        httpMetadata: { contentType: next.contentType ?? current?.contentType ?? "text/plain; charset=utf-8" },
      });
      if (written) return { ok: true, size: bytes.byteLength, created: current === undefined, alreadyDone: false, metadata };
      // Someone else wrote it since we read it: read again and apply the change to their text.
    }
    return { ok: false, error: "The file kept changing while it was being written; try again" };
  });
}

/** Runs `task` while no change to `key` runs in this isolate (moves, deletes). */
export function withKeyLock<T>(key: string, task: () => Promise<T>): Promise<T> {
  return locks.run(key, task);
}
