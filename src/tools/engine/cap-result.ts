/** Keeps what the model sees of a tool result under `limits.toolResponseMaxBytes`. */
import { byteLength } from "../../json";

export function capResult(result: unknown, maxBytes: number): unknown {
  const json = JSON.stringify(result ?? null);
  const size = byteLength(json);
  if (size <= maxBytes) return result;
  return {
    truncated: true,
    bytes: size,
    note: `The result was ${size} bytes, over the ${maxBytes}-byte limit; this is its beginning.`,
    preview: json.slice(0, Math.max(0, maxBytes - 200)),
  };
}
