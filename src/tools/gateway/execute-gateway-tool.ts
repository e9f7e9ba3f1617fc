/**
 * Runs a `gateway` tool: one HTTP request to `execution.url`, bounded in time
 * and in response size and depth. Whatever goes wrong becomes data for the model
 * (`{error}`), never a throw, so a failing tool cannot break a cycle.
 */
import { parseJsonSafely } from "../../json";
import { pinnedFetch, pinUrl } from "../../security/pinned-request";
import { readLimitedBody } from "../../security/read-limited-body";
import { buildGatewayRequest } from "./build-gateway-request";
import { type StreamFormat, StreamedRecords, streamFormatOf } from "./streamed-records";
import { withGatewayHeaders } from "../config/configured-headers";
import type { GatewayExecutionInput } from "../config/tool-config";
import type { GatewayRequest } from "./build-gateway-request";

export type GatewayToolOptions = {
  execution: GatewayExecutionInput;
  args: unknown;
  env: Record<string, unknown>;
  timeoutMs: number;
  /** The cap when the tool sets no `execution.maxResponseBytes` (e.g. `limits.toolResponseMaxBytes`). */
  maxResponseBytes: number;
  fetch?: typeof fetch;
  /** Aborts the request from outside, e.g. when the cycle is cancelled. */
  signal?: AbortSignal;
  /** Headers the gateway adds: the hop count always wins over a configured header; others (`idempotency-key`) yield to one. */
  extraHeaders?: Record<string, string>;
  /** Each record of a streamed answer (NDJSON or SSE) as it arrives (`streamed-records.ts`): the call's progress. */
  onProgress?: (update: { progress: number; message: string }) => void;
};

/** Why a request failed: the arguments or config could not make a request, the policy refused it, it took too long, or the upstream answered badly. */
export type GatewayFailureKind = "validation" | "permission" | "timeout" | "upstream";

/** `challenge`: the `WWW-Authenticate` header of a refusal, for a caller that holds a token (never shown to the model). */
export type GatewayToolResult = { ok: true; value: unknown } | { ok: false; error: string; status?: number; kind: GatewayFailureKind; challenge?: string };

const errorSnippetBytes = 2048;
const errorSnippetCharacters = 500;

/** The engine's entry point: the parsed JSON answer, or `{error, status?}` for the model. */
export async function executeGatewayTool(options: GatewayToolOptions): Promise<unknown> {
  const result = await runGatewayTool(options);
  if (result.ok) return result.value;
  return result.status === undefined ? { error: result.error } : { error: result.error, status: result.status };
}

/** Like `executeGatewayTool`, as a discriminated result. Never throws. */
export async function runGatewayTool(options: GatewayToolOptions): Promise<GatewayToolResult> {
  const built = buildGatewayRequest(options.execution, options.args, options.env);
  if (!built.ok) return built;
  return sendGatewayRequest(built.request, { ...options, maxResponseBytes: options.execution.maxResponseBytes ?? options.maxResponseBytes });
}

export type SendOptions = Pick<GatewayToolOptions, "timeoutMs" | "maxResponseBytes" | "fetch" | "signal" | "extraHeaders" | "onProgress">;

/**
 * Sends a request built elsewhere (a gateway tool's, an OpenAPI operation's):
 * only to its pinned origin (`security/pinned-request.ts`), bounded in time,
 * in response size and depth, no redirects followed, JSON answers parsed.
 * Never throws.
 */
export async function sendGatewayRequest(request: GatewayRequest, options: SendOptions): Promise<GatewayToolResult> {
  // The gateway's own headers (the hop count) replace configured ones; a configured idempotency-key stays.
  request.headers = withGatewayHeaders(request.headers, options.extraHeaders);
  // The one check every request with configured headers passes, on the URL as it is sent.
  const pinned = pinUrl(request.url, request.pin);
  if (!pinned.ok) return { ok: false, error: `The request was not sent: ${pinned.error}`, kind: "permission" };
  const host = pinned.url.host;
  const maxBytes = options.maxResponseBytes;
  const doFetch = pinnedFetch(request.pin, options.fetch);

  if (options.signal?.aborted) return { ok: false, error: "Tool request was cancelled", kind: "timeout" };
  const controller = new AbortController();
  let interruption: "timeout" | "cancelled" | undefined;
  let rejectInterrupted: (reason: Error) => void = () => undefined;
  const interrupted = new Promise<never>((_resolve, reject) => (rejectInterrupted = reject));
  interrupted.catch(() => undefined);
  const interrupt = (kind: "timeout" | "cancelled") => {
    interruption ??= kind;
    const reason = new Error(kind === "timeout" ? "Tool request timed out" : "Tool request was cancelled");
    controller.abort(reason);
    rejectInterrupted(reason);
  };
  const timer = setTimeout(() => interrupt("timeout"), options.timeoutMs);
  const onOuterAbort = () => interrupt("cancelled");
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });

  try {
    const response = await Promise.race([
      doFetch(pinned.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
      }),
      interrupted,
    ]);
    return await readAnswer(response, host, maxBytes, interrupted, options.onProgress);
  } catch (error) {
    if (interruption === "timeout") return { ok: false, error: `Tool request timed out after ${options.timeoutMs}ms`, kind: "timeout" };
    if (interruption === "cancelled") return { ok: false, error: "Tool request was cancelled", kind: "timeout" };
    return { ok: false, error: `Tool request to ${host} failed: ${error instanceof Error ? error.message : String(error)}`, kind: "upstream" };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onOuterAbort);
  }
}

async function readAnswer(response: Response, host: string, maxBytes: number, interrupted: Promise<never>, onProgress?: SendOptions["onProgress"]): Promise<GatewayToolResult> {
  const discard = () => void response.body?.cancel().catch(() => undefined);
  if (response.status >= 300 && response.status < 400) {
    discard();
    const location = response.headers.get("location");
    return {
      ok: false,
      error: `HTTP ${response.status} from ${host}: redirects are not followed${location ? ` (to ${location})` : ""}`,
      status: response.status,
      kind: "upstream",
    };
  }
  if (!response.ok) {
    const snippet = await readLimitedBody(response.body, { maxBytes: errorSnippetBytes, interrupted, overflow: "truncate" });
    const text = snippet.ok ? new TextDecoder().decode(snippet.bytes).trim().slice(0, errorSnippetCharacters) : "";
    const challenge = response.headers.get("www-authenticate");
    return {
      ok: false,
      error: `HTTP ${response.status} from ${host}${text ? `: ${text}` : ""}`,
      status: response.status,
      kind: "upstream",
      ...(challenge !== null && { challenge }),
    };
  }

  const declaredLength = Number(response.headers.get("content-length") ?? "");
  if (Number.isFinite(declaredLength) && declaredLength > maxBytes) {
    discard();
    return { ok: false, error: `Tool response exceeded ${maxBytes} bytes`, kind: "upstream" };
  }
  const contentType = response.headers.get("content-type");
  const mediaType = contentType?.split(";")[0].trim().toLowerCase();
  const format = streamFormatOf(mediaType);
  if (format !== undefined) return readStreamedAnswer(response, format, maxBytes, interrupted, onProgress);
  if (mediaType !== undefined && mediaType !== "application/json" && !mediaType.endsWith("+json")) {
    discard();
    return { ok: false, error: `Tool returned a non-JSON response (content-type ${contentType})`, kind: "upstream" };
  }

  const body = await readLimitedBody(response.body, { maxBytes, interrupted });
  if (!body.ok) return { ok: false, error: `Tool response exceeded ${maxBytes} bytes`, kind: "upstream" };
  if (body.bytes.byteLength === 0) return { ok: true, value: { success: true, status: response.status } };
  const parsed = parseJsonSafely(new TextDecoder().decode(body.bytes));
  if (parsed.ok) return parsed;
  // Too deep to handle safely later (comparison, storage): an error for the model, never a crash.
  if (parsed.code === "too_deep") return { ok: false, error: `Tool response refused: ${parsed.message}`, kind: "upstream" };
  if (mediaType === undefined) return { ok: false, error: "Tool returned a non-JSON response (no content-type)", kind: "upstream" };
  return { ok: false, error: `Tool returned invalid JSON: ${parsed.message}`, kind: "upstream" };
}

/** Progress messages carry at most this much of a record's text. */
const progressMessageCharacters = 200;

/** A streamed answer, read record by record (each one progress), bounded like any answer: `{format, items}`. */
async function readStreamedAnswer(
  response: Response,
  format: StreamFormat,
  maxBytes: number,
  interrupted: Promise<never>,
  onProgress: SendOptions["onProgress"],
): Promise<GatewayToolResult> {
  const records = new StreamedRecords(format, (record, count) => onProgress?.({ progress: count, message: record.text.slice(0, progressMessageCharacters) }));
  const body = await readLimitedBody(response.body, { maxBytes, interrupted, onChunk: (chunk) => records.push(chunk) });
  if (!body.ok) return { ok: false, error: `Tool response exceeded ${maxBytes} bytes`, kind: "upstream" };
  records.end();
  if (records.problem !== undefined) return { ok: false, error: `Tool returned invalid NDJSON: ${records.problem}`, kind: "upstream" };
  return { ok: true, value: { format, items: records.values } };
}
