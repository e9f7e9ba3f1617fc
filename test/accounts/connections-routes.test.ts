/**
 * `GET /api/accounts/connections` and `DELETE
 * /api/accounts/connections/{connectionKey}`: a person sees and revokes only
 * their own connections, the secret key everyone's; a public key alone is
 * refused; no answer ever carries a token (each is serialized and searched
 * for every token stored).
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

    const own = await callJson<Listing>("/api/accounts/connections", { headers: await memberHeaders(ada) });
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

    const naming = await call(`/api/accounts/connections?entityId=${bob}`, { headers: await memberHeaders(ada) });
    expect(naming.status).toBe(403);
    await readErrorEnvelope(naming, "forbidden");

    const bobs = await secret<Listing>(`/api/accounts/connections?entityId=${bob}`);
    expect(bobs.body.connections.map((entry) => entry.connectionKey)).toEqual([files]);
    const everyone = await secret<Listing>("/api/accounts/connections?limit=100");
    const entities = new Set(everyone.body.connections.map((entry) => entry.entityId));
    expect(entities.has(ada) && entities.has(bob)).toBe(true);
    expectNoToken(everyone.body);
  });

  it("pages with nextCursor", async () => {
    const ada = await createHuman("Pager");
    for (const name of ["a", "b", "c"]) await connect(ada, `https://${name}.example.com/mcp`);
    const first = await callJson<Listing>("/api/accounts/connections?limit=2", { headers: await memberHeaders(ada) });
    expect(first.body.connections).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await callJson<Listing>(`/api/accounts/connections?limit=2&cursor=${first.body.nextCursor}`, { headers: await memberHeaders(ada) });
    expect(second.body.connections.map((entry) => entry.connectionKey)).toEqual(["https://c.example.com/mcp"]);
    expect(second.body.nextCursor).toBeNull();
    const bad = await callJson("/api/accounts/connections?cursor=nonsense", { headers: await memberHeaders(ada) });
    expect(bad.status).toBe(400);
  });

  it("refuses the public key alone, and no credentials", async () => {
    const alone = await call("/api/accounts/connections", { headers: { "x-public-key": env.GATEWAY_PUBLIC_KEY } });
    expect(alone.status).toBe(401);
    await readErrorEnvelope(alone, "unauthorized");
    expect((await call("/api/accounts/connections")).status).toBe(401);
  });

  it("a person revokes their own connection: tokens erased, listed as revoked; not someone else's", async () => {
    const [ada, bob] = await Promise.all([createHuman("Ada"), createHuman("Bob")]);
    await connect(ada, files);
    await connect(bob, files);
    const path = `/api/accounts/connections/${encodeURIComponent(files)}`;

    const revoked = await callJson(path, { method: "DELETE", headers: await memberHeaders(ada) });
    expect(revoked).toEqual({ status: 200, body: { revoked: true, entityId: ada, connectionKey: files } });
    const row = await env.DB.prepare("SELECT sealed_tokens, revoked_at FROM account_connections WHERE entity_id = ? AND connection_key = ?").bind(ada, files).first();
    expect(row).toMatchObject({ sealed_tokens: null, revoked_at: expect.any(String) });
    const listed = await callJson<Listing>("/api/accounts/connections", { headers: await memberHeaders(ada) });
    expect(listed.body.connections[0].revokedAt).toEqual(expect.any(String));
    // Again: nothing left to revoke.
    expect((await call(path, { method: "DELETE", headers: await memberHeaders(ada) })).status).toBe(404);
    // Naming Bob with Ada's token: refused, Bob's stays.
    expect((await call(`${path}?entityId=${bob}`, { method: "DELETE", headers: await memberHeaders(ada) })).status).toBe(403);
    const bobs = await env.DB.prepare("SELECT revoked_at FROM account_connections WHERE entity_id = ?").bind(bob).first();
    expect(bobs).toEqual({ revoked_at: null });
  });

  it("the secret key revokes anyone's, named with entityId (and must name one)", async () => {
    const bob = await createHuman("Bob");
    await connect(bob, mail);
    const path = `/api/accounts/connections/${encodeURIComponent(mail)}`;
    const unnamed = await call(path, { method: "DELETE", headers: { "x-secret-key": env.GATEWAY_SECRET_KEY } });
    expect(unnamed.status).toBe(400);
    await readErrorEnvelope(unnamed, "invalid_query");
    const revoked = await secret(`${path}?entityId=${bob}`, { method: "DELETE" });
    expect(revoked).toEqual({ status: 200, body: { revoked: true, entityId: bob, connectionKey: mail } });
    expectNoToken(revoked.body);
  });
});
