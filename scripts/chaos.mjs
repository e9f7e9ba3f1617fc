#!/usr/bin/env node
/**
 * `npm run chaos`: crash safety, tested by crashing. Starts the gateway with
 * `wrangler dev` (a fresh local state in a temporary directory), drives an
 * agent to a chosen moment, kills the whole `wrangler dev` process tree with
 * SIGKILL, starts it again on the same state, and counts what happened:
 *
 *   mid-cycle      a gateway tool's request is in flight
 *   mid-wait       a sync external call is waiting (its webhook was delivered)
 *   after-result   a result was just accepted (200) for a waiting call
 *   burst          200 messages posted at once with Idempotency-Key; clients
 *                  whose request broke off retry with the same key
 *   receiver-down  a pushed call's receiver refuses for 60 s, and the server
 *                  is killed in the middle of the outage: the call still
 *                  arrives once the receiver is back, and the agent replies once
 *   approve-kill   a gateway tool behind an approval: killed right after the
 *                  yes, while the approved request is at the upstream; it is
 *                  not sent again (at most once after a yes)
 *   connect-kill   an MCP tool that acts as the person waits for them to
 *                  connect their account: they open the card's link and sign
 *                  in at the authorization server (scripts/demo-accounts.mjs,
 *                  outside the gateway), and the gateway is killed before the
 *                  server's redirect reaches it; after the restart the
 *                  callback completes the flow, and the call runs once
 *
 * A local receiver stands in for the outside world (the gateway tool's
 * upstream and the webhook endpoint) and counts executions by their
 * idempotency key / delivery id. The table: accepted inputs, delivered,
 * duplicated, and the time from the restarted server answering to the agent
 * finishing its work (recovery). Exits non-zero if anything was lost or doubled.
 *
 *   npm run chaos                 3 rounds of each scenario
 *   npm run chaos -- --rounds 5 --only mid-wait,after-result
 */
import { spawn, spawnSync } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const wranglerBin = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
const localNode = join(root, "node_modules", "node", "bin", "node");
const nodeBin = existsSync(localNode) ? localNode : process.execPath;

const { values: flags } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    only: { type: "string" },
    burst: { type: "string", default: "200" },
    verbose: { type: "boolean", default: false },
  },
});
const rounds = Number(flags.rounds);
const scenarios = (flags.only ?? "mid-cycle,mid-wait,after-result,burst,receiver-down,approve-kill,connect-kill").split(",");

const startedAt = Date.now();
const log = (...parts) => console.log(`[chaos ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)}s]`, ...parts);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

const keys = {
  GATEWAY_SECRET_KEY: `sk_${randomBytes(24).toString("hex")}`,
  GATEWAY_PUBLIC_KEY: `pk_${randomBytes(16).toString("hex")}`,
  JWT_SECRET: randomBytes(32).toString("base64url"),
  WEBHOOK_SECRET: randomBytes(24).toString("hex"),
  ACCOUNTS_KEYS: `chaos:${randomBytes(32).toString("base64")}`,
};
const state = mkdtempSync(join(tmpdir(), "switchboard-chaos-"));
const envFile = join(state, "chaos.vars");
writeFileSync(
  envFile,
  `${Object.entries(keys)
    .map(([name, value]) => `${name}=${value}`)
    .join("\n")}\n`,
);

function childEnvironment() {
  const environment = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true", CI: "true" };
  for (const name of Object.keys(keys)) delete environment[name];
  return environment;
}

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

// ── the gateway, killed and started again ──────────────────────────────

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let server;

async function startGateway() {
  const child = spawn(
    nodeBin,
    [
      wranglerBin,
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(await freePort()),
      "--persist-to",
      state,
      "--env-file",
      envFile,
      "--show-interactive-dev-session=false",
      "--log-level",
      flags.verbose ? "info" : "error",
    ],
    { cwd: root, env: childEnvironment(), stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let output = "";
  const keep = (chunk) => {
    output = (output + chunk).slice(-10_000);
    if (flags.verbose) process.stdout.write(chunk);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  server = { child, output: () => output };
  const limit = Date.now() + 120_000;
  while (Date.now() < limit) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return performance.now();
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error(`wrangler dev did not answer within 120 s:\n${output}`);
}

/** SIGKILL to the whole process group: wrangler, workerd, everything it started. */
async function killGateway() {
  const { child } = server;
  const exited = new Promise((done) => child.once("exit", done));
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
  await exited;
}

// ── the outside world ──────────────────────────────────────────────────

/** Requests the receiver got, by path id: {headers, body, status}. */
const received = new Map();
/** `/down/<id>` refuses (503) until this time, by id. */
const downUntil = new Map();
const receiver = createHttpServer(async (request, response) => {
  let body = "";
  for await (const chunk of request) body += chunk;
  const [, kind, id] = new URL(request.url, "http://receiver").pathname.split("/");
  const status = kind === "down" && Date.now() < (downUntil.get(id) ?? 0) ? 503 : 200;
  received.set(id, [...(received.get(id) ?? []), { headers: request.headers, body, status, at: Date.now() }]);
  if (kind === "slow") await sleep(1_500);
  if (status !== 200) return response.writeHead(status).end("down");
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify({ ok: true, received: received.get(id).length }));
});
const receiverPort = await freePort();
await new Promise((done) => receiver.listen(receiverPort, "127.0.0.1", done));
const receiverUrl = `http://127.0.0.1:${receiverPort}`;

// ── the API, as a client would use it ──────────────────────────────────

async function api(method, path, body, headers = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "x-secret-key": keys.GATEWAY_SECRET_KEY, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function must(method, path, body, headers) {
  const answer = await api(method, path, body, headers);
  if (answer.status >= 300) throw new Error(`${method} ${path} → ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function waitFor(what, check, timeoutMs = 60_000) {
  const limit = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (Date.now() > limit) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** A person, a space and a scripted agent in it. */
async function world(tools, turns) {
  const person = (await must("POST", "/api/entities", { type: "human", name: "Chaos" })).id;
  const agent = await must("POST", "/api/agents", { config: { agent: { name: "Survivor" }, model: { provider: "scripted", turns: turns("SPACE") }, tools } });
  const spaceId = (await must("POST", "/api/spaces", { name: "chaos", memberIds: [person, agent.entityId] })).id;
  // The turns name the space: put the real id in.
  const config = (await must("GET", `/api/agents/${agent.id}`)).config;
  config.model.turns = JSON.parse(JSON.stringify(config.model.turns).replaceAll("SPACE", spaceId));
  await must("PUT", `/api/agents/${agent.id}`, { config });
  return { person, agent, spaceId };
}

const repliesOf = async (spaceId, agentEntityId) =>
  (await must("GET", `/api/spaces/${spaceId}/messages?afterSeq=0&limit=200`)).messages.filter((message) => message.entityId === agentEntityId && message.role === "assistant");
const runsOf = async (agentId) => (await must("GET", `/api/agents/${agentId}/runs?limit=200`)).runs;
const callsOf = async (agentId) => (await must("GET", `/api/agents/${agentId}/pending-tool-calls`)).pendingToolCalls;

/** Rows of a query on the local D1 database itself (wrangler d1 execute, the same state the server persists to). */
function d1Query(sql) {
  const run = spawnSync(nodeBin, [wranglerBin, "d1", "execute", "DB", "--local", "--persist-to", state, "--json", "--command", sql], {
    cwd: root,
    env: childEnvironment(),
    encoding: "utf8",
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`d1 execute failed:\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(run.stdout)[0].results;
}

// ── scenarios: each returns {accepted, delivered, duplicated, recoveryMs} ─

const enter = (spaceId) => ({ name: "enter_space", args: { spaceId } });
const skip = { name: "skip", args: {} };

async function midCycle(round) {
  const id = `slow-${round}-${randomBytes(4).toString("hex")}`;
  const tool = {
    name: "charge",
    description: "Charge",
    executionType: "gateway",
    visible: false,
    inputSchema: { type: "object" },
    execution: { url: `${receiverUrl}/slow/${id}`, method: "POST" },
  };
  const { person, agent, spaceId } = await world([tool], (space) => [
    { toolCalls: [enter(space), { name: "charge", args: { amount: round } }] },
    { toolCalls: [{ name: "send_message", args: { text: `charged ${round}` } }, skip] },
  ]);
  const message = await must("POST", `/api/spaces/${spaceId}/messages`, { text: `charge me ${round}`, entityId: person });
  await waitFor("the tool request in flight", async () => (received.get(id) ?? []).length > 0);
  await killGateway();
  const upAt = await startGateway();
  await waitFor("the reply", async () => (await repliesOf(spaceId, agent.entityId)).length > 0);
  const recoveryMs = performance.now() - upAt;
  const runs = await runsOf(agent.id);
  const delivered = runs.flatMap((run) => run.trigger).filter((event) => event.messageId === message.id).length;
  const executions = new Set((received.get(id) ?? []).map((request) => request.headers["idempotency-key"])).size;
  const replies = (await repliesOf(spaceId, agent.entityId)).length;
  return {
    accepted: 1,
    delivered: Math.min(delivered, 1),
    duplicated: Math.max(0, delivered - 1) + Math.max(0, executions - 1) + Math.max(0, replies - 1),
    recoveryMs,
    note: `${(received.get(id) ?? []).length} request(s), ${executions} idempotency key(s)`,
  };
}

async function waitingWorld(round) {
  const id = `hook-${round}-${randomBytes(4).toString("hex")}`;
  const tool = {
    name: "approve",
    description: "Ask a service",
    executionType: "external",
    visible: false,
    timeout: 120_000,
    inputSchema: { type: "object" },
    execution: { webhook: `${receiverUrl}/hook/${id}` },
  };
  const made = await world([tool], (space) => [
    { toolCalls: [{ name: "approve", args: { round } }] },
    { toolCalls: [enter(space), { name: "send_message", args: { text: `approved ${round}` } }, skip] },
  ]);
  await must("POST", `/api/agents/${made.agent.id}/inbox`, { type: "external", data: { round } });
  const delivery = await waitFor("the webhook", async () => (received.get(id) ?? [])[0]);
  const call = JSON.parse(delivery.body);
  return { ...made, id, call };
}

async function checkWaiting({ agent, spaceId, id, call }, resultValue) {
  const replies = await repliesOf(spaceId, agent.entityId);
  const calls = await callsOf(agent.id);
  const runs = await runsOf(agent.id);
  const results = runs
    .flatMap((run) => run.toolCalls)
    .filter((entry) => entry.toolCallId === call.toolCallId && JSON.stringify(entry.result) === JSON.stringify(resultValue)).length;
  const deliveryIds = new Set((received.get(id) ?? []).map((request) => request.headers["x-switchboard-delivery"])).size;
  return { delivered: Math.min(results, 1), duplicated: Math.max(0, results - 1) + Math.max(0, replies.length - 1) + Math.max(0, calls.length - 1) + Math.max(0, deliveryIds - 1) };
}

async function midWait(round) {
  const made = await waitingWorld(round);
  await killGateway();
  const upAt = await startGateway();
  const value = { approved: round };
  const answer = await waitFor("the result accepted", async () => {
    const posted = await api("POST", `/api/runs/${made.call.runId}/tool-results`, { callId: made.call.toolCallId, result: value });
    return posted.status === 200 ? posted : undefined;
  });
  await waitFor("the reply", async () => (await repliesOf(made.spaceId, made.agent.entityId)).length > 0);
  const recoveryMs = performance.now() - upAt;
  return { accepted: answer ? 1 : 0, ...(await checkWaiting(made, value)), recoveryMs };
}

async function afterResult(round) {
  const made = await waitingWorld(round);
  const value = { accepted: round };
  // Killed the moment the 200 arrives, before its body is even read.
  const response = await fetch(`${base}/api/runs/${made.call.runId}/tool-results`, {
    method: "POST",
    headers: { "x-secret-key": keys.GATEWAY_SECRET_KEY, "content-type": "application/json" },
    body: JSON.stringify({ callId: made.call.toolCallId, result: value }),
  });
  await killGateway();
  const answer = { status: response.status };
  const upAt = await startGateway();
  await waitFor("the reply", async () => (await repliesOf(made.spaceId, made.agent.entityId)).length > 0);
  const recoveryMs = performance.now() - upAt;
  return { accepted: answer.status === 200 ? 1 : 0, ...(await checkWaiting(made, value)), recoveryMs };
}

async function burst(round) {
  const person = (await must("POST", "/api/entities", { type: "human", name: "Burst" })).id;
  const spaceId = (await must("POST", "/api/spaces", { name: "burst", memberIds: [person] })).id;
  const count = Number(flags.burst);
  const posts = Array.from({ length: count }, (_, index) => ({ text: `burst ${round}/${index}`, key: `burst-${round}-${index}-${randomBytes(6).toString("hex")}` }));
  const send = (post) =>
    api("POST", `/api/spaces/${spaceId}/messages`, { text: post.text, entityId: person }, { "idempotency-key": post.key }).catch((error) => ({ status: 0, error }));
  // 25 clients at a time, so the kill lands while requests are in every state.
  let answered = 0;
  let killed;
  const outcomes = new Array(count);
  let next = 0;
  const client = async () => {
    while (next < count) {
      const index = next++;
      const outcome = killed ? { status: 0, unsent: true } : await send(posts[index]);
      outcomes[index] = outcome;
      // Killed in the middle, the moment a quarter have their answer.
      if (outcome.status === 201 && (answered += 1) >= count / 4) killed ??= killGateway();
    }
  };
  await Promise.all(Array.from({ length: 25 }, client));
  await (killed ?? killGateway());
  const broken = posts.filter((_, index) => outcomes[index].status !== 201);
  const upAt = await startGateway();
  const storedBeforeRetry = new Set((await must("GET", `/api/spaces/${spaceId}/messages?afterSeq=0&limit=200`)).messages.map((message) => message.text));
  const cutOff = broken.filter((post) => !outcomes[posts.indexOf(post)].unsent);
  const storedButBroken = cutOff.filter((post) => storedBeforeRetry.has(post.text)).length;
  // Every client whose request broke off retries with its key until it gets an answer.
  for (const post of broken) {
    await waitFor(`a retry of ${post.text}`, async () => {
      const answer = await send(post);
      return answer.status === 201 ? answer : undefined;
    });
  }
  const recoveryMs = performance.now() - upAt;
  const stored = [];
  for (let after = 0; ; ) {
    const page = (await must("GET", `/api/spaces/${spaceId}/messages?afterSeq=${after}&limit=200`)).messages;
    stored.push(...page);
    if (page.length < 200) break;
    after = page[page.length - 1].seq;
  }
  const texts = stored.map((message) => message.text);
  const unique = new Set(texts).size;
  // The space object writes messages to D1 behind (in batches, retried from its
  // alarm): the kill lands between the two for some of them. D1 must end up
  // with every stored message once, read from D1 itself, not through the object.
  const inD1 = await waitFor("every message in D1", async () => {
    const rows = d1Query(`SELECT text FROM messages WHERE space_id = '${spaceId}'`).map((row) => row.text);
    return rows.length >= texts.length ? rows : undefined;
  });
  const missingInD1 = texts.filter((text) => !inD1.includes(text)).length;
  const doubledInD1 = inD1.length - new Set(inD1).size;
  return {
    accepted: count,
    delivered: posts.filter((post) => texts.includes(post.text)).length - missingInD1,
    duplicated: texts.length - unique + doubledInD1,
    recoveryMs,
    note: `${cutOff.length} request(s) cut off in flight, ${storedButBroken} of them already stored; ${broken.length - cutOff.length} sent after the restart; every one retried with its key; D1 has ${inD1.length} row(s)`,
  };
}

/**
 * A pushed call's receiver refuses every push for 60 s (a deploy, an outage),
 * and the whole server is killed -9 halfway through and started again on the
 * same state. The call must still reach the receiver once it is back (the
 * retries outlast the outage and the restart), the receiver answers it, and
 * the agent replies exactly once.
 */
async function receiverDown(round) {
  const outageMs = 60_000;
  const id = `down-${round}-${randomBytes(4).toString("hex")}`;
  const tool = {
    name: "fulfil",
    description: "Ask a service",
    executionType: "external",
    isAsync: true,
    visible: false,
    inputSchema: { type: "object" },
    execution: { webhook: `${receiverUrl}/down/${id}` },
  };
  const made = await world([tool], (space) => [
    { toolCalls: [{ name: "fulfil", args: { round } }, skip] },
    { toolCalls: [enter(space), { name: "send_message", args: { text: `fulfilled ${round}` } }, skip] },
  ]);
  const outageStart = Date.now();
  downUntil.set(id, outageStart + outageMs);
  await must("POST", `/api/agents/${made.agent.id}/inbox`, { type: "external", data: { round } });
  await waitFor("the first push, refused", async () => (received.get(id) ?? [])[0]);
  // Killed in the middle of the outage, between two retries.
  await sleep(Math.max(0, outageStart + outageMs / 2 - Date.now()));
  await killGateway();
  const upAt = await startGateway();
  const accepted = await waitFor("the push accepted after the outage", async () => (received.get(id) ?? []).find((request) => request.status === 200), 4 * outageMs);
  const call = JSON.parse(accepted.body);
  const value = { fulfilled: round };
  // The receiver does its work and answers the call it was pushed.
  const answer = await waitFor("the result accepted", async () => {
    const posted = await api("POST", `/api/runs/${call.runId}/tool-results`, { callId: call.toolCallId, result: value });
    return posted.status === 200 ? posted : undefined;
  });
  await waitFor("the reply", async () => (await repliesOf(made.spaceId, made.agent.entityId)).length > 0);
  const recoveryMs = performance.now() - upAt;
  const pushes = received.get(id) ?? [];
  const acceptedPushes = pushes.filter((request) => request.status === 200).length;
  const replies = (await repliesOf(made.spaceId, made.agent.entityId)).length;
  const calls = await callsOf(made.agent.id);
  const results = (await runsOf(made.agent.id)).flatMap((run) => run.trigger ?? []).filter((event) => event.type === "tool_result" && event.toolCallId === call.toolCallId).length;
  const deliveryIds = new Set(pushes.map((request) => request.headers["webhook-id"])).size;
  return {
    accepted: answer ? 1 : 0,
    delivered: Math.min(results, 1),
    duplicated: Math.max(0, results - 1) + Math.max(0, replies - 1) + Math.max(0, calls.length - 1) + Math.max(0, deliveryIds - 1) + Math.max(0, acceptedPushes - 1),
    recoveryMs,
    note: `${pushes.length} push(es), ${pushes.length - acceptedPushes} refused; accepted ${((accepted.at - (outageStart + outageMs)) / 1000).toFixed(1)} s after the receiver came back; ${deliveryIds} webhook-id(s)`,
  };
}

/**
 * A gateway tool behind an approval: the person says yes, the approved request
 * reaches the upstream (which takes 1.5 s to answer), and the server is killed
 * -9 right then and started again. The request must not be sent a second time
 * (at most once after a yes): the upstream sees one execution, the model is
 * told the call was cut off, and the agent replies once.
 */
async function approveKill(round) {
  const id = `approved-${round}-${randomBytes(4).toString("hex")}`;
  const tool = {
    name: "transfer",
    description: "Move money",
    executionType: "gateway",
    visible: false,
    timeout: 20_000,
    inputSchema: { type: "object" },
    execution: { url: `${receiverUrl}/slow/${id}`, method: "POST" },
    approval: { required: true, timeout: 60_000 },
  };
  const { person, agent, spaceId } = await world([tool], (space) => [
    { toolCalls: [enter(space), { name: "transfer", args: { amount: round } }] },
    { toolCalls: [{ name: "send_message", args: { text: `transfer ${round} handled` } }, skip] },
  ]);
  await must("POST", `/api/spaces/${spaceId}/messages`, { text: `send ${round}`, entityId: person });
  const card = await waitFor("the approval card", async () => {
    const messages = (await must("GET", `/api/spaces/${spaceId}/messages?afterSeq=0&limit=200`)).messages;
    return messages.flatMap((message) => message.parts ?? []).find((part) => part.kind === "approval");
  });
  const answer = await api("POST", `/api/runs/${card.runId}/tool-results`, { callId: card.toolCallId, result: { approved: true } });
  // The worst moment: the approved request is at the upstream, its answer not back yet.
  await waitFor("the approved request in flight", async () => (received.get(id) ?? []).length > 0);
  await killGateway();
  const upAt = await startGateway();
  await waitFor("the reply", async () => (await repliesOf(spaceId, agent.entityId)).length > 0, 120_000);
  const recoveryMs = performance.now() - upAt;
  const requests = received.get(id) ?? [];
  const replies = (await repliesOf(spaceId, agent.entityId)).length;
  const call = (await runsOf(agent.id)).flatMap((run) => run.toolCalls).find((entry) => entry.toolName === "transfer");
  return {
    accepted: answer.status === 200 ? 1 : 0,
    delivered: Math.min(requests.length, 1),
    duplicated: Math.max(0, requests.length - 1) + Math.max(0, replies - 1),
    recoveryMs,
    note: `${requests.length} request(s) upstream; the model got ${call?.status === "completed" ? "the answer" : `"${String(call?.error ?? "nothing").slice(0, 60)}…"`}`,
  };
}

// ── a person connecting an account, killed mid-flow ─────────────────────

/** An HS256 JWT for a person (their page's credential). */
function personToken(entityId) {
  const encode = (value) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const unsigned = `${encode({ alg: "HS256", typ: "JWT" })}.${encode({ sub: entityId, iat: now, exp: now + 3600 })}`;
  return `${unsigned}.${createHmac("sha256", keys.JWT_SECRET).update(unsigned).digest("base64url")}`;
}

/** A browser's cookies, by name. */
function keepCookies(jar, response) {
  for (const line of response.headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(";");
    const name = pair.slice(0, pair.indexOf("=")).trim();
    const value = pair.slice(pair.indexOf("=") + 1);
    if (value === "" || attributes.some((attribute) => /^\s*max-age=0/i.test(attribute))) jar.delete(name);
    else jar.set(name, value);
  }
}
const cookieHeader = (jar) => ({ cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") });

/**
 * Follows a link as the person's browser would: through the gateway's start
 * link and the authorization server's log-in and consent pages, up to the
 * redirect back to the gateway's callback, which is not followed: its URL is
 * returned (the browser would open it next).
 */
async function signInUntilCallback(startUrl, jar, login) {
  let url = startUrl;
  for (let step = 0; step < 16; step += 1) {
    if (url.startsWith(`${base}/oauth/callback`)) return url;
    const response = await fetch(url, { redirect: "manual", headers: cookieHeader(jar), signal: AbortSignal.timeout(20_000) });
    keepCookies(jar, response);
    const location = response.headers.get("location");
    if (location !== null) {
      url = new URL(location, url).href;
      continue;
    }
    const page = await response.text();
    const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1];
    const action = /<form[^>]* action="([^"]+)"/.exec(page)?.[1];
    if (prompt === undefined || action === undefined) throw new Error(`not a sign-in or consent page (${response.status}): ${page.slice(0, 300)}`);
    const form = prompt === "login" ? { prompt, login, password: "any password" } : { prompt };
    const submitted = await fetch(new URL(action, url), {
      method: "POST",
      redirect: "manual",
      headers: { ...cookieHeader(jar), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form),
    });
    keepCookies(jar, submitted);
    url = new URL(submitted.headers.get("location") ?? "", url).href;
  }
  throw new Error("the sign-in never came back to the gateway");
}

let demoAccounts;

async function connectKill(round) {
  demoAccounts ??= await (await import("./demo-accounts.mjs")).startDemoAccounts();
  const server = { name: "notes", url: demoAccounts.notesUrl, auth: { type: "oauth", owner: "person", service: "Demo notes", tools: [{ name: "whoami" }] } };
  const person = (await must("POST", "/api/entities", { type: "human", name: `Chaos ${round}` })).id;
  const agent = await must("POST", "/api/agents", {
    config: {
      agent: { name: "Connector" },
      model: {
        provider: "scripted",
        turns: [{ toolCalls: [enter("SPACE"), { name: "notes__whoami", args: {} }] }, { toolCalls: [{ name: "send_message", args: { text: `connected ${round}` } }, skip] }],
      },
      mcp: { servers: [server] },
    },
  });
  const spaceId = (await must("POST", "/api/spaces", { name: "chaos accounts", memberIds: [person, agent.entityId] })).id;
  const config = (await must("GET", `/api/agents/${agent.id}`)).config;
  config.model.turns = JSON.parse(JSON.stringify(config.model.turns).replaceAll("SPACE", spaceId));
  await must("PUT", `/api/agents/${agent.id}`, { config });
  const login = `chaos-${round}-${randomBytes(3).toString("hex")}`;
  const callsBefore = demoAccounts.calls.filter((call) => call.accountId === login).length;

  await must("POST", `/api/spaces/${spaceId}/messages`, { text: `who am I ${round}`, entityId: person });
  const card = await waitFor("the card that asks the person to connect", async () => {
    const { messages } = await must("GET", `/api/spaces/${spaceId}/messages?afterSeq=0&limit=200`);
    return messages.flatMap((message) => message.parts ?? []).find((part) => part.account?.flowId);
  });
  const member = { "x-public-key": keys.GATEWAY_PUBLIC_KEY, authorization: `Bearer ${personToken(person)}` };
  const linked = await fetch(`${base}/api/me/connections/flows/${card.account.flowId}`, { headers: member, signal: AbortSignal.timeout(20_000) });
  const link = await linked.json();
  if (linked.status !== 200) throw new Error(`the person's link: ${linked.status} ${JSON.stringify(link)}`);
  const jar = new Map();
  const callback = await signInUntilCallback(link.startUrl, jar, login);

  // The worst moment: signed in and consented at the server, the code on its way back to a gateway that is gone.
  await killGateway();
  const upAt = await startGateway();
  const finished = await fetch(callback, { redirect: "manual", headers: { ...cookieHeader(jar), accept: "application/json" }, signal: AbortSignal.timeout(30_000) });
  const answer = await finished.json();
  if (finished.status !== 200) throw new Error(`the callback after the restart: ${finished.status} ${JSON.stringify(answer)}`);
  await waitFor("the agent going on", async () => (await repliesOf(spaceId, agent.entityId)).length > 0);
  const recoveryMs = performance.now() - upAt;
  const calls = (await callsOf(agent.id)).filter((call) => call.toolName === "notes__whoami");
  const runs = await runsOf(agent.id);
  const completed = runs.flatMap((run) => run.toolCalls ?? []).filter((call) => call.toolName === "notes__whoami" && call.status === "completed").length;
  const executions = demoAccounts.calls.filter((call) => call.accountId === login).length - callsBefore;
  const replies = (await repliesOf(spaceId, agent.entityId)).length;
  const resolved = calls.filter((call) => call.status === "resolved").length;
  return {
    accepted: 1,
    delivered: Math.min(1, completed, resolved),
    duplicated: Math.max(0, executions - 1) + Math.max(0, replies - 1) + Math.max(0, completed - 1),
    recoveryMs,
    note: `the notes server ran the call ${executions}x as ${login}`,
  };
}

const runners = {
  "mid-cycle": midCycle,
  "mid-wait": midWait,
  "after-result": afterResult,
  burst,
  "receiver-down": receiverDown,
  "approve-kill": approveKill,
  "connect-kill": connectKill,
};

// ── run ────────────────────────────────────────────────────────────────

let exitCode = 0;
try {
  log(`state in ${state}; migrating the local database`);
  const migrated = spawnSync(nodeBin, [wranglerBin, "d1", "migrations", "apply", "DB", "--local", "--persist-to", state], { cwd: root, env: childEnvironment(), encoding: "utf8" });
  if (migrated.status !== 0) throw new Error(`migrations failed:\n${migrated.stdout}\n${migrated.stderr}`);
  await startGateway();
  log(`gateway on ${base}, receiver on ${receiverUrl}`);
  const rows = [];
  for (const name of scenarios) {
    for (let round = 1; round <= rounds; round += 1) {
      const result = await runners[name](round);
      rows.push({ scenario: name, round, ...result });
      log(
        `${name} #${round}: accepted ${result.accepted}, delivered ${result.delivered}, duplicated ${result.duplicated}, recovered in ${(result.recoveryMs / 1000).toFixed(1)} s${result.note ? ` (${result.note})` : ""}`,
      );
    }
  }
  console.log("\n| scenario | rounds | accepted | delivered | lost | duplicated | recovery median | recovery max |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const name of scenarios) {
    const mine = rows.filter((row) => row.scenario === name);
    const sum = (key) => mine.reduce((total, row) => total + row[key], 0);
    const times = mine.map((row) => row.recoveryMs).sort((a, b) => a - b);
    const median = times[Math.floor((times.length - 1) / 2)];
    console.log(
      `| ${name} | ${mine.length} | ${sum("accepted")} | ${sum("delivered")} | ${sum("accepted") - sum("delivered")} | ${sum("duplicated")} | ${(median / 1000).toFixed(1)} s | ${(times[times.length - 1] / 1000).toFixed(1)} s |`,
    );
    if (sum("accepted") !== sum("delivered") || sum("duplicated") > 0) exitCode = 1;
  }
  console.log(exitCode === 0 ? "\nnothing lost, nothing doubled" : "\nLOST OR DOUBLED: see the table");
} catch (error) {
  console.error(error);
  if (server) console.error(server.output().slice(-3000));
  exitCode = 1;
} finally {
  if (server) await killGateway().catch(() => undefined);
  receiver.close();
  await demoAccounts?.close();
  rmSync(state, { recursive: true, force: true });
}
process.exit(exitCode);
