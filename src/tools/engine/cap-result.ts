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

/** A tool result of the form `{error: string}` is a failure. */
export function resultError(result: unknown): string | undefined {
  if (typeof result === "object" && result !== null && "error" in result && typeof result.error === "string") return result.error;
  return undefined;
}
