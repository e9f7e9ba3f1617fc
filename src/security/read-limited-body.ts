/**
 * Reads a body (an answer the gateway fetched, or a request it was sent)
 * while counting bytes, and cancels the stream the moment it passes the cap,
 * so an oversized body is never buffered whole.
 */
export type LimitedBody = { ok: true; bytes: Uint8Array<ArrayBuffer> } | { ok: false; reason: "too_large" };

export type ReadLimitedBodyOptions = {
  maxBytes: number;
  /** Rejects to abandon a read that hangs (timeout or cancellation); without it, reads wait as long as the stream does. */
  interrupted?: Promise<never>;
  /** `truncate` keeps the first `maxBytes` (for error snippets) instead of failing. */
  overflow?: "fail" | "truncate";
  /** Each chunk as it arrives, once it is within the cap (a streamed answer read record by record). */
  onChunk?: (chunk: Uint8Array) => void;
};

export async function readLimitedBody(
  body: ReadableStream<Uint8Array> | null,
  { maxBytes, interrupted, overflow = "fail", onChunk }: ReadLimitedBodyOptions,
): Promise<LimitedBody> {
  if (body === null) return { ok: true, bytes: new Uint8Array() };
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { done, value } = await (interrupted ? Promise.race([reader.read(), interrupted]) : reader.read());
      if (done) break;
      if (total + value.byteLength > maxBytes) {
        stop();
        if (overflow === "fail") return { ok: false, reason: "too_large" };
        chunks.push(value.subarray(0, maxBytes - total));
        total = maxBytes;
        break;
      }
      chunks.push(value);
      total += value.byteLength;
      onChunk?.(value);
    }
  } catch (error) {
    stop();
    throw error;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}
