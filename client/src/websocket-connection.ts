/**
 * One WebSocket connection (the browser's, Node 22's, or any class with the
 * same shape, such as the `ws` package's): keeps itself alive with `ping`,
 * gives up when silent, and after a failed handshake asks over HTTP why, so
 * an auth problem ends the subscription instead of being retried forever.
 */
import { FinalStreamError, type ConnectionAttempt } from "./stream-connection.js";
import { isErrorEnvelope, SwitchboardError } from "./switchboard-error.js";

/** What a WebSocket class needs to offer. */
export type WebSocketLike = {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
};
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** Close codes the gateway uses for "do not come back": removed from the space, subject deleted. */
const finalCloseCodes = new Set([4003, 4004]);
const pingEveryMs = 25_000;

export function connectWebSocket(attempt: ConnectionAttempt & { WebSocket: WebSocketConstructor; probe: () => Promise<SwitchboardError | undefined> }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let opened = false;
    let settled = false;
    let probing = false;
    const socket = new attempt.WebSocket(attempt.url);
    let idle: ReturnType<typeof setTimeout> | undefined;
    const ping = setInterval(() => {
      try {
        if (socket.readyState === 1) socket.send("ping");
      } catch {
        // closing
      }
    }, pingEveryMs);
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(new SwitchboardError({ status: 0, code: "timeout", message: `No event or pong for ${attempt.idleTimeoutMs} ms` })), attempt.idleTimeoutMs);
    };
    const stop = () => finish();
    attempt.signal.addEventListener("abort", stop);
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearInterval(ping);
      clearTimeout(idle);
      attempt.signal.removeEventListener("abort", stop);
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      try {
        socket.close(1000, "bye");
      } catch {
        // already closed
      }
      if (error === undefined) resolve();
      else reject(error);
    };
    const ended = (code: number, reason: string) => {
      if (settled || probing) return;
      if (finalCloseCodes.has(code)) {
        const error = new SwitchboardError({ status: 0, code: code === 4003 ? "forbidden" : "gone", message: `The gateway closed the stream: ${reason || code}` });
        finish(new FinalStreamError(error));
        return;
      }
      if (opened) {
        finish(new SwitchboardError({ status: 0, code: "network_error", message: `WebSocket closed (${code}${reason ? ` ${reason}` : ""})` }));
        return;
      }
      // The handshake failed; a WebSocket does not say why. Ask over HTTP.
      probing = true;
      attempt
        .probe()
        .then((problem) =>
          finish(problem ? new FinalStreamError(problem) : new SwitchboardError({ status: 0, code: "network_error", message: `WebSocket handshake failed (${code})` })),
        )
        .catch((error) => finish(error));
    };
    touch();
    socket.onopen = () => {
      opened = true;
      touch();
      attempt.onOpen();
    };
    socket.onmessage = (message) => {
      touch();
      if (typeof message.data !== "string" || message.data === "pong") return;
      let frame: unknown;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (isErrorEnvelope(frame)) return; // an answer to a bad client frame; we send none
      attempt.onFrame(frame);
    };
    // Browsers follow an error with a close event; Node 22's WebSocket may not (a refused handshake only errors).
    socket.onerror = () => ended(1006, "");
    socket.onclose = (event) => ended(event.code, event.reason);
  });
}
