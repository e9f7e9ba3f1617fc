import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, messageInD1, createHuman, createSpace, secret } from "./support/api";
import { createAgent, listRuns, scriptedConfig, settledRuns, waitUntil } from "./support/agents";
import { countRows } from "./support/database-state";
import { readErrorEnvelope } from "./support/error-envelope";

const keyed = (key: string) => ({ "x-secret-key": env.GATEWAY_SECRET_KEY, "idempotency-key": key });

describe("Idempotency-Key", () => {
  it("the same key and body replay the first answer and store nothing twice, for every retryable write", async () => {
    const person = await createHuman("Ida");
    const agent = await createAgent(scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }]));
    const spaceId = await createSpace([person, agent.entityId]);
    const writes: { path: string; body: unknown; status: number }[] = [
      { path: "/api/entities", body: { type: "human", name: "Twice" }, status: 201 },
      { path: "/api/spaces", body: { name: "Once", memberIds: [person] }, status: 201 },
      { path: "/api/agents", body: { config: scriptedConfig([]) }, status: 201 },
      { path: `/api/spaces/${spaceId}/messages`, body: { text: "only once", entityId: person }, status: 201 },
      { path: `/api/agents/${agent.id}/inbox`, body: { type: "external", data: { once: true } }, status: 202 },
    ];
    for (const write of writes) {
      const key = crypto.randomUUID();
      const before = await countRows();
      const first = await secret(write.path, { body: write.body, headers: keyed(key) });
      // A message reaches D1 from its space object shortly after the answer.
      if (write.path.endsWith("/messages")) await messageInD1((first.body as { id: string }).id);
      const afterFirst = await countRows();
      const again = await call(write.path, { body: write.body, headers: keyed(key) });
      expect(first.status, write.path).toBe(write.status);
      expect(again.status, write.path).toBe(write.status);
      expect(again.headers.get("idempotent-replayed"), write.path).toBe("true");
      expect(await again.json(), write.path).toEqual(first.body);
      expect(await countRows(), write.path).toEqual(afterFirst);
      if (!write.path.endsWith("/inbox")) expect(afterFirst, write.path).not.toEqual(before);
    }
    // The person's message woke the agent once; the inbox event once more: two events, never four
    // (in one run or two, depending on whether the first cycle started before the inbox event came).
    await waitUntil(async () => (await listRuns(agent.id)).flatMap((run) => run.trigger).length >= 2, 10_000, "both events ran");
    const triggers = (await settledRuns(agent.id)).flatMap((run) => run.trigger);
    expect(triggers.filter((event) => event.type === "space_message")).toHaveLength(1);
    expect(triggers.filter((event) => event.type === "external")).toHaveLength(1);
  });

  it("the same key with a different body is 422, and nothing is written", async () => {
    const key = crypto.randomUUID();
    expect((await secret("/api/entities", { body: { type: "human", name: "First" }, headers: keyed(key) })).status).toBe(201);
    const before = await countRows();
    const reused = await call("/api/entities", { body: { type: "human", name: "Second" }, headers: keyed(key) });
    expect(reused.status).toBe(422);
    await readErrorEnvelope(reused, "idempotency_key_reused");
    expect(await countRows()).toEqual(before);
  });

  it("keys are per caller and per route, a failed request leaves no record, and a bad key is a 400", async () => {
    const key = crypto.randomUUID();
    const refused = await secret("/api/spaces", { body: { name: "x", memberIds: ["ent_missing"] }, headers: keyed(key) });
    expect(refused.status).toBe(404);
    // The fixed request may use the same key: the failure was not remembered.
    expect((await secret("/api/spaces", { body: { name: "x" }, headers: keyed(key) })).status).toBe(201);
    // The same key on another route is another request.
    expect((await secret("/api/entities", { body: { type: "human", name: "x" }, headers: keyed(key) })).status).toBe(201);
    const bad = await call("/api/entities", { body: { type: "human", name: "x" }, headers: keyed("has spaces in it") });
    expect(bad.status).toBe(400);
    await readErrorEnvelope(bad, "invalid_idempotency_key");
  });

  it("a retry while the first request is still in flight is 409; after the first died half-way, the retry takes over and finds what it wrote", async () => {
    const person = await createHuman("Retry");
    const spaceId = await createSpace([person]);
    const path = `/api/spaces/${spaceId}/messages`;
    const body = { text: "sent once, retried after a crash", entityId: person };
    const scope = `secret POST ${path}`;
    const fingerprint = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(body))))]
      .map((byte) => byte.toString(16).padStart(2, "0"))
      .join("");

    const fresh = crypto.randomUUID();
    await env.DB.prepare("INSERT INTO idempotency_keys (scope, key, fingerprint, created_at) VALUES (?, ?, ?, ?)").bind(scope, fresh, fingerprint, Date.now()).run();
    const busy = await call(path, { body, headers: keyed(fresh) });
    expect(busy.status).toBe(409);
    expect(busy.headers.get("retry-after")).toBe("1");
    await readErrorEnvelope(busy, "idempotency_key_in_use");

    // The first request stored the message, then the process died before it answered.
    const crashed = crypto.randomUUID();
    const first = await secret<{ id: string; seq: number }>(path, { body, headers: keyed(crashed) });
    await env.DB.prepare("UPDATE idempotency_keys SET status = NULL, response = NULL, created_at = ? WHERE key = ?")
      .bind(Date.now() - 60_000, crashed)
      .run();
    const retried = await secret<{ id: string; seq: number }>(path, { body, headers: keyed(crashed) });
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ id: first.body.id, seq: first.body.seq });
    const stored = await secret<{ messages: { id: string }[] }>(`${path}?afterSeq=0`);
    expect(stored.body.messages.filter((message) => message.id === first.body.id)).toHaveLength(1);
  });
});
