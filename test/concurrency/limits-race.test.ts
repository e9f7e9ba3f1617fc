/**
 * Every limit holds under concurrency: many requests for the last free slots
 * at once, through the routes, and then a count of what was stored. The
 * count-then-insert limit (webhook subscriptions per agent or space) and the
 * one-of-a-kind rules (an entity's `externalId`, one membership per entity
 * and space) each end with exactly what they allow; every refused request
 * gets the same 4xx it gets one at a time, and nothing else.
 */
import { env } from "cloudflare:workers";
import { and, count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDatabase } from "../../src/db/client";
import { entities, members, webhookSubscriptions } from "../../src/db/schema";
import { maxSubscriptionsPerTarget } from "../../src/webhooks/webhook-subscriptions";
import { createHuman, createSpace, secret } from "../support/api";
import { createAgent } from "../support/agents";
import { expectErrorEnvelope } from "../support/error-envelope";

const database = getDatabase(env.DB);

/** `requests` calls of `send` at once; the statuses in order, and each refusal's error code. */
async function race(requests: number, send: (index: number) => Promise<{ status: number; body: unknown }>) {
  const answers = await Promise.all(Array.from({ length: requests }, (_, index) => send(index)));
  const refused = answers.filter((answer) => answer.status >= 400);
  for (const answer of refused) expectErrorEnvelope(answer.body);
  return {
    created: answers.filter((answer) => answer.status === 201).length,
    statuses: [...new Set(answers.map((answer) => answer.status))].sort(),
    codes: [...new Set(refused.map((answer) => (answer.body as { error: { code: string } }).error.code))],
  };
}

async function storedSubscriptions(target: { agentId?: string; spaceId?: string }): Promise<number> {
  const where = target.agentId ? eq(webhookSubscriptions.agentId, target.agentId) : eq(webhookSubscriptions.spaceId, target.spaceId ?? "");
  const [row] = await database.select({ stored: count() }).from(webhookSubscriptions).where(where);
  return row.stored;
}

const subscribe = (target: { agentId?: string; spaceId?: string }, label: string) =>
  secret("/api/webhooks", { body: { url: `http://hooks.test/in/race-${label}`, events: ["run.completed"], ...target } });

describe("limits under concurrency", () => {
  it(`60 concurrent subscriptions for one agent store exactly ${maxSubscriptionsPerTarget}; the rest are 409 limit_reached`, async () => {
    const agent = await createAgent({ agent: { name: "Raced" }, model: { provider: "scripted", turns: [] } });
    const outcome = await race(60, (index) => subscribe({ agentId: agent.id }, `agent-${index}`));
    expect(outcome).toEqual({ created: maxSubscriptionsPerTarget, statuses: [201, 409], codes: ["limit_reached"] });
    expect(await storedSubscriptions({ agentId: agent.id })).toBe(maxSubscriptionsPerTarget);
  });

  it(`60 concurrent subscriptions for one space store exactly ${maxSubscriptionsPerTarget}`, async () => {
    const spaceId = await createSpace([await createHuman("Raced")]);
    const outcome = await race(60, (index) => subscribe({ spaceId }, `space-${index}`));
    expect(outcome).toEqual({ created: maxSubscriptionsPerTarget, statuses: [201, 409], codes: ["limit_reached"] });
    expect(await storedSubscriptions({ spaceId })).toBe(maxSubscriptionsPerTarget);
  });

  it("the last free slots go to exactly as many concurrent requests, and other targets are not counted", async () => {
    const agent = await createAgent({ agent: { name: "Nearly full" }, model: { provider: "scripted", turns: [] } });
    const neighbour = await createAgent({ agent: { name: "Neighbour" }, model: { provider: "scripted", turns: [] } });
    for (let index = 0; index < maxSubscriptionsPerTarget - 3; index += 1) expect((await subscribe({ agentId: agent.id }, `first-${index}`)).status).toBe(201);
    // The neighbour's requests race alongside and are all within its own limit.
    const outcome = await race(30, (index) => (index % 3 === 0 ? subscribe({ agentId: neighbour.id }, `neighbour-${index}`) : subscribe({ agentId: agent.id }, `last-${index}`)));
    expect(outcome.created).toBe(3 + 10);
    expect(await storedSubscriptions({ agentId: agent.id })).toBe(maxSubscriptionsPerTarget);
    expect(await storedSubscriptions({ agentId: neighbour.id })).toBe(10);
  });

  it("30 concurrent entities with one externalId store one; the rest are 409 conflict", async () => {
    const externalId = `race-${crypto.randomUUID()}`;
    const outcome = await race(30, (index) => secret("/api/entities", { body: { type: "human", name: `Twin ${index}`, externalId } }));
    expect(outcome).toEqual({ created: 1, statuses: [201, 409], codes: ["conflict"] });
    const [row] = await database.select({ stored: count() }).from(entities).where(eq(entities.externalId, externalId));
    expect(row.stored).toBe(1);
  });

  it("30 concurrent adds of one entity to a space store one membership; the rest are 409 conflict", async () => {
    const spaceId = await createSpace([await createHuman("Host")]);
    const guest = await createHuman("Guest");
    const outcome = await race(30, () => secret(`/api/spaces/${spaceId}/members`, { body: { entityId: guest } }));
    expect(outcome).toEqual({ created: 1, statuses: [201, 409], codes: ["conflict"] });
    const [row] = await database
      .select({ stored: count() })
      .from(members)
      .where(and(eq(members.spaceId, spaceId), eq(members.entityId, guest)));
    expect(row.stored).toBe(1);
  });
});
