/**
 * One SSE connection read with fetch: works where EventSource cannot send
 * headers (the secret key must not go in a URL) and in Node 20, which has
 * neither EventSource nor WebSocket. Resolves when the server ends the
 * stream; throws to be retried, or a FinalStreamError to stop.
 */
import { SseParser } from "./sse-parser.js";
import { FinalStreamError, isFinalStatus, type ConnectionAttempt } from "./stream-connection.js";
import { SwitchboardError } from "./switchboard-error.js";

export async function connectSse(attempt: ConnectionAttempt & { fetch: typeof fetch; headers: Record<string, string>; what: string }): Promise<void> {
  const abort = new AbortController();
  const stop = () => abort.abort();
  attempt.signal.addEventListener("abort", stop);
  let idle: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(
      () => abort.abort(new SwitchboardError({ status: 0, code: "timeout", message: `No event or heartbeat for ${attempt.idleTimeoutMs} ms` })),
      attempt.idleTimeoutMs,
    );
  };
  try {
    touch();
    const response = await attempt.fetch(attempt.url, { headers: { ...attempt.headers, accept: "text/event-stream" }, signal: abort.signal });
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => "");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      const error = SwitchboardError.fromResponse(response.status, body, attempt.what);
      throw isFinalStatus(response.status) ? new FinalStreamError(error) : error;
    }
    attempt.onOpen();
    const parser = new SseParser((frame) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(frame.data);
      } catch {
        return; // a frame that is not JSON is not an event
      }
      attempt.onFrame(parsed);
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      touch();
      parser.push(value);
    }
  } catch (error) {
    if (abort.signal.reason instanceof SwitchboardError) throw abort.signal.reason;
    throw error;
  } finally {
    clearTimeout(idle);
    attempt.signal.removeEventListener("abort", stop);
    abort.abort();
  }
}
