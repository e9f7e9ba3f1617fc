/**
 * A catalogue of malformed requests (docs/api.md, "Errors"): each names the
 * request, the status and the error code it must get, and proves nothing
 * changed: the D1 row counts, the agent's row, the space's members and the
 * space's event seq are the same after the request as before.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAgent } from "./support/agents";
import { createHuman, createSpace, memberHeaders, postMessage, secret, secretHeaders, tokenFor } from "./support/api";
import { countRows, spaceSeq } from "./support/database-state";
import { expectErrorEnvelope, readErrorEnvelope } from "./support/error-envelope";
import { minimalAgentConfig } from "./support/minimal-agent-config";
import { openWebSocket } from "./support/stream-client";

type Fixture = {
  member: string;
  otherMember: string;
  outsider: string;
  spaceId: string;
  agentId: string;
  agentEntityId: string;
  externalId: string;
};

/** Fresh ids per case: a space with two members and one message, an outsider, an agent, an entity with an externalId. */
async function createFixture(): Promise<Fixture> {
  const [member, otherMember, outsider] = await Promise.all(["Member", "Other", "Outsider"].map((name) => createHuman(name)));
  const spaceId = await createSpace([member, otherMember]);
  await postMessage(spaceId, member, "first");
  const { id: agentId, entityId: agentEntityId } = await createAgent(minimalAgentConfig);
  const externalId = `ext-${crypto.randomUUID()}`;
  const created = await secret("/api/entities", { body: { type: "human", name: "Known", externalId } });
  if (created.status !== 201) throw new Error(`fixture entity: ${created.status}`);
  return { member, otherMember, outsider, spaceId, agentId, agentEntityId, externalId };
}

/** Everything a failed request must leave as it was. */
async function snapshot(fixture: Fixture) {
  const agent = await env.DB.prepare("select name, config, updated_at from agents where id = ?").bind(fixture.agentId).first();
  const members = await env.DB.prepare("select entity_id from members where space_id = ? order by entity_id").bind(fixture.spaceId).all();
  return { counts: await countRows(), seq: await spaceSeq(fixture.spaceId), agent, members: members.results };
}

type BadRequest = {
  method: string;
  path: string;
  /** Who sends it; the secret key unless said otherwise. `agent`: a JWT whose subject is the agent's entity; `expired`: a member's expired JWT; `none`: no headers (credentials in the query). */
  auth?: "secret" | "member" | "agent" | "expired" | "none";
  /** Serialized with JSON.stringify. */
  json?: unknown;
  /** Sent as is, instead of `json`. */
  raw?: string | ReadableStream<Uint8Array>;
  /** `null` sends no content type; JSON by default when there is a body. */
  contentType?: string | null;
  headers?: Record<string, string>;
};

type BadCase = {
  name: string;
  status: number;
  code: string;
  /** `error.details[].path` values that must all be listed. */
  paths?: string[];
  request: (fixture: Fixture) => BadRequest | Promise<BadRequest>;
};

const encoder = new TextEncoder();
const kib = 1024;
const longString = (chars: number) => "x".repeat(chars);
const oversizedAgentBody = JSON.stringify({ config: { ...minimalAgentConfig, agent: { name: "a", system: longString(300 * kib) } } });
const deeplyNested = `{"config":{"agent":{"name":"a"},"model":{"provider":"scripted","turns":[{"toolCalls":[{"name":"x","args":{"a":${"[".repeat(10_000)}${"]".repeat(10_000)}}}]}]}}}`;

/** A body that arrives in chunks, with no declared length. */
function chunkedBody(text: string, chunkBytes = 16 * kib): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunkBytes));
      offset += chunkBytes;
    },
  });
}

/** A body that breaks off: it promises 1,000 bytes and the client goes away after 20. */
function brokenBody(): ReadableStream<Uint8Array> {
  const { readable, writable } = new FixedLengthStream(1_000);
  const writer = writable.getWriter();
  void writer
    .write(encoder.encode('{"type":"human","na'))
    .then(() => writer.close())
    .catch(() => undefined);
  return readable;
}

const tool = (overrides: Record<string, unknown> = {}) => ({
  name: "lookup",
  description: "Looks something up",
  executionType: "internal",
  inputSchema: { type: "object", properties: { query: { type: "string" } } },
  ...overrides,
});
const agentWith = (changes: Record<string, unknown>) => ({ config: { ...minimalAgentConfig, ...changes } });
const gatewayTool = (execution: Record<string, unknown>) => tool({ name: "fetcher", executionType: "gateway", execution });
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;
const postAgent = (body: unknown): BadRequest => ({ method: "POST", path: "/api/agents", json: body });
const postEntity = (body: unknown): BadRequest => ({ method: "POST", path: "/api/entities", json: body });
const rawEntity = (raw: string, contentType?: string | null): BadRequest => ({ method: "POST", path: "/api/entities", raw, contentType });
const unknownId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;

const cases: BadCase[] = [
  // ── the body as bytes: JSON, content type, size ─────────────────────────────
  { name: "malformed JSON", status: 400, code: "invalid_json", request: () => rawEntity('{"type": "human",') },
  { name: "an empty body", status: 400, code: "invalid_json", request: () => rawEntity("") },
  { name: "a whitespace-only body", status: 400, code: "invalid_json", request: () => rawEntity("  \n\t ") },
  { name: "a JSON array", status: 400, code: "invalid_body", request: () => rawEntity('[{"type":"human","name":"A"}]') },
  { name: "a JSON string", status: 400, code: "invalid_body", request: () => rawEntity('"human"') },
  { name: "a JSON number", status: 400, code: "invalid_body", request: () => rawEntity("42") },
  { name: "JSON null", status: 400, code: "invalid_body", request: () => rawEntity("null") },
  { name: "JSON nested 10,000 levels deep", status: 400, code: "too_deep", request: () => ({ method: "POST", path: "/api/agents", raw: deeplyNested }) },
  { name: "Content-Type: text/plain", status: 415, code: "unsupported_media_type", request: () => rawEntity('{"type":"human","name":"A"}', "text/plain") },
  { name: "no Content-Type", status: 415, code: "unsupported_media_type", request: () => rawEntity('{"type":"human","name":"A"}', null) },
  { name: "a form-encoded body", status: 415, code: "unsupported_media_type", request: () => rawEntity("type=human&name=A", "application/x-www-form-urlencoded") },
  { name: "Content-Type: application/json-seq", status: 415, code: "unsupported_media_type", request: () => rawEntity('{"type":"human","name":"A"}', "application/json-seq") },
  {
    name: "a 300 KiB body with an honest Content-Length",
    status: 413,
    code: "payload_too_large",
    request: () => ({ method: "POST", path: "/api/agents", raw: oversizedAgentBody, headers: { "content-length": String(encoder.encode(oversizedAgentBody).byteLength) } }),
  },
  {
    name: "a 300 KiB body declared as 64 bytes",
    status: 413,
    code: "payload_too_large",
    request: () => ({ method: "POST", path: "/api/agents", raw: oversizedAgentBody, headers: { "content-length": "64" } }),
  },
  {
    name: "a 300 KiB body streamed with no Content-Length",
    status: 413,
    code: "payload_too_large",
    request: () => ({ method: "POST", path: "/api/agents", raw: chunkedBody(oversizedAgentBody) }),
  },
  {
    name: "a small body declared as 10 MB",
    status: 413,
    code: "payload_too_large",
    request: () => ({ ...postEntity({ type: "human", name: "A" }), headers: { "content-length": String(10 * kib * kib) } }),
  },
  { name: "a body that breaks off mid-upload", status: 400, code: "invalid_body", request: () => ({ method: "POST", path: "/api/entities", raw: brokenBody() }) },

  // ── prototype-polluting keys ────────────────────────────────────────────────
  { name: "__proto__ at the top level", status: 400, code: "forbidden_key", request: () => rawEntity('{"type":"human","name":"A","__proto__":{"admin":true}}') },
  {
    name: "constructor at the top level of a strict body",
    status: 400,
    code: "validation_error",
    request: () => ({ method: "POST", path: "/api/spaces", raw: '{"name":"Room","constructor":{"prototype":{}}}' }),
  },
  {
    name: "__proto__ nested in an agent config",
    status: 400,
    code: "forbidden_key",
    request: () => ({ method: "POST", path: "/api/agents", raw: '{"config":{"agent":{"name":"a","__proto__":{"x":1}},"model":{"provider":"scripted","turns":[]}}}' }),
  },
  {
    name: "__proto__ nested in a tool's input schema",
    status: 400,
    code: "forbidden_key",
    request: () => ({
      method: "POST",
      path: "/api/agents",
      raw: `{"config":{"agent":{"name":"a"},"model":{"provider":"scripted","turns":[]},"tools":[{"name":"t","description":"d","executionType":"internal","inputSchema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}]}}`,
    }),
  },
  {
    name: "__proto__ nested in a message's mentions",
    status: 400,
    code: "forbidden_key",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, raw: `{"text":"hi","entityId":"${fixture.member}","mentions":[{"__proto__":{}}]}` }),
  },

  // ── entities ───────────────────────────────────────────────────────────────
  { name: "entity name of the wrong type", status: 400, code: "validation_error", paths: ["name"], request: () => postEntity({ type: "human", name: 42 }) },
  { name: "entity without a name", status: 400, code: "validation_error", paths: ["name"], request: () => postEntity({ type: "human" }) },
  { name: "entity with a blank name", status: 400, code: "validation_error", paths: ["name"], request: () => postEntity({ type: "human", name: "   " }) },
  { name: "entity of type agent (agents have their own route)", status: 400, code: "validation_error", paths: ["type"], request: () => postEntity({ type: "agent", name: "A" }) },
  { name: "entity with an unknown field", status: 400, code: "validation_error", request: () => postEntity({ type: "human", name: "A", role: "admin" }) },
  {
    name: "entity with an empty externalId",
    status: 400,
    code: "validation_error",
    paths: ["externalId"],
    request: () => postEntity({ type: "human", name: "A", externalId: "" }),
  },
  { name: "a duplicate externalId", status: 409, code: "conflict", request: (fixture) => postEntity({ type: "human", name: "Again", externalId: fixture.externalId }) },
  { name: "an unknown entity id", status: 404, code: "not_found", request: () => ({ method: "GET", path: `/api/entities/${unknownId("ent")}` }) },
  {
    name: "an entity id over 100 characters",
    status: 400,
    code: "validation_error",
    paths: ["entityId"],
    request: () => ({ method: "GET", path: `/api/entities/${longString(101)}` }),
  },

  // ── agents and their configs ───────────────────────────────────────────────
  { name: "agent without config", status: 400, code: "validation_error", paths: ["config"], request: () => postAgent({}) },
  { name: "agent config that is a string", status: 400, code: "validation_error", paths: ["config"], request: () => postAgent({ config: "support bot" }) },
  { name: "agent body with an unknown field beside config", status: 400, code: "validation_error", request: () => postAgent({ config: minimalAgentConfig, owner: "me" }) },
  { name: "agent config with an unknown field", status: 400, code: "validation_error", paths: ["config"], request: () => postAgent(agentWith({ temperature: 0.2 })) },
  {
    name: "agent name over 100 characters",
    status: 400,
    code: "validation_error",
    paths: ["config.agent.name"],
    request: () => postAgent(agentWith({ agent: { name: longString(101) } })),
  },
  {
    name: "an unknown model provider",
    status: 400,
    code: "validation_error",
    paths: ["config.model.provider"],
    request: () => postAgent(agentWith({ model: { provider: "skynet", name: "x" } })),
  },
  {
    name: "an API key in the model config",
    status: 400,
    code: "validation_error",
    paths: ["config.model"],
    request: () => postAgent(agentWith({ model: { provider: "openai", name: "gpt-4o", apiKey: "sk-secret" } })),
  },
  {
    name: "an invalid tool name",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.name"],
    request: () => postAgent(agentWith({ tools: [tool({ name: "look up!" })] })),
  },
  {
    name: "a tool name of 65 characters",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.name"],
    request: () => postAgent(agentWith({ tools: [tool({ name: longString(65) })] })),
  },
  { name: "duplicate tool names", status: 400, code: "validation_error", paths: ["config.tools.1.name"], request: () => postAgent(agentWith({ tools: [tool(), tool()] })) },
  {
    name: "a tool named like a built-in",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.name"],
    request: () => postAgent(agentWith({ tools: [tool({ name: "send_message" })] })),
  },
  {
    name: "a gateway tool without execution",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.execution"],
    request: () => postAgent(agentWith({ tools: [tool({ executionType: "gateway" })] })),
  },
  {
    name: "a tool whose input schema is not an object",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.inputSchema.type"],
    request: () => postAgent(agentWith({ tools: [tool({ inputSchema: { type: "string" } })] })),
  },
  {
    name: "a tool timeout over 15 minutes",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.timeout"],
    request: () => postAgent(agentWith({ tools: [tool({ timeout: 16 * 60 * 1000 })] })),
  },
  {
    name: "a config with problems in several places",
    status: 400,
    code: "validation_error",
    paths: ["config.agent.name", "config.model.turns", "config.loop.maxSteps", "config.tools.0.name", "config.tools.1.execution.url", "config.limits.toolTimeout"],
    request: () =>
      postAgent({
        config: {
          agent: { name: "" },
          model: { provider: "scripted", turns: "none" },
          loop: { maxSteps: 0 },
          tools: [tool({ name: "bad name" }), tool({ name: "fetcher", executionType: "gateway", execution: { url: "ftp://example.com" } })],
          limits: { toolTimeout: -1 },
        },
      }),
  },
  {
    name: "tools with a duplicate and a built-in name at once",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.1.name", "config.tools.2.name"],
    request: () => postAgent(agentWith({ tools: [tool(), tool(), tool({ name: "enter_space" })] })),
  },
  {
    name: "PUT of an invalid config (the agent keeps its config)",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.name"],
    request: (fixture) => ({
      method: "PUT",
      path: `/api/agents/${fixture.agentId}`,
      json: agentWith({ agent: { name: "renamed" }, tools: [tool({ name: "no spaces allowed" })] }),
    }),
  },
  {
    name: "PUT of an unknown agent",
    status: 404,
    code: "not_found",
    request: () => ({ method: "PUT", path: `/api/agents/${unknownId("agt")}`, json: { config: minimalAgentConfig } }),
  },
  { name: "GET of an unknown agent", status: 404, code: "not_found", request: () => ({ method: "GET", path: `/api/agents/${unknownId("agt")}` }) },
  { name: "DELETE of an unknown agent", status: 404, code: "not_found", request: () => ({ method: "DELETE", path: `/api/agents/${unknownId("agt")}` }) },

  // ── spaces and membership ──────────────────────────────────────────────────
  { name: "space without a name", status: 400, code: "validation_error", paths: ["name"], request: () => ({ method: "POST", path: "/api/spaces", json: { memberIds: [] } }) },
  {
    name: "space memberIds that is not an array",
    status: 400,
    code: "validation_error",
    paths: ["memberIds"],
    request: (fixture) => ({ method: "POST", path: "/api/spaces", json: { name: "Room", memberIds: fixture.member } }),
  },
  { name: "space with an unknown field", status: 400, code: "validation_error", request: () => ({ method: "POST", path: "/api/spaces", json: { name: "Room", topic: "x" } }) },
  {
    name: "space with an unknown member (no space is created)",
    status: 404,
    code: "not_found",
    request: (fixture) => ({ method: "POST", path: "/api/spaces", json: { name: "Room", memberIds: [fixture.member, unknownId("ent")] } }),
  },
  { name: "GET of an unknown space", status: 404, code: "not_found", request: () => ({ method: "GET", path: `/api/spaces/${unknownId("spc")}` }) },
  {
    name: "adding a member to an unknown space",
    status: 404,
    code: "not_found",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${unknownId("spc")}/members`, json: { entityId: fixture.outsider } }),
  },
  {
    name: "adding an unknown entity",
    status: 404,
    code: "not_found",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/members`, json: { entityId: unknownId("ent") } }),
  },
  {
    name: "adding a member twice",
    status: 409,
    code: "conflict",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/members`, json: { entityId: fixture.member } }),
  },
  {
    name: "adding a member without entityId",
    status: 400,
    code: "validation_error",
    paths: ["entityId"],
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/members`, json: {} }),
  },
  {
    name: "removing a non-member",
    status: 404,
    code: "not_found",
    request: (fixture) => ({ method: "DELETE", path: `/api/spaces/${fixture.spaceId}/members/${fixture.outsider}` }),
  },
  {
    name: "removing a member of an unknown space",
    status: 404,
    code: "not_found",
    request: (fixture) => ({ method: "DELETE", path: `/api/spaces/${unknownId("spc")}/members/${fixture.member}` }),
  },

  // ── posting messages ───────────────────────────────────────────────────────
  {
    name: "message without text",
    status: 400,
    code: "validation_error",
    paths: ["text"],
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, json: { entityId: fixture.member } }),
  },
  {
    name: "message with empty text",
    status: 400,
    code: "validation_error",
    paths: ["text"],
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, json: { text: "", entityId: fixture.member } }),
  },
  {
    name: "message text of the wrong type",
    status: 400,
    code: "validation_error",
    paths: ["text"],
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, json: { text: ["hi"], entityId: fixture.member } }),
  },
  {
    name: "message text of 32,001 characters",
    status: 400,
    code: "validation_error",
    paths: ["text"],
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, json: { text: longString(32_001), entityId: fixture.member } }),
  },
  {
    name: "message with an unknown field",
    status: 400,
    code: "validation_error",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, json: { text: "hi", entityId: fixture.member, role: "system" } }),
  },
  {
    name: "message from the secret key without entityId",
    status: 400,
    code: "validation_error",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, json: { text: "who am I?" } }),
  },
  {
    name: "message from an unknown entity",
    status: 404,
    code: "not_found",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, json: { text: "hi", entityId: unknownId("ent") } }),
  },
  {
    name: "message from a non-member",
    status: 403,
    code: "forbidden",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, json: { text: "hi", entityId: fixture.outsider } }),
  },
  {
    name: "message mentioning a non-member",
    status: 400,
    code: "validation_error",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, json: { text: "hi", entityId: fixture.member, mentions: [fixture.outsider] } }),
  },
  {
    name: "member JWT message mentioning an unknown entity",
    status: 400,
    code: "validation_error",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, auth: "member", json: { text: "hi", mentions: [unknownId("ent")] } }),
  },
  {
    name: "message mentions that are not an array",
    status: 400,
    code: "validation_error",
    paths: ["mentions"],
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, json: { text: "hi", entityId: fixture.member, mentions: fixture.otherMember } }),
  },
  {
    name: "message to an unknown space",
    status: 404,
    code: "not_found",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${unknownId("spc")}/messages`, json: { text: "hi", entityId: fixture.member } }),
  },

  // ── listing messages: afterSeq and limit ───────────────────────────────────
  ...[
    ["afterSeq=-1", "afterSeq"],
    ["afterSeq=abc", "afterSeq"],
    ["afterSeq=1e3", "afterSeq"],
    ["afterSeq=1.5", "afterSeq"],
    ["afterSeq=10000000000000000", "afterSeq"],
    ["limit=0", "limit"],
    ["limit=-5", "limit"],
    ["limit=1e3", "limit"],
    ["limit=201", "limit"],
    ["limit=ten", "limit"],
    ["limit=5&limit=6", "limit"],
  ].map(
    ([query, path]): BadCase => ({
      name: `GET messages?${query}`,
      status: 400,
      code: "validation_error",
      paths: [path],
      request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/messages?${query}` }),
    }),
  ),
  { name: "GET messages of an unknown space", status: 404, code: "not_found", request: () => ({ method: "GET", path: `/api/spaces/${unknownId("spc")}/messages` }) },

  // ── the stream route ───────────────────────────────────────────────────────
  { name: "stream without Upgrade or Accept", status: 426, code: "upgrade_required", request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/stream` }) },
  {
    name: "stream with a non-WebSocket Upgrade",
    status: 426,
    code: "upgrade_required",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/stream`, headers: { upgrade: "h2c" } }),
  },
  {
    name: "WebSocket stream with afterSeq beyond the end",
    status: 400,
    code: "after_seq_out_of_range",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/stream?afterSeq=1000`, headers: { upgrade: "websocket" } }),
  },
  {
    name: "SSE stream with afterSeq beyond the end (member JWT)",
    status: 400,
    code: "after_seq_out_of_range",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/stream?afterSeq=4`, auth: "member", headers: { accept: "text/event-stream" } }),
  },
  {
    name: "WebSocket stream with afterSeq=-1",
    status: 400,
    code: "invalid_query",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/stream?afterSeq=-1`, headers: { upgrade: "websocket" } }),
  },
  {
    name: "SSE stream with afterSeq=1e3",
    status: 400,
    code: "invalid_query",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/stream?afterSeq=1e3`, headers: { accept: "text/event-stream" } }),
  },
  {
    name: "SSE stream with a garbage Last-Event-ID",
    status: 400,
    code: "invalid_query",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/stream`, headers: { accept: "text/event-stream", "last-event-id": "yesterday" } }),
  },
  {
    name: "stream of an unknown space",
    status: 404,
    code: "not_found",
    request: () => ({ method: "GET", path: `/api/spaces/${unknownId("spc")}/stream`, headers: { upgrade: "websocket" } }),
  },

  // ── secrets a config may name (one secret policy) ──────────────────────────
  ...["JWT_SECRET", "WEBHOOK_SECRET", "GATEWAY_SECRET_KEY", "GATEWAY_PUBLIC_KEY"].map(
    (name): BadCase => ({
      name: `model.apiKeyEnv naming the gateway's own ${name}`,
      status: 400,
      code: "validation_error",
      paths: ["config.model.apiKeyEnv"],
      request: () => postAgent(agentWith({ model: { provider: "openai-compatible", name: "m", baseURL: "https://llm.example/v1", apiKeyEnv: name } })),
    }),
  ),
  {
    name: "model.apiKeyEnv naming a binding (DB)",
    status: 400,
    code: "validation_error",
    paths: ["config.model.apiKeyEnv"],
    request: () => postAgent(agentWith({ model: { provider: "openai", name: "gpt-4o", apiKeyEnv: "DB" } })),
  },
  {
    name: "PUT with model.apiKeyEnv JWT_SECRET (the agent keeps its config)",
    status: 400,
    code: "validation_error",
    paths: ["config.model.apiKeyEnv"],
    request: (fixture) => ({
      method: "PUT",
      path: `/api/agents/${fixture.agentId}`,
      json: agentWith({ model: { provider: "anthropic", name: "claude", apiKeyEnv: "JWT_SECRET" } }),
    }),
  },
  {
    name: "a gateway tool header sending ${env.JWT_SECRET}",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.execution.headers.authorization"],
    request: () => postAgent(agentWith({ tools: [gatewayTool({ url: "https://api.example.com/", headers: { authorization: "Bearer ${env.JWT_SECRET}" } })] })),
  },
  {
    name: "a gateway tool header sending a binding (${env.AGENT})",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.execution.headers.x-agent"],
    request: () => postAgent(agentWith({ tools: [gatewayTool({ url: "https://api.example.com/", headers: { "x-agent": "${env.AGENT}" } })] })),
  },
  {
    name: "an MCP server header sending ${env.WEBHOOK_SECRET}",
    status: 400,
    code: "validation_error",
    paths: ["config.mcp.servers.0.headers.authorization"],
    request: () => postAgent(agentWith({ mcp: { servers: [{ name: "s", url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer ${env.WEBHOOK_SECRET}" } }] } })),
  },

  // ── URLs the gateway calls (one URL policy) ────────────────────────────────
  ...["file:///etc/passwd", "javascript:alert(1)", "data:text/plain,hi", "ftp://llm.example/v1"].map(
    (url): BadCase => ({
      name: `model.baseURL ${url}`,
      status: 400,
      code: "validation_error",
      paths: ["config.model.baseURL"],
      request: () => postAgent(agentWith({ model: { provider: "openai-compatible", name: "m", baseURL: url } })),
    }),
  ),
  {
    name: "model.baseURL that is not a URL",
    status: 400,
    code: "validation_error",
    paths: ["config.model.baseURL"],
    request: () => postAgent(agentWith({ model: { provider: "openai", name: "gpt-4o", baseURL: "llm.example" } })),
  },
  {
    name: "an MCP server at javascript:",
    status: 400,
    code: "validation_error",
    paths: ["config.mcp.servers.0.url"],
    request: () => postAgent(agentWith({ mcp: { servers: [{ name: "s", url: "javascript:alert(1)" }] } })),
  },
  {
    name: "an MCP server at ws:",
    status: 400,
    code: "validation_error",
    paths: ["config.mcp.servers.0.url"],
    request: () => postAgent(agentWith({ mcp: { servers: [{ name: "s", url: "ws://mcp.example.com/mcp" }] } })),
  },
  {
    name: "a webhook at javascript:",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.execution.webhook"],
    request: () => postAgent(agentWith({ tools: [tool({ executionType: "space", execution: { webhook: "javascript:alert(1)" } })] })),
  },
  {
    name: "an MCP server at file:",
    status: 400,
    code: "validation_error",
    paths: ["config.mcp.servers.0.url"],
    request: () => postAgent(agentWith({ mcp: { servers: [{ name: "s", url: "file:///etc/passwd" }] } })),
  },
  {
    name: "a webhook at file:",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.execution.webhook"],
    request: () => postAgent(agentWith({ tools: [tool({ executionType: "external", execution: { webhook: "file:///etc/passwd" } })] })),
  },
  {
    name: "a gateway tool at javascript:",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.execution.url"],
    request: () => postAgent(agentWith({ tools: [gatewayTool({ url: "javascript:fetch('//evil')" })] })),
  },
  {
    name: "a gateway tool with a placeholder in its host",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.execution.url"],
    request: () => postAgent(agentWith({ tools: [gatewayTool({ url: "https://{{host}}/x" })] })),
  },

  // ── JSON depth at the edge ─────────────────────────────────────────────────
  ...[65, 2_500, 3_000, 4_000].map(
    (depth): BadCase => ({
      name: `an inbox event nested ${depth} levels deep`,
      status: 400,
      code: "too_deep",
      request: (fixture) => ({ method: "POST", path: `/api/agents/${fixture.agentId}/inbox`, raw: `{"type":"external","data":${nested(depth - 1)}}` }),
    }),
  ),
  ...[65, 3_000].map(
    (depth): BadCase => ({
      name: `a tool result nested ${depth} levels deep`,
      status: 400,
      code: "too_deep",
      request: () => ({ method: "POST", path: `/api/runs/${unknownId("run")}/tool-results`, raw: `{"callId":"call_x","result":${nested(depth - 1)}}` }),
    }),
  ),
  {
    name: "objects nested 65 levels deep",
    status: 400,
    code: "too_deep",
    request: (fixture) => ({ method: "POST", path: `/api/agents/${fixture.agentId}/inbox`, raw: `{"type":"external","data":${nestedObjects(64)}}` }),
  },
  {
    name: "a scripted tool call's args nested 65 levels deep",
    status: 400,
    code: "too_deep",
    request: () => ({
      method: "POST",
      path: "/api/agents",
      raw: `{"config":{"agent":{"name":"a"},"model":{"provider":"scripted","turns":[{"toolCalls":[{"name":"x","args":{"a":${nested(57)}}}]}]}}}`,
    }),
  },
  {
    name: "an entity body of objects nested 3,000 levels deep",
    status: 400,
    code: "too_deep",
    request: () => rawEntity(`{"type":"human","name":"A","x":${nestedObjects(2_999)}}`),
  },
  {
    name: "a message body nested 3,000 levels deep",
    status: 400,
    code: "too_deep",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, raw: `{"text":"hi","entityId":"${fixture.member}","mentions":${nested(2_999)}}` }),
  },

  // ── input schemas that could never validate ────────────────────────────────
  ...(
    [
      ["an invalid regex pattern", { type: "object", properties: { x: { type: "string", pattern: "([" } } }, "config.tools.0.inputSchema.properties.x.pattern"],
      ["an invalid patternProperties key", { type: "object", patternProperties: { "[a-": { type: "string" } } }, "config.tools.0.inputSchema.patternProperties.[a-"],
      ['{"$ref": "#"}', { $ref: "#" }, "config.tools.0.inputSchema.$ref"],
      ["an allOf referring to its own schema", { type: "object", allOf: [{ $ref: "#" }] }, "config.tools.0.inputSchema.allOf.0.$ref"],
      ["an unresolved $ref", { type: "object", properties: { x: { $ref: "#/$defs/missing" } } }, "config.tools.0.inputSchema.properties.x.$ref"],
      ["a remote $ref", { type: "object", properties: { x: { $ref: "https://schemas.example.com/x.json" } } }, "config.tools.0.inputSchema.properties.x.$ref"],
      ['type "nonsense"', { type: "nonsense" }, "config.tools.0.inputSchema.type"],
      ['a property of type "nonsense"', { type: "object", properties: { x: { type: "nonsense" } } }, "config.tools.0.inputSchema.properties.x.type"],
      ["required that is not an array of names", { type: "object", required: "x" }, "config.tools.0.inputSchema.required"],
      ["a negative minLength", { type: "object", properties: { x: { type: "string", minLength: -1 } } }, "config.tools.0.inputSchema.properties.x.minLength"],
      ["a property schema that is a number", { type: "object", properties: { x: 5 } }, "config.tools.0.inputSchema.properties.x"],
      [
        "a tuple items array in draft 2020-12",
        { type: "object", properties: { x: { type: "array", items: [{ type: "string" }] } } },
        "config.tools.0.inputSchema.properties.x.items",
      ],
      ["$dynamicRef", { type: "object", properties: { x: { $dynamicRef: "#meta" } } }, "config.tools.0.inputSchema.properties.x.$dynamicRef"],
      [
        "two definitions referring to each other in place",
        { type: "object", properties: { x: { $ref: "#/$defs/a" } }, $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } } },
        "config.tools.0.inputSchema.$defs.b.$ref",
      ],
      [
        "a boolean exclusiveMinimum in draft 2020-12",
        { type: "object", properties: { n: { type: "number", exclusiveMinimum: true } } },
        "config.tools.0.inputSchema.properties.n.exclusiveMinimum",
      ],
    ] as const
  ).map(
    ([what, inputSchema, path]): BadCase => ({
      name: `an input schema with ${what}`,
      status: 400,
      code: "validation_error",
      paths: [path],
      request: () => postAgent(agentWith({ tools: [tool({ inputSchema })] })),
    }),
  ),
  {
    name: "a prebuilt tool overriding its schema with an invalid pattern",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.inputSchema.properties.keys.pattern"],
    request: () =>
      postAgent(
        agentWith({
          tools: [
            {
              name: "forget",
              executionType: "prebuilt",
              execution: { action: "deleteMemories" },
              inputSchema: { type: "object", properties: { keys: { type: "string", pattern: "(?<" } } },
            },
          ],
        }),
      ),
  },

  // ── text body templates ────────────────────────────────────────────────────
  {
    name: "a JSON text body that does not parse once filled",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.execution.body"],
    request: () => postAgent(agentWith({ tools: [gatewayTool({ url: "https://pay.example/charge", method: "POST", body: '{"amount": {{a}}' })] })),
  },
  {
    name: "a JSON text body with a placeholder after a backslash",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.execution.body"],
    request: () => postAgent(agentWith({ tools: [gatewayTool({ url: "https://pay.example/charge", method: "POST", body: '{"note": "\\{{a}}", "amount": {{b}}}' })] })),
  },
  {
    name: "a body declared JSON by its Content-Type that is not JSON",
    status: 400,
    code: "validation_error",
    paths: ["config.tools.0.execution.body"],
    request: () =>
      postAgent(agentWith({ tools: [gatewayTool({ url: "https://pay.example/charge", method: "POST", headers: { "content-type": "application/json" }, body: "amount={{a}}" })] })),
  },

  // ── who may speak, and with which token ────────────────────────────────────
  {
    name: "a JWT whose subject is an agent posting a message",
    status: 403,
    code: "forbidden",
    request: (fixture) => ({ method: "POST", path: `/api/spaces/${fixture.spaceId}/messages`, auth: "agent", json: { text: "I am the assistant" } }),
  },
  {
    name: "a JWT whose subject is an agent opening a stream",
    status: 403,
    code: "forbidden",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/stream`, auth: "agent", headers: { accept: "text/event-stream" } }),
  },
  {
    name: "a JWT whose subject is an agent posting a tool result",
    status: 403,
    code: "forbidden",
    request: () => ({ method: "POST", path: `/api/runs/${unknownId("run")}/tool-results`, auth: "agent", json: { callId: "call_x", result: 1 } }),
  },
  {
    name: "an expired JWT as ?token= on an SSE stream",
    status: 401,
    code: "unauthorized",
    request: async (fixture) => ({
      method: "GET",
      path: `/api/spaces/${fixture.spaceId}/stream?publicKey=${env.GATEWAY_PUBLIC_KEY}&token=${await tokenFor(fixture.member, { expiresIn: -60 })}`,
      auth: "none",
      headers: { accept: "text/event-stream" },
    }),
  },
  {
    name: "an expired JWT opening a stream",
    status: 401,
    code: "unauthorized",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/stream`, auth: "expired", headers: { upgrade: "websocket" } }),
  },

  // ── every array limit, one past its maximum ────────────────────────────────
  {
    name: "129 tools",
    status: 400,
    code: "validation_error",
    paths: ["config.tools"],
    request: () => postAgent(agentWith({ tools: Array.from({ length: 129 }, (_, index) => tool({ name: `t${index}` })) })),
  },
  {
    name: "17 MCP servers",
    status: 400,
    code: "validation_error",
    paths: ["config.mcp.servers"],
    request: () => postAgent(agentWith({ mcp: { servers: Array.from({ length: 17 }, (_, index) => ({ name: `s${index}`, url: "https://mcp.example.com/mcp" })) } })),
  },
  {
    name: "257 allowedTools",
    status: 400,
    code: "validation_error",
    paths: ["config.mcp.servers.0.allowedTools"],
    request: () =>
      postAgent(agentWith({ mcp: { servers: [{ name: "s", url: "https://mcp.example.com/mcp", allowedTools: Array.from({ length: 257 }, (_, index) => `t${index}`) }] } })),
  },
  {
    name: "10,001 scripted turns",
    status: 400,
    code: "validation_error",
    paths: ["config.model.turns"],
    request: () => postAgent(agentWith({ model: { provider: "scripted", turns: Array.from({ length: 10_001 }, () => ({})) } })),
  },
  {
    name: "33 tool calls in one scripted turn",
    status: 400,
    code: "validation_error",
    paths: ["config.model.turns.0.toolCalls"],
    request: () => postAgent(agentWith({ model: { provider: "scripted", turns: [{ toolCalls: Array.from({ length: 33 }, () => ({ name: "skip", args: {} })) }] } })),
  },
  {
    name: "1,001 space memberIds",
    status: 400,
    code: "validation_error",
    paths: ["memberIds"],
    request: (fixture) => ({ method: "POST", path: "/api/spaces", json: { name: "Stadium", memberIds: Array.from({ length: 1_001 }, () => fixture.member) } }),
  },
  {
    name: "51 mentions",
    status: 400,
    code: "validation_error",
    paths: ["mentions"],
    request: (fixture) => ({
      method: "POST",
      path: `/api/spaces/${fixture.spaceId}/messages`,
      json: { text: "hi", entityId: fixture.member, mentions: Array.from({ length: 51 }, () => fixture.otherMember) },
    }),
  },

  // ── the hop header: only a whole number 0–999 is a hop count ──────────────────
  ...["-5", "abc", "1.5", "+1", "1e2", "0x1", "1 2", "1000", "99999", "9007199254740993"].map(
    (hop): BadCase => ({
      name: `x-switchboard-hop: ${JSON.stringify(hop)} on a write`,
      status: 400,
      code: "invalid_hop",
      request: () => ({ method: "POST", path: "/api/entities", json: { type: "human", name: "Hopper" }, headers: { "x-switchboard-hop": hop } }),
    }),
  ),
  {
    name: 'x-switchboard-hop: "abc" on a read',
    status: 400,
    code: "invalid_hop",
    request: (fixture) => ({ method: "GET", path: `/api/spaces/${fixture.spaceId}/messages`, headers: { "x-switchboard-hop": "abc" } }),
  },
  {
    name: 'x-switchboard-hop: "999" (a hop count, past the bound)',
    status: 508,
    code: "loop_detected",
    request: () => ({ method: "POST", path: "/api/entities", json: { type: "human", name: "Hopper" }, headers: { "x-switchboard-hop": "999" } }),
  },

  // ── no such route ──────────────────────────────────────────────────────────
  { name: "an unknown route", status: 404, code: "route_not_found", request: () => ({ method: "GET", path: "/api/widgets" }) },
];

async function headersFor(auth: NonNullable<BadRequest["auth"]>, fixture: Fixture): Promise<Record<string, string>> {
  if (auth === "none") return {};
  if (auth === "member") return memberHeaders(fixture.member);
  if (auth === "agent") return memberHeaders(fixture.agentEntityId);
  if (auth === "expired") return { "x-public-key": env.GATEWAY_PUBLIC_KEY, authorization: `Bearer ${await tokenFor(fixture.member, { expiresIn: -60 })}` };
  return secretHeaders;
}

async function toRequest(spec: BadRequest, fixture: Fixture): Promise<Request> {
  const headers = new Headers(await headersFor(spec.auth ?? "secret", fixture));
  const body = spec.raw ?? (spec.json === undefined ? undefined : JSON.stringify(spec.json));
  const contentType = spec.contentType === undefined ? (body === undefined ? null : "application/json") : spec.contentType;
  if (contentType !== null) headers.set("content-type", contentType);
  for (const [name, value] of Object.entries(spec.headers ?? {})) headers.set(name, value);
  return new Request(`http://gateway.test${spec.path}`, { method: spec.method, headers, body });
}

describe("malformed requests get their status and code in the error envelope and change nothing", () => {
  it("the catalogue has at least 150 cases, each with a distinct name", () => {
    expect(cases.length).toBeGreaterThanOrEqual(150);
    expect(new Set(cases.map((badCase) => badCase.name)).size).toBe(cases.length);
  });

  it.each(cases)("$name → $status $code", async ({ request, status, code, paths }) => {
    const fixture = await createFixture();
    const before = await snapshot(fixture);
    const response = await exports.default.fetch(await toRequest(await request(fixture), fixture));
    expect(response.status).toBe(status);
    const body = await readErrorEnvelope(response, code);
    if (paths) expect(body.error.details?.map((detail) => detail.path)).toEqual(expect.arrayContaining(paths));
    expect(await snapshot(fixture)).toEqual(before);
  });
});

describe("the limits themselves are accepted", () => {
  it("a message of exactly 32,000 characters is posted", async () => {
    const member = await createHuman();
    const spaceId = await createSpace([member]);
    const { status } = await secret(`/api/spaces/${spaceId}/messages`, { body: { text: longString(32_000), entityId: member } });
    expect(status).toBe(201);
  });

  it("a body of just under 256 KiB, sent in chunks with no Content-Length, reaches validation", async () => {
    const body = JSON.stringify({ config: { ...minimalAgentConfig, agent: { name: "a", system: longString(250 * kib) } } });
    const response = await exports.default.fetch(
      new Request("http://gateway.test/api/agents", { method: "POST", headers: { ...secretHeaders, "content-type": "application/json" }, body: chunkedBody(body) }),
    );
    // The system prompt is over its own 100,000-character limit: the body was read whole and validated.
    expect(response.status).toBe(400);
    const error = await readErrorEnvelope(response, "validation_error");
    expect(error.error.details?.map((detail) => detail.path)).toEqual(["config.agent.system"]);
  });
});

type FrameCase = { name: string; frame: string | Uint8Array; code: string };

const frameCases: FrameCase[] = [
  { name: "a binary frame", frame: new Uint8Array([0x7b, 0x7d]), code: "invalid_frame" },
  { name: "a frame that is not JSON", frame: "{nope", code: "invalid_frame" },
  { name: "a JSON array", frame: "[1,2,3]", code: "invalid_frame" },
  { name: "a JSON number", frame: "7", code: "invalid_frame" },
  { name: "an unknown frame type", frame: JSON.stringify({ type: "subscribe", spaceId: "spc_other" }), code: "invalid_frame" },
  { name: "a ping carrying __proto__", frame: '{"type":"ping","__proto__":{"polluted":true}}', code: "invalid_frame" },
  { name: "a ping nested 65 levels deep", frame: `{"type":"ping","x":${"[".repeat(64)}${"]".repeat(64)}}`, code: "too_deep" },
  { name: "a ping padded past 64 KiB", frame: JSON.stringify({ type: "ping", padding: longString(65 * kib) }), code: "frame_too_large" },
  // 30,000 characters but 90,000 bytes: the limit counts bytes.
  { name: "a ping padded with 90 KB of three-byte characters", frame: JSON.stringify({ type: "ping", padding: "€".repeat(30_000) }), code: "frame_too_large" },
];

describe("invalid WebSocket frames get an error frame, and the socket stays open", () => {
  it.each(frameCases)("$name → $code", async ({ frame, code }) => {
    const fixture = await createFixture();
    const { socket, collector, close } = await openWebSocket(`/api/spaces/${fixture.spaceId}/stream`, await memberHeaders(fixture.member));
    const before = await snapshot(fixture);
    socket.send(frame);
    await waitUntil(() => collector.frames.length >= 1);
    expectErrorEnvelope(collector.frames[0], code);
    socket.send(JSON.stringify({ type: "ping" }));
    await waitUntil(() => collector.frames.length >= 2);
    expect(collector.frames[1]).toMatchObject({ type: "pong" });
    expect(collector.closed).toBeUndefined();
    expect(collector.events).toEqual([]);
    expect(await snapshot(fixture)).toEqual(before);
    close();
  });
});

describe("conflicts stay conflicts under concurrency", () => {
  it("three concurrent creates with one externalId: one 201, two 409", async () => {
    const externalId = `ext-${crypto.randomUUID()}`;
    const before = await countRows();
    const results = await Promise.all([1, 2, 3].map(() => secret("/api/entities", { body: { type: "human", name: "Twin", externalId } })));
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409]);
    for (const result of results.filter((candidate) => candidate.status === 409)) expectErrorEnvelope(result.body, "conflict");
    expect((await countRows()).entities).toBe(before.entities + 1);
  });

  it("three concurrent adds of one member: one 201, two 409, one joined event", async () => {
    const [member, newcomer] = await Promise.all([createHuman(), createHuman()]);
    const spaceId = await createSpace([member]);
    const seqBefore = await spaceSeq(spaceId);
    const results = await Promise.all([1, 2, 3].map(() => secret(`/api/spaces/${spaceId}/members`, { body: { entityId: newcomer } })));
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409]);
    expect(await spaceSeq(spaceId)).toBe(seqBefore + 1);
  });

  it("three concurrent removals of one member: one 200, two 404, one left event", async () => {
    const [member, leaver] = await Promise.all([createHuman(), createHuman()]);
    const spaceId = await createSpace([member, leaver]);
    const seqBefore = await spaceSeq(spaceId);
    const results = await Promise.all([1, 2, 3].map(() => secret(`/api/spaces/${spaceId}/members/${leaver}`, { method: "DELETE" })));
    expect(results.map((result) => result.status).sort()).toEqual([200, 404, 404]);
    expect(await spaceSeq(spaceId)).toBe(seqBefore + 1);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
