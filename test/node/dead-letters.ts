/**
 * Dead letters for the node tests, against the real gateway:
 *
 * - `expiredCallDeadLetter`: made the real way, in about two seconds: an
 *   external tool pushes its call to a receiver that refuses it, and the
 *   call's `expiresIn` passes first;
 * - `subscriptionDeadLetter`: a subscription's event that spent its retry
 *   schedule. The schedule is about 28 hours long, so the row the agent
 *   object would then land is written straight to the dev server's D1 (as
 *   `npm run chaos` reads it): everything from there on (the list, the
 *   redelivery from the agent's object, the receiver) is real.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";
import type { Switchboard } from "../../client/src/index";
import { admin, gateway } from "./gateway";
import { executeLocalD1 } from "./local-d1";

type DeadLetter = Awaited<ReturnType<Switchboard["webhooks"]["deadLetters"]>>["deadLetters"][number];
/** One push a receiver got, with the status it answered. */
type Push = { headers: Record<string, string | string[] | undefined>; body: string; status: number };

/** An agent from a config as a user writes it (defaults left to the gateway), through the route itself. */
async function createAgent(config: Record<string, unknown>): Promise<{ id: string; entityId: string }> {
  const response = await fetch(`${gateway.baseUrl}/api/agents`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-secret-key": gateway.vars.GATEWAY_SECRET_KEY },
    body: JSON.stringify({ config }),
  });
  if (response.status !== 201) throw new Error(`could not create the agent: ${response.status} ${await response.text()}`);
  const created: unknown = await response.json();
  if (typeof created !== "object" || created === null || !("id" in created) || !("entityId" in created) || typeof created.id !== "string" || typeof created.entityId !== "string")
    throw new Error("not an agent");
  return { id: created.id, entityId: created.entityId };
}

/**
 * A receiver on loopback that records every push and answers `status` (200, or 503 for one that refuses; `answerWith`
 * changes it for the pushes to come; `onPush` hears of each as it is answered); it stops when the test ends, or at `close()`.
 */
export async function receiver(
  status: number,
  onPush: (push: Push) => void = () => undefined,
): Promise<{ url: string; pushes: Push[]; answerWith(status: number): void; close(): Promise<void> }> {
  const pushes: Push[] = [];
  let answer = status;
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      const push = { headers: request.headers, body, status: answer };
      pushes.push(push);
      response.writeHead(answer).end();
      onPush(push);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= new Promise<void>((resolve) => server.close(() => resolve())));
  onTestFinished(close);
  return { url: `http://127.0.0.1:${port}/hook`, pushes, answerWith: (next) => (answer = next), close };
}

/**
 * The first event of `type` on the agent's stream (from its start) that `matches`, within `timeoutMs`. The gateway
 * publishes a dead letter's `*.dead_lettered` and a redelivery's `webhook.delivered` after D1 has the row's new state.
 */
export function agentEvent(agentId: string, type: string, matches: (data: Record<string, unknown>) => boolean = () => true, timeoutMs = 20_000): Promise<void> {
  const stream = admin.subscribeAgent(agentId, { afterSeq: 0 });
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} on the stream of ${agentId} within ${timeoutMs} ms`)), timeoutMs);
    stream.on("event", (event) => {
      if (event.type !== type || !matches(event.data as Record<string, unknown>)) return;
      clearTimeout(timer);
      resolve();
    });
  }).finally(() => stream.close());
}

async function waitForDeadLetters(agentId: string): Promise<DeadLetter[]> {
  await agentEvent(agentId, "tool.webhook.dead_lettered");
  return (await admin.webhooks.deadLetters({ agentId })).deadLetters;
}

/** A pushed call whose deadline passed while its receiver refused it: listed, and no longer redeliverable (the call expired). */
export async function expiredCallDeadLetter(): Promise<{ deadLetter: DeadLetter; agentId: string }> {
  const refusing = await receiver(503);
  try {
    const tool = {
      name: "reserve",
      description: "Reserve",
      executionType: "external",
      isAsync: true,
      visible: false,
      inputSchema: { type: "object" },
      execution: { webhook: refusing.url, expiresIn: 1_500 },
    };
    const agent = await createAgent({
      agent: { name: "Unheard" },
      model: {
        provider: "scripted",
        turns: [
          {
            toolCalls: [
              { name: "reserve", args: {} },
              { name: "skip", args: {} },
            ],
          },
        ],
      },
      tools: [tool],
    });
    await admin.agents.pushInbox(agent.id, {});
    const [deadLetter] = await waitForDeadLetters(agent.id);
    return { deadLetter, agentId: agent.id };
  } finally {
    await refusing.close();
  }
}

const sqlText = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** A subscription (of a new agent) to `url`, and its `run.completed` event landed as a dead letter after 8 attempts. */
export async function subscriptionDeadLetter(url: string): Promise<{ id: string; agentId: string; subscriptionId: string; secret: string; webhookId: string }> {
  const agent = await createAgent({ agent: { name: "Unlucky" }, model: { provider: "scripted", turns: [] } });
  const subscription = await admin.webhooks.create({ url, events: ["run.completed"], agentId: agent.id });
  const id = `dlt_${randomBytes(16).toString("hex")}`;
  const webhookId = `evt_run_${randomBytes(8).toString("hex")}_completed`;
  const body = JSON.stringify({ type: "run.completed", timestamp: new Date().toISOString(), data: { agentId: agent.id, runId: webhookId.slice(4, -10), status: "completed" } });
  const now = new Date().toISOString();
  const values = [id, "subscription", agent.id, subscription.id, webhookId, "run.completed", url, body, "8", "HTTP 503", "dead", now, now];
  const sql = `INSERT INTO webhook_dead_letters (id, source, agent_id, subscription_id, webhook_id, type, url, body, attempts, last_error, status, first_attempt_at, dead_at) VALUES (${values.map((value) => (value === "8" ? value : sqlText(value))).join(", ")})`;
  await executeLocalD1(sql, "write the dead letter");
  return { id, agentId: agent.id, subscriptionId: subscription.id, secret: subscription.secret, webhookId };
}
