/**
 * Remote A2A 1.0 agents for the `a2a` tool provider's tests, served in Node
 * by the A2A SDK's own server (`DefaultRequestHandler` behind
 * `JsonRpcTransportHandler`, tasks in an `InMemoryTaskStore`) on the fake
 * host `a2a.test`:
 *
 * - `/main/card.json` (pushes task updates) and `/nopush/card.json` (does
 *   not): the agent "Remote Helper", its JSON-RPC endpoint at `/main/rpc`
 *   or `/nopush/rpc`; `/.well-known/agent-card.json` is the main card.
 *   Skills, chosen by the message's `metadata.skillId`: `echo` completes at
 *   once (an artifact with the text and the data it got); `slow` works until
 *   `POST /release/<message text>`, then completes; `ask` asks for input;
 *   `never` works forever; `fail` fails.
 * - A conforming remote: a `SendMessage` whose `messageId` it already took
 *   answers with the task that message made (the protocol lets an agent use
 *   the `messageId` to tell a message sent again); the SDK's server alone
 *   would start a second task. A message whose text begins `hold-` on the
 *   `slow` skill gets its task made, but the answer to its first
 *   `SendMessage` never comes (a caller that dies before it hears back).
 * - Pushes are not sent (Node's fetch cannot reach the gateway under test):
 *   each is recorded, `GET /pushes/<taskId>` lists them (`url`, `body`), and
 *   the test relays them. `GET /calls` lists every JSON-RPC request (method,
 *   the task it names or made, headers; for `SendMessage`, the `messageId`,
 *   the params as sent, when it came, and whether it was a repeat).
 * - `/huge/card.json` is a card of 1 MB; `/slow/card.json` never answers.
 */
import { AgentCard, Artifact, Message, StreamResponse, Task, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import {
  type AgentExecutor,
  AgentEvent,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  type PushNotificationSender,
  type RequestContext,
  ServerCallContext,
  UnauthenticatedUser,
} from "@a2a-js/sdk/server";

type Push = { taskId: string; url: string; body: string };
type RpcCall = {
  variant: string;
  method: string;
  taskId?: string;
  headers: Record<string, string>;
  messageId?: string;
  params?: unknown;
  receivedAt?: number;
  repeated?: boolean;
};

const pushes: Push[] = [];
const calls: RpcCall[] = [];
/** The task each message made, by variant and `messageId`. */
const taskOfMessage = new Map<string, string>();
const releases = new Map<string, () => void>();
const released = new Set<string>();

function cardJson(variant: string, pushNotifications: boolean) {
  return {
    name: "Remote Helper",
    description: "A remote agent for tests",
    version: "1.0.0",
    supportedInterfaces: [{ url: `http://a2a.test/${variant}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: false, pushNotifications },
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: ["echo", "slow", "ask", "never", "fail"].map((id) => ({ id, name: id, description: `The ${id} skill`, tags: [id] })),
  };
}

function waitForRelease(key: string): Promise<void> {
  if (released.has(key)) return Promise.resolve();
  return new Promise((resolve) => releases.set(key, resolve));
}

const status = (taskId: string, contextId: string, state: string, text?: string) =>
  AgentEvent.statusUpdate(
    TaskStatusUpdateEvent.fromJSON({
      taskId,
      contextId,
      status: { state, ...(text && { message: { messageId: crypto.randomUUID(), role: "ROLE_AGENT", parts: [{ text }] } }) },
    }),
  );

const artifact = (taskId: string, contextId: string, parts: unknown[]) =>
  AgentEvent.artifactUpdate({
    taskId,
    contextId,
    artifact: Artifact.fromJSON({ artifactId: crypto.randomUUID(), name: "answer", parts }),
    append: false,
    lastChunk: true,
    metadata: undefined,
  });

const executor: AgentExecutor = {
  async execute(context: RequestContext, bus: ExecutionEventBus) {
    const { taskId, contextId, userMessage } = context;
    const text = userMessage.parts.flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : [])).join(" ");
    const data = userMessage.parts.flatMap((part) => (part.content?.$case === "data" ? [part.content.value] : []));
    const skill = String(userMessage.metadata?.skillId ?? "echo");
    bus.publish(AgentEvent.task(Task.fromJSON({ id: taskId, contextId, status: { state: "TASK_STATE_SUBMITTED" }, history: [Message.toJSON(userMessage)] })));
    if (skill === "echo") {
      bus.publish(artifact(taskId, contextId, [{ text: `echo: ${text}` }, ...data.map((value) => ({ data: value }))]));
      bus.publish(status(taskId, contextId, "TASK_STATE_COMPLETED"));
    } else if (skill === "ask") {
      bus.publish(status(taskId, contextId, "TASK_STATE_INPUT_REQUIRED", "Which size: S, M or L?"));
    } else if (skill === "fail") {
      bus.publish(status(taskId, contextId, "TASK_STATE_FAILED", "The warehouse is closed"));
    } else {
      bus.publish(status(taskId, contextId, "TASK_STATE_WORKING", "On it"));
      if (skill === "never") return new Promise<void>(() => undefined);
      await waitForRelease(text);
      bus.publish(artifact(taskId, contextId, [{ text: `done: ${text}` }]));
      bus.publish(status(taskId, contextId, "TASK_STATE_COMPLETED"));
    }
    bus.finished();
  },
  async cancelTask() {},
};

/** Records each push instead of sending it: the test relays it to the gateway. */
class RecordingPushSender implements PushNotificationSender {
  constructor(private readonly store: InMemoryPushNotificationStore) {}
  async send(response: StreamResponse, context: ServerCallContext): Promise<void> {
    const payload = response.payload;
    if (payload === undefined) return;
    const taskId = payload.$case === "task" ? payload.value.id : payload.value.taskId;
    for (const config of await this.store.load(taskId, context)) pushes.push({ taskId, url: config.url, body: JSON.stringify(StreamResponse.toJSON(response)) });
  }
}

function handlerFor(variant: string, pushNotifications: boolean): JsonRpcTransportHandler {
  const store = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(
    AgentCard.fromJSON(cardJson(variant, pushNotifications)),
    new InMemoryTaskStore(),
    executor,
    undefined,
    store,
    new RecordingPushSender(store),
  );
  return new JsonRpcTransportHandler(handler);
}

const handlers = new Map([
  ["main", handlerFor("main", true)],
  ["nopush", handlerFor("nopush", false)],
]);

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export async function fakeA2a(request: Request, url: URL): Promise<Response> {
  const path = url.pathname;
  if (path === "/.well-known/agent-card.json" || path === "/main/card.json") return json(cardJson("main", true));
  if (path === "/nopush/card.json") return json(cardJson("nopush", false));
  if (path === "/huge/card.json") return json({ ...cardJson("main", true), description: "x".repeat(1024 * 1024) });
  if (path === "/slow/card.json") return new Promise<Response>(() => undefined);
  if (path === "/calls") return json(calls);
  if (path.startsWith("/pushes/")) return json(pushes.filter((push) => push.taskId === decodeURIComponent(path.slice("/pushes/".length))));
  if (path.startsWith("/release/") && request.method === "POST") {
    const key = decodeURIComponent(path.slice("/release/".length));
    released.add(key);
    releases.get(key)?.();
    return json({ released: key });
  }
  const variant = /^\/(main|nopush)\/rpc$/.exec(path)?.[1];
  const handler = variant === undefined ? undefined : handlers.get(variant);
  if (variant === undefined || handler === undefined || request.method !== "POST") return json({ error: "no such fake A2A route" }, 404);
  const receivedAt = Date.now();
  const body = (await request.json()) as { id?: string | number; method?: string; params?: { id?: string; message?: { messageId?: string; parts?: { text?: string }[] } } };
  const headers = Object.fromEntries(request.headers);
  const context = () => new ServerCallContext({ user: new UnauthenticatedUser(), requestedVersion: "1.0" });
  if (body.method !== "SendMessage") {
    calls.push({ variant, method: String(body.method), ...(body.method === "GetTask" && { taskId: body.params?.id }), headers });
    const answer = await handler.handle(body, context());
    if (Symbol.asyncIterator in answer) return json({ error: "streaming is not served here" }, 400);
    return json(answer);
  }
  const messageId = String(body.params?.message?.messageId);
  const seen = { variant, method: "SendMessage", headers, messageId, params: body.params, receivedAt };
  const known = taskOfMessage.get(`${variant}:${messageId}`);
  if (known !== undefined) {
    calls.push({ ...seen, taskId: known, repeated: true });
    const read = await handler.handle({ jsonrpc: "2.0", id: body.id ?? null, method: "GetTask", params: { id: known } }, context());
    if (Symbol.asyncIterator in read) return json({ error: "streaming is not served here" }, 400);
    return json(read.result !== undefined ? { jsonrpc: "2.0", id: body.id ?? null, result: { task: read.result } } : read);
  }
  const answer = await handler.handle(body, context());
  if (Symbol.asyncIterator in answer) return json({ error: "streaming is not served here" }, 400);
  const made = (answer.result as { task?: { id?: string } } | undefined)?.task?.id;
  if (made !== undefined) taskOfMessage.set(`${variant}:${messageId}`, made);
  calls.push({ ...seen, ...(made !== undefined && { taskId: made }), repeated: false });
  if (made !== undefined && body.params?.message?.parts?.[0]?.text?.startsWith("hold-")) return new Promise<Response>(() => undefined);
  return json(answer);
}
