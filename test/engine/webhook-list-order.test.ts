/**
 * `GET /api/webhooks` lists subscriptions newest first by creation time, the
 * id breaking ties, in keyset pages (`cursor` = the previous page's
 * `nextCursor`): every subscription exactly once, whatever the page size, and
 * stable when one is added between two pages.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getDatabase } from "../../src/db/client";
import { webhookSubscriptions } from "../../src/db/schema";
import { createHuman, createSpace, secret } from "../support/api";
import { waitUntil } from "../support/agents";
import { expectErrorEnvelope } from "../support/error-envelope";

type Listed = { webhooks: { id: string; createdAt: string }[]; nextCursor: string | null };

async function subscribe(spaceId: string): Promise<{ id: string; createdAt: string }> {
  const created = await secret<{ id: string; createdAt: string }>("/api/webhooks", { body: { url: "http://hooks.test/in/order", events: ["run.failed"], spaceId } });
  expect(created.status).toBe(201);
  return created.body;
}

/** Every page of one space's list, `limit` at a time. */
async function allPages(spaceId: string, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: Listed } = await secret<Listed>(`/api/webhooks?spaceId=${spaceId}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(page.status).toBe(200);
    pages.push(page.body.webhooks.map((entry) => entry.id));
    cursor = page.body.nextCursor;
  } while (cursor !== null);
  return pages;
}

/** A subscription row written as the route writes it, with the id and creation time given. */
function row(id: string, spaceId: string, createdAt: string) {
  return { id, url: "http://hooks.test/in/order", events: ["run.failed"], agentId: null, spaceId, secret: `whsec_${btoa("order")}`, description: null, createdAt };
}

describe("GET /api/webhooks order and pages", () => {
  it("lists subscriptions newest first, in pages that give each one once", async () => {
    const spaceId = await createSpace([await createHuman()]);
    const created: string[] = [];
    for (let index = 0; index < 5; index++) {
      const subscription = await subscribe(spaceId);
      created.push(subscription.id);
      // The next one gets a later creation time, so the order below is the order of creation.
      await waitUntil(() => new Date().toISOString() > subscription.createdAt, 1_000, "the clock to move on");
    }
    const newestFirst = [...created].reverse();
    const whole = await secret<Listed>(`/api/webhooks?spaceId=${spaceId}`);
    expect(whole.body.webhooks.map((entry) => entry.id)).toEqual(newestFirst);
    expect(whole.body.nextCursor).toBeNull();
    expect(await allPages(spaceId, 2)).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
    expect((await allPages(spaceId, 1)).flat()).toEqual(newestFirst);

    // One added between two pages lands on the first page, never shifting the later ones.
    const first = await secret<Listed>(`/api/webhooks?spaceId=${spaceId}&limit=2`);
    const added = await subscribe(spaceId);
    const second = await secret<Listed>(`/api/webhooks?spaceId=${spaceId}&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.webhooks.map((entry) => entry.id)).toEqual(newestFirst.slice(2, 4));
    expect((await allPages(spaceId, 10))[0]).toEqual([added.id, ...newestFirst]);
  });

  it("orders by creation time rather than by id, and breaks ties by id", async () => {
    const spaceId = await createSpace([await createHuman()]);
    const id = (digit: string) => `whk_${digit.repeat(32)}`;
    // The ids run against the creation times: an order by id alone would list the oldest first.
    await getDatabase(env.DB)
      .insert(webhookSubscriptions)
      .values([
        row(id("f"), spaceId, "2026-01-01T00:00:00.000Z"),
        row(id("a"), spaceId, "2026-01-02T00:00:00.000Z"),
        row(id("c"), spaceId, "2026-01-03T00:00:00.000Z"),
        row(id("b"), spaceId, "2026-01-03T00:00:00.000Z"),
        row(id("9"), spaceId, "2026-01-04T00:00:00.000Z"),
      ]);
    const expected = [id("9"), id("c"), id("b"), id("a"), id("f")];
    expect((await allPages(spaceId, 10)).flat()).toEqual(expected);
    // A page boundary between the two of the same time gives each once.
    expect(await allPages(spaceId, 2)).toEqual([[id("9"), id("c")], [id("b"), id("a")], [id("f")]]);
    // The earlier way to page (`before` = the last id of the previous page) follows the same order.
    const after = await secret<Listed>(`/api/webhooks?spaceId=${spaceId}&limit=2&before=${id("c")}`);
    expect(after.body.webhooks.map((entry) => entry.id)).toEqual([id("b"), id("a")]);
  });

  it("refuses a cursor it did not give out, and a before that names no subscription, with 400", async () => {
    for (const query of ["cursor=not-a-cursor", `before=whk_${"0".repeat(32)}`, "before=nope"]) {
      const response = await secret(`/api/webhooks?${query}`);
      expect(response.status, query).toBe(400);
      expectErrorEnvelope(response.body);
    }
  });
});
