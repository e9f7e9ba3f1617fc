/**
 * A person's `GET /api/me/connections` and `DELETE /api/me/connections/{id}`
 * (their own only; the secret key is pointed to the operators' routes), and
 * the operators' `GET /api/connections` and `DELETE /api/connections/{id}`
 * (the secret key only; a JWT is refused). A public key alone is refused
 * everywhere; no answer ever carries a token (each is serialized and
 * searched for every token stored).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConnectionStore } from "../../src/accounts/connection-store";
import { tokenCipherFor, type TokenSet } from "../../src/accounts/token-cipher";
import { getDatabase } from "../../src/db/client";
import { call, callJson, createHuman, memberHeaders, secret } from "../support/api";
import { readErrorEnvelope } from "../support/error-envelope";

type Listing = { connections: { entityId: string; connectionKey: string; revokedAt: string | null }[]; nextCursor: string | null };

const tokens = (): TokenSet => ({
  accessToken: `at-${crypto.randomUUID()}`,
  refreshToken: `rt-${crypto.randomUUID()}`,
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  scopes: ["files:read"],
  tokenType: "Bearer",
});

const stored: string[] = [];

async function connect(entityId: string, connectionKey: string): Promise<void> {
  const store = new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));
  const set = tokens();
  stored.push(set.accessToken, set.refreshToken ?? "");
  const saved = await store.save({ entityId, connectionKey }, set, { issuer: "https://auth.test", clientId: "client" });
  if (!saved.ok) throw new Error(saved.reason);
}

/** No token stored by this file appears in the answer. */
function expectNoToken(body: unknown): void {
  const text = JSON.stringify(body);
  for (const token of stored) expect(text).not.toContain(token);
  expect(text).not.toContain("sealed");
  expect(text).not.toMatch(/v1\.test1\./);
}

const files = "https://files.example.com/mcp";
const mail = "https://mail.example.com/mcp";

describe("the connections routes", () => {
  it("a person lists their own connections only; the secret key lists everyone's, or one entity's", async () => {
    const [ada, bob] = await Promise.all([createHuman("Ada"), createHuman("Bob")]);
    await connect(ada, files);
    await connect(ada, mail);
    await connect(bob, files);

    const own = await callJson<Listing>("/api/me/connections", { headers: await memberHeaders(ada) });
    expect(own.status).toBe(200);
    expect(own.body.connections.map((entry) => [entry.entityId, entry.connectionKey])).toEqual([
      [ada, files],
      [ada, mail],
    ]);
    expect(own.body.connections[0]).toEqual({
      entityId: ada,
      connectionKey: files,
      scopes: ["files:read"],
      issuer: "https://auth.test",
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      expiresAt: expect.any(String),
      revokedAt: null,
    });
    expectNoToken(own.body);

    // Naming someone is refused, not ignored: the person would think they saw Bob's.
    const naming = await call(`/api/me/connections?entityId=${bob}`, { headers: await memberHeaders(ada) });
    expect(naming.status).toBe(400);
    expect((await readErrorEnvelope(naming, "validation_error")).error.details).toEqual([{ path: "entityId", message: expect.stringContaining("/api/connections") }]);
    // The operators' route is not a person's.
    const asPerson = await call(`/api/connections?entityId=${ada}`, { headers: await memberHeaders(ada) });
    expect(asPerson.status).toBe(403);
    await readErrorEnvelope(asPerson, "forbidden");

    const bobs = await secret<Listing>(`/api/connections?entityId=${bob}`);
    expect(bobs.body.connections.map((entry) => entry.connectionKey)).toEqual([files]);
    const everyone = await secret<Listing>("/api/connections?limit=100");
    const entities = new Set(everyone.body.connections.map((entry) => entry.entityId));
    expect(entities.has(ada) && entities.has(bob)).toBe(true);
    expectNoToken(everyone.body);
  });

  it("pages with nextCursor, a person's own and the secret key's", async () => {
    const ada = await createHuman("Pager");
    for (const name of ["a", "b", "c"]) await connect(ada, `https://${name}.example.com/mcp`);
    const first = await callJson<Listing>("/api/me/connections?limit=2", { headers: await memberHeaders(ada) });
    expect(first.body.connections).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await callJson<Listing>(`/api/me/connections?limit=2&cursor=${first.body.nextCursor}`, { headers: await memberHeaders(ada) });
    expect(second.body.connections.map((entry) => entry.connectionKey)).toEqual(["https://c.example.com/mcp"]);
    expect(second.body.nextCursor).toBeNull();
    const bad = await callJson("/api/me/connections?cursor=nonsense", { headers: await memberHeaders(ada) });
    expect(bad.status).toBe(400);

    const operatorFirst = await secret<Listing>(`/api/connections?entityId=${ada}&limit=2`);
    expect(operatorFirst.body.connections.map((entry) => entry.connectionKey)).toEqual(["https://a.example.com/mcp", "https://b.example.com/mcp"]);
    const operatorSecond = await secret<Listing>(`/api/connections?entityId=${ada}&limit=2&cursor=${operatorFirst.body.nextCursor}`);
    expect(operatorSecond.body).toMatchObject({ connections: [{ connectionKey: "https://c.example.com/mcp" }], nextCursor: null });
    expect((await call("/api/connections?cursor=nonsense", { headers: { "x-secret-key": env.GATEWAY_SECRET_KEY } })).status).toBe(400);
  });

  it("each fixed path answers a person, the secret key, and a public key alone as it should", async () => {
    const ada = await createHuman("Ada");
    await connect(ada, files);
    const person = await memberHeaders(ada);
    const secretKey = { "x-secret-key": env.GATEWAY_SECRET_KEY };
    const publicKeyAlone = { "x-public-key": env.GATEWAY_PUBLIC_KEY };
    const mine = `/api/me/connections/${encodeURIComponent(files)}`;

    // GET /api/me/connections: the person's own; the secret key is pointed to the operators' route.
    expect((await callJson<Listing>("/api/me/connections", { headers: person })).body.connections.map((entry) => entry.entityId)).toEqual([ada]);
    const operatorOnMine = await call("/api/me/connections", { headers: secretKey });
    expect(operatorOnMine.status).toBe(403);
    expect((await readErrorEnvelope(operatorOnMine, "forbidden")).error.message).toContain("GET /api/connections");
    const aloneOnMine = await call("/api/me/connections", { headers: publicKeyAlone });
    expect(aloneOnMine.status).toBe(401);
    await readErrorEnvelope(aloneOnMine, "unauthorized");
    expect((await call("/api/me/connections")).status).toBe(401);

    // GET /api/connections: the secret key only.
    expect((await secret<Listing>(`/api/connections?entityId=${ada}`)).body.connections.map((entry) => entry.connectionKey)).toEqual([files]);
    expect((await call("/api/connections", { headers: person })).status).toBe(403);
    const aloneOnAll = await call("/api/connections", { headers: publicKeyAlone });
    expect(aloneOnAll.status).toBe(401);
    await readErrorEnvelope(aloneOnAll, "unauthorized");

    // DELETE /api/me/connections/:id: refused to the secret key and a public key alone (nothing revoked), then the person's.
    const operatorDelete = await call(mine, { method: "DELETE", headers: secretKey });
    expect(operatorDelete.status).toBe(403);
    expect((await readErrorEnvelope(operatorDelete, "forbidden")).error.message).toContain("DELETE /api/connections/{id}");
    expect((await call(mine, { method: "DELETE", headers: publicKeyAlone })).status).toBe(401);
    expect((await secret<Listing>(`/api/connections?entityId=${ada}`)).body.connections[0].revokedAt).toBeNull();
    expect(await callJson(mine, { method: "DELETE", headers: person })).toEqual({ status: 200, body: { revoked: true, entityId: ada, connectionKey: files } });
  });

  it("a person revokes their own connection: tokens erased, listed as revoked; not someone else's", async () => {
    const [ada, bob] = await Promise.all([createHuman("Ada"), createHuman("Bob")]);
    await connect(ada, files);
    await connect(bob, files);
    const path = `/api/me/connections/${encodeURIComponent(files)}`;

    const revoked = await callJson(path, { method: "DELETE", headers: await memberHeaders(ada) });
    expect(revoked).toEqual({ status: 200, body: { revoked: true, entityId: ada, connectionKey: files } });
    const row = await env.DB.prepare("SELECT sealed_tokens, revoked_at FROM account_connections WHERE entity_id = ? AND connection_key = ?").bind(ada, files).first();
    expect(row).toMatchObject({ sealed_tokens: null, revoked_at: expect.any(String) });
    const listed = await callJson<Listing>("/api/me/connections", { headers: await memberHeaders(ada) });
    expect(listed.body.connections[0].revokedAt).toEqual(expect.any(String));
    // Again: nothing left to revoke.
    expect((await call(path, { method: "DELETE", headers: await memberHeaders(ada) })).status).toBe(404);
    // Naming Bob with Ada's token: refused, on her route and on the operators'; Bob's stays.
    expect((await call(`${path}?entityId=${bob}`, { method: "DELETE", headers: await memberHeaders(ada) })).status).toBe(400);
    const operators = `/api/connections/${encodeURIComponent(files)}?entityId=${bob}`;
    expect((await call(operators, { method: "DELETE", headers: await memberHeaders(ada) })).status).toBe(403);
    const bobs = await env.DB.prepare("SELECT revoked_at FROM account_connections WHERE entity_id = ?").bind(bob).first();
    expect(bobs).toEqual({ revoked_at: null });
  });

  it("the secret key revokes anyone's, named with entityId (and must name one)", async () => {
    const bob = await createHuman("Bob");
    await connect(bob, mail);
    const path = `/api/connections/${encodeURIComponent(mail)}`;
    const unnamed = await call(path, { method: "DELETE", headers: { "x-secret-key": env.GATEWAY_SECRET_KEY } });
    expect(unnamed.status).toBe(400);
    expect((await readErrorEnvelope(unnamed, "validation_error")).error.details).toEqual([{ path: "entityId", message: expect.any(String) }]);
    const revoked = await secret(`${path}?entityId=${bob}`, { method: "DELETE" });
    expect(revoked).toEqual({ status: 200, body: { revoked: true, entityId: bob, connectionKey: mail } });
    expectNoToken(revoked.body);
  });
});
