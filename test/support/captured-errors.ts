/**
 * For a test whose case the code logs on purpose (a stored row that does not
 * parse, a configuration problem): what the code writes with `console.error`
 * from now to the end of the test is kept, not printed, and the test checks
 * it. Tests and the objects share one isolate, so this sees the objects' logs
 * too. Restored when the test finishes, however it ends.
 */
import { onTestFinished, vi } from "vitest";

/** Starts capturing; the returned function gives each captured call as one line (an Error as its message). */
export function capturedErrors(): () => string[] {
  const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
  onTestFinished(() => spy.mockRestore());
  return () => spy.mock.calls.map((parts) => parts.map((part) => (part instanceof Error ? part.message : String(part))).join(" "));
}
