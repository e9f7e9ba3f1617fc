/** Test helpers: call the Worker as a client would, with or without credentials. */
import { env, exports } from "cloudflare:workers";
import { sign } from "hono/jwt";

export const secretHeaders = { "x-secret-key": env.GATEWAY_SECRET_KEY };

export async function tokenFor(entityId: string, options: { expiresIn?: number; secret?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return sign({ sub: entityId, iat: now, exp: now + (options.expiresIn ?? 3600) }, options.secret ?? env.JWT_SECRET, "HS256");
}

export async function memberHeaders(entityId: string): Promise<Record<string, string>> {
  return { "x-public-key": env.GATEWAY_PUBLIC_KEY, authorization: `Bearer ${await tokenFor(entityId)}` };
}

export type CallOptions = { method?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string };

export async function call(path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  } else if (body !== undefined) headers["content-type"] ??= "application/json";
  return exports.default.fetch(new Request(`http://gateway.test${path}`, { method: options.method ?? (body === undefined ? "GET" : "POST"), headers, body }));
}

export async function callJson<T = Record<string, unknown>>(path: string, options: CallOptions = {}): Promise<{ status: number; body: T }> {
  const response = await call(path, options);
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

export async function secret<T = Record<string, unknown>>(path: string, options: CallOptions = {}) {
  return callJson<T>(path, { ...options, headers: { ...secretHeaders, ...options.headers } });
}

export async function createHuman(name = "Ada"): Promise<string> {
  const { status, body } = await secret<{ id: string }>("/api/entities", { body: { type: "human", name } });
  if (status !== 201) throw new Error(`createHuman: ${status} ${JSON.stringify(body)}`);
  return body.id;
}

export async function createSpace(memberIds: string[] = [], name = "Room"): Promise<string> {
  const { status, body } = await secret<{ id: string }>("/api/spaces", { body: { name, memberIds } });
  if (status !== 201) throw new Error(`createSpace: ${status} ${JSON.stringify(body)}`);
  return body.id;
}

export async function postMessage(spaceId: string, entityId: string, text: string, mentions?: string[]) {
  const { status, body } = await secret<{ id: string; seq: number }>(`/api/spaces/${spaceId}/messages`, {
    body: { text, entityId, ...(mentions ? { mentions } : {}) },
  });
  if (status !== 201) throw new Error(`postMessage: ${status} ${JSON.stringify(body)}`);
  // The space object writes it to D1 shortly after (write-behind): tests that count D1 rows start from a settled state.
  await messageInD1(body.id);
  return body;
}

/** Waits until D1 has the message (the space object's write-behind reached it). */
export async function messageInD1(messageId: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await env.DB.prepare("SELECT 1 AS found FROM messages WHERE id = ?").bind(messageId).first())) {
    if (Date.now() > deadline) throw new Error(`message ${messageId} did not reach D1 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
