/**
 * The error text a run record, the agent stream and the spaces may show.
 * Provider and tool messages are useful and pass through; raw storage errors
 * (D1, SQLite) can carry SQL and bound parameters, so they are logged and
 * replaced by a plain sentence.
 */
import { errorMessage } from "./cycle-stream";

const storageError = /\bD1_|SQLITE|sqlite|no such table|constraint failed|bind parameters/i;

export function publicErrorMessage(error: unknown): string {
  const message = errorMessage(error);
  if (!storageError.test(message)) return message;
  console.error("storage error during a cycle", error);
  return "A storage error interrupted the cycle (the gateway logged the details)";
}
