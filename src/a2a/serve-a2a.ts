/**
 * One JSON-RPC request to an agent's A2A endpoint (A2A 1.0 method names):
 * `SendMessage`, `SendStreamingMessage` (SSE), `GetTask`, `CancelTask`,
 * `SubscribeToTask` (SSE), and the push notification configs
 * (`push-config-methods.ts`). `ListTasks` and the extended card answer the
 * protocol's "not supported" errors. Loaded lazily
 * by `a2a-routes.ts`, after the caller and the agent were checked there.
 *
 * How a message is taken in (posted, or answering the call its task waits
 * on) is `incoming-message.ts`; here the task it became is read, waited on,
 * streamed or cancelled.
 */
import type { AgentRecord } from "../agents/agent-record";
import { agentStub } from "../agents/agent-stub";
import type { ApiContext } from "../api/context";
import { maxBodyBytes } from "../api/request-body";
import { ApiError } from "../errors";
import { parseJsonSafely } from "../json";
import { AgentEvents } from "../mcp-face/agent-events";
import { readLimitedBody } from "../security/read-limited-body";
import type { z } from "zod";
import { GetTaskParams, interruptedStates, protocolVersion, SendMessageParams, type StreamResponse, type Task, TaskIdParams, terminalStates } from "./a2a-types";
import type { A2aCaller } from "./conversation";
import { createPushConfig, deletePushConfigOf, getPushConfigOf, listPushConfigsOf } from "./push-config-methods";
import { nextChange } from "./follow-task";
import { invalidParams, RpcError, type RpcId, RpcRequest, rpcError, rpcErrorCodes, rpcResult, taskNotFound } from "./json-rpc";
import { cancelReason, loadTask, taskOf, taskState } from "./task-view";
import { begin, outPart, type Started } from "./incoming-message";

export type A2aRequest = { c: ApiContext; caller: A2aCaller; agent: AgentRecord };

/** How long a blocking send waits for the task to finish or to need its caller. */
const blockingWaitMs = 10 * 60_000;
/** How long a cancellation waits for the run to stop. */
const cancelWaitMs = 15_000;

const versionHeader = "a2a-version";

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
}

function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw invalidParams(parsed.error.issues);
  return parsed.data;
}

/** The protocol version asked for: the header or the query parameter; an empty one means 0.3, which this face does not speak. */
function checkVersion(request: Request): void {
  const asked = (request.headers.get(versionHeader) ?? new URL(request.url).searchParams.get("A2A-Version") ?? "").trim();
  const [major, minor] = asked.split(".");
  if (major === "1" && (minor === undefined || minor === "0")) return;
  throw new RpcError(
    rpcErrorCodes.versionNotSupported,
    `A2A version "${asked || "0.3 (no A2A-Version header)"}" is not supported: this endpoint speaks ${protocolVersion}; send A2A-Version: ${protocolVersion}`,
  );
}

async function readRequest(request: Request): Promise<RpcRequest> {
  const read = await readLimitedBody(request.body, { maxBytes: maxBodyBytes }).catch(() => undefined);
  if (!read) throw new RpcError(rpcErrorCodes.parseError, "The body could not be read to the end");
  if (!read.ok) throw new RpcError(rpcErrorCodes.invalidRequest, `Requests are limited to ${maxBodyBytes} bytes`);
  const parsed = parseJsonSafely(new TextDecoder().decode(read.bytes));
  if (!parsed.ok) throw new RpcError(rpcErrorCodes.parseError, `Invalid JSON payload: ${parsed.message}`);
  const rpc = RpcRequest.safeParse(parsed.value);
  if (!rpc.success) throw new RpcError(rpcErrorCodes.invalidRequest, "Request payload validation error: send one JSON-RPC 2.0 request object {jsonrpc, id, method, params}");
  return rpc.data;
}

/** A failure of the helpers the face shares with the REST routes, as a JSON-RPC error. */
function fromApiError(error: ApiError): RpcError {
  if (error.status >= 500) return new RpcError(rpcErrorCodes.internalError, error.message);
  return new RpcError(rpcErrorCodes.invalidParams, `Invalid parameters: ${error.message}`, [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: error.code }]);
}

export async function serveA2a(request: A2aRequest): Promise<Response> {
  let id: RpcId = null;
  try {
    const rpc = await readRequest(request.c.req.raw);
    id = rpc.id ?? null;
    checkVersion(request.c.req.raw);
    switch (rpc.method) {
      case "SendMessage":
        return json(rpcResult(id, await sendMessage(request, parse(SendMessageParams, rpc.params))));
      case "SendStreamingMessage": {
        const params = parse(SendMessageParams, rpc.params);
        return sse(id, (signal) => streamMessage(request, params, signal));
      }
      case "GetTask": {
        const params = parse(GetTaskParams, rpc.params);
        const record = await loadTask(request.c.env, request.agent, request.caller, params.id);
        if (!record) throw taskNotFound(params.id);
        return json(rpcResult(id, taskOf(record, params.historyLength)));
      }
      case "CancelTask":
        return json(rpcResult(id, await cancelTask(request, parse(TaskIdParams, rpc.params).id)));
      case "SubscribeToTask": {
        const params = parse(TaskIdParams, rpc.params);
        const record = await loadTask(request.c.env, request.agent, request.caller, params.id);
        if (!record) throw taskNotFound(params.id);
        if (terminalStates.has(taskState(record)))
          throw new RpcError(rpcErrorCodes.unsupportedOperation, `Task "${params.id}" is finished (${taskState(record)}): read it with GetTask`);
        return sse(id, (signal) => streamExisting(request, params.id, signal));
      }
      case "CreateTaskPushNotificationConfig":
        return json(rpcResult(id, await createPushConfig(request, rpc.params)));
      case "GetTaskPushNotificationConfig":
        return json(rpcResult(id, await getPushConfigOf(request, rpc.params)));
      // The singular is the name the SDKs' gRPC binding gives it.
      case "ListTaskPushNotificationConfigs":
      case "ListTaskPushNotificationConfig":
        return json(rpcResult(id, await listPushConfigsOf(request, rpc.params)));
      case "DeleteTaskPushNotificationConfig":
        return json(rpcResult(id, await deletePushConfigOf(request, rpc.params)));
      case "ListTasks":
        throw new RpcError(rpcErrorCodes.unsupportedOperation, "ListTasks is not supported by this agent: keep the task ids SendMessage returns");
      case "GetExtendedAgentCard":
        throw new RpcError(rpcErrorCodes.extendedCardNotConfigured, "This agent has no extended Agent Card");
      default:
        throw new RpcError(rpcErrorCodes.methodNotFound, `Method not found: "${rpc.method}"`);
    }
  } catch (error) {
    return json(rpcError(id, toRpcError(error)));
  }
}

function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof ApiError) return fromApiError(error);
  console.error("an A2A request failed", error);
  return new RpcError(rpcErrorCodes.internalError, "Internal error");
}

/** The task as durable state has it; just after its run started the record may not be written yet: then it is working. */
async function readTask(request: A2aRequest, started: Pick<Started, "taskId" | "contextId" | "userMessage">): Promise<Task> {
  const record = await loadTask(request.c.env, request.agent, request.caller, started.taskId);
  if (record) return taskOf(record);
  const { userMessage } = started;
  return {
    id: started.taskId,
    contextId: started.contextId,
    status: { state: "TASK_STATE_WORKING", timestamp: new Date().toISOString() },
    ...(userMessage && {
      history: [{ messageId: userMessage.messageId, contextId: started.contextId, taskId: started.taskId, role: "ROLE_USER", parts: userMessage.parts.map(outPart) }],
    }),
  };
}

const settled = (task: Task) => terminalStates.has(task.status.state) || interruptedStates.has(task.status.state);

async function sendMessage(request: A2aRequest, params: SendMessageParams): Promise<{ task: Task } | { message: unknown }> {
  const signal = request.c.req.raw.signal;
  const started = await begin(request, params, signal);
  if ("message" in started) return started;
  try {
    let task = await readTask(request, started);
    if (params.configuration?.returnImmediately) return { task };
    const deadline = Date.now() + blockingWaitMs;
    while (!settled(task)) {
      const change = await nextChange(started.events, started.taskId, deadline, signal);
      task = await readTask(request, started);
      if (change.kind !== "changed" && change.kind !== "finished") break;
    }
    return { task: withHistoryLength(task, params.configuration?.historyLength) };
  } finally {
    started.events.close();
  }
}

function withHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined || !task.history) return task;
  const { history, ...rest } = task;
  return historyLength === 0 ? rest : { ...rest, history: history.slice(-historyLength) };
}

/** The task's first snapshot, then what changes: new artifacts, then the new status; ends when it finishes or waits on its caller. */
async function* follow(request: A2aRequest, started: Pick<Started, "events" | "taskId" | "contextId" | "userMessage">, signal: AbortSignal): AsyncGenerator<StreamResponse> {
  let last = await readTask(request, started);
  yield { task: last };
  const deadline = Date.now() + blockingWaitMs;
  while (!settled(last)) {
    const change = await nextChange(started.events, started.taskId, deadline, signal);
    if (change.kind !== "changed" && change.kind !== "finished") return;
    const current = await readTask(request, started);
    for (const artifact of current.artifacts ?? []) {
      if (!last.artifacts?.some((known) => known.artifactId === artifact.artifactId))
        yield { artifactUpdate: { taskId: current.id, contextId: current.contextId, artifact, lastChunk: true } };
    }
    if (current.status.state !== last.status.state || change.kind === "finished")
      yield { statusUpdate: { taskId: current.id, contextId: current.contextId, status: current.status } };
    last = current;
    if (change.kind === "finished") return;
  }
}

async function* streamMessage(request: A2aRequest, params: SendMessageParams, signal: AbortSignal): AsyncGenerator<StreamResponse> {
  const started = await begin(request, params, signal);
  if ("message" in started) {
    yield started as { message: never };
    return;
  }
  try {
    yield* follow(request, started, signal);
  } finally {
    started.events.close();
  }
}

async function* streamExisting(request: A2aRequest, taskId: string, signal: AbortSignal): AsyncGenerator<StreamResponse> {
  const events = await AgentEvents.open(request.c.env, request.agent.id);
  try {
    const record = await loadTask(request.c.env, request.agent, request.caller, taskId);
    if (!record) throw taskNotFound(taskId);
    yield* follow(request, { events, taskId, contextId: record.contextId }, signal);
  } finally {
    events.close();
  }
}

async function cancelTask(request: A2aRequest, taskId: string): Promise<Task> {
  const { c, agent, caller } = request;
  const record = await loadTask(c.env, agent, caller, taskId);
  if (!record) throw taskNotFound(taskId);
  const state = taskState(record);
  if (terminalStates.has(state)) throw new RpcError(rpcErrorCodes.taskNotCancelable, `Task "${taskId}" is already ${state}`);
  const events = await AgentEvents.open(c.env, agent.id);
  try {
    // Only this task's run: another run that is active now is not the caller's to stop.
    const stopped = await agentStub(c.env, agent.id).abortRun(cancelReason, taskId);
    if (!stopped.aborted || stopped.runId !== taskId) throw new RpcError(rpcErrorCodes.taskNotCancelable, `Task "${taskId}" is not the agent's active run`);
    const deadline = Date.now() + cancelWaitMs;
    let task = await readTask(request, { taskId, contextId: record.contextId });
    while (!terminalStates.has(task.status.state)) {
      const change = await nextChange(events, taskId, deadline, c.req.raw.signal);
      task = await readTask(request, { taskId, contextId: record.contextId });
      if (change.kind !== "changed" && change.kind !== "finished") break;
    }
    return task;
  } finally {
    events.close();
  }
}

/** A JSON-RPC stream: each item a result with the request's id, as SSE `data:` lines; an error ends it as an error. */
function sse(id: RpcId, produce: (signal: AbortSignal) => AsyncGenerator<StreamResponse>): Response {
  const abort = new AbortController();
  const encoder = new TextEncoder();
  const items = produce(abort.signal);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await items.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(`data: ${JSON.stringify(rpcResult(id, next.value))}\n\n`));
      } catch (error) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(rpcError(id, toRpcError(error)))}\n\n`));
        controller.close();
      }
    },
    async cancel() {
      abort.abort();
      await items.return(undefined);
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}
