/**
 * Connected accounts in D1, through the store: saved, read, listed, revoked,
 * connected again and deleted; what a listing shows (never a token, never
 * the sealed blob); rows that hold no token in plain in any column; a blob
 * moved to another row that does not open; and an entity's connections
 * deleted with it, through the route that deletes entities.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConnectionStore, type ConnectionSummary } from "../../src/accounts/connection-store";
import { tokenCipherFor, type TokenSet } from "../../src/accounts/token-cipher";
import { getDatabase } from "../../src/db/client";
import { createHuman, secret } from "../support/api";
import { createAgent } from "../support/agents";
import { minimalAgentConfig } from "../support/minimal-agent-config";

const store = async () => new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));

const tokens = (overrides: Partial<TokenSet> = {}): TokenSet => ({
  accessToken: `at-${crypto.randomUUID()}`,
  refreshToken: `rt-${crypto.randomUUID()}`,
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  scopes: ["issues:read", "issues:write"],
  tokenType: "Bearer",
  ...overrides,
});

const service = (name: string) => `https://${name}.example.com/mcp`;

/** Every row of the table, every column, as stored. */
async function allRows(): Promise<Record<string, unknown>[]> {
  return (await env.DB.prepare("SELECT * FROM account_connections").all<Record<string, unknown>>()).results;
}

describe("the connection store", () => {
  it("saves, reads, lists, revokes, connects again and deletes a connection", async () => {
    const connections = await store();
    const entityId = await createHuman("Ada");
    const identity = { entityId, connectionKey: service("tracker") };
    const first = tokens();

    const saved = await connections.save(identity, first, { issuer: "https://auth.example.com", clientId: "https://gateway.example.com/oauth/client.json" });
    expect(saved).toMatchObject({ ok: true, connection: { ...identity, version: 1, tokens: first, revokedAt: null } });
    const read = await connections.read(identity);
    if (!read.ok) throw new Error(read.message);
    expect(read.connection).toMatchObject({
      ...identity,
      scopes: ["issues:read", "issues:write"],
      issuer: "https://auth.example.com",
      clientId: "https://gateway.example.com/oauth/client.json",
      expiresAt: first.expiresAt,
      revokedAt: null,
      version: 1,
      tokens: first,
    });
    const createdAt = read.connection.createdAt;
    expect(await connections.list({ entityId })).toEqual([
      {
        ...identity,
        scopes: ["issues:read", "issues:write"],
        issuer: "https://auth.example.com",
        createdAt,
        updatedAt: read.connection.updatedAt,
        expiresAt: first.expiresAt,
        revokedAt: null,
      },
    ]);

    // Revoked: the tokens are erased, the row stays and is listed as revoked; revoking again does nothing.
    expect(await connections.revoke(identity)).toBe(true);
    expect(await connections.read(identity)).toEqual({ ok: false, reason: "revoked", message: "This account's connection was revoked" });
    const [revoked] = await connections.list({ entityId });
    expect(revoked?.revokedAt).toEqual(expect.any(String));
    expect(revoked?.expiresAt).toBeNull();
    const [revokedRow] = await env.DB.prepare("SELECT sealed_tokens, key_id, version FROM account_connections WHERE entity_id = ?")
      .bind(entityId)
      .all()
      .then((result) => result.results);
    expect(revokedRow).toEqual({ sealed_tokens: null, key_id: null, version: 2 });
    expect(await connections.revoke(identity)).toBe(false);

    // Connected again: new tokens, no longer revoked, the first connection's creation time kept.
    const again = tokens({ scopes: ["issues:read"] });
    delete again.expiresAt;
    expect(await connections.save(identity, again, { issuer: "https://auth.example.com" })).toMatchObject({ ok: true, connection: { version: 3, revokedAt: null } });
    expect(await connections.read(identity)).toMatchObject({ ok: true, connection: { tokens: again, scopes: ["issues:read"], expiresAt: null, clientId: null, createdAt } });

    expect(await connections.delete(identity)).toBe(true);
    expect(await connections.read(identity)).toEqual({ ok: false, reason: "not_connected", message: "This account is not connected" });
    expect(await connections.list({ entityId })).toEqual([]);
    expect(await connections.delete(identity)).toBe(false);
  });

  it("refuses a connection for an entity that does not exist, and writes nothing", async () => {
    const connections = await store();
    const entityId = `ent_missing_${crypto.randomUUID()}`;
    expect(await connections.save({ entityId, connectionKey: service("tracker") }, tokens())).toEqual({ ok: false, reason: "unknown_entity" });
    expect(await env.DB.prepare("SELECT count(*) AS count FROM account_connections WHERE entity_id = ?").bind(entityId).first("count")).toBe(0);
  });

  it("lists a person's connections, or everyone's a page at a time, and never a token or the sealed blob", async () => {
    const connections = await store();
    const ada = await createHuman("Ada");
    const bob = await createHuman("Bob");
    const given: TokenSet[] = [];
    for (const [entityId, name] of [
      [ada, "docs"],
      [ada, "tracker"],
      [bob, "calendar"],
    ] as const) {
      const set = tokens();
      given.push(set);
      const saved = await connections.save({ entityId, connectionKey: service(name) }, set, { issuer: "https://auth.example.com", clientId: "switchboard" });
      expect(saved.ok).toBe(true);
    }
    await connections.revoke({ entityId: ada, connectionKey: service("docs") });

    const adas = await connections.list({ entityId: ada });
    expect(adas.map((connection) => [connection.connectionKey, connection.revokedAt === null])).toEqual([
      [service("docs"), false],
      [service("tracker"), true],
    ]);
    const everyone: ConnectionSummary[] = [];
    let after: ConnectionSummary | undefined;
    for (;;) {
      const page = await connections.list({ limit: 1, ...(after ? { after } : {}) });
      if (page.length === 0) break;
      everyone.push(...page);
      after = page.at(-1);
    }
    const mine = everyone.filter((connection) => connection.entityId === ada || connection.entityId === bob);
    expect(mine.map((connection) => `${connection.entityId} ${connection.connectionKey}`)).toEqual(
      [`${ada} ${service("docs")}`, `${ada} ${service("tracker")}`, `${bob} ${service("calendar")}`].sort(),
    );

    const shown = JSON.stringify([adas, everyone]);
    const blobs = (await allRows()).map((row) => row.sealed_tokens).filter((blob): blob is string => typeof blob === "string");
    expect(blobs.length).toBeGreaterThanOrEqual(2);
    for (const secretText of [...given.flatMap((set) => [set.accessToken, set.refreshToken ?? ""]), ...blobs]) expect(shown).not.toContain(secretText);
    for (const connection of everyone) {
      expect(Object.keys(connection).sort()).toEqual(["connectionKey", "createdAt", "entityId", "expiresAt", "issuer", "revokedAt", "scopes", "updatedAt"]);
    }
  });

  it("keeps no token in plain in any column of any row, and names the key each row is sealed with", async () => {
    const connections = await store();
    const entityId = await createHuman("Cy");
    const given = [tokens(), tokens({ refreshToken: undefined })];
    for (const [index, set] of given.entries()) await connections.save({ entityId, connectionKey: service(`svc${index}`) }, set);
    const rows = await allRows();
    const text = JSON.stringify(rows);
    for (const set of given) {
      expect(text).not.toContain(set.accessToken);
      if (set.refreshToken) expect(text).not.toContain(set.refreshToken);
    }
    const own = rows.filter((row) => row.entity_id === entityId);
    expect(own.map((row) => row.key_id)).toEqual(["test1", "test1"]);
    for (const row of own) expect(String(row.sealed_tokens)).toMatch(/^v1\.test1\./);
  });

  it("a sealed blob copied into another connection's row does not open there", async () => {
    const connections = await store();
    const ada = await createHuman("Ada");
    const bob = await createHuman("Bob");
    const adaTokens = tokens();
    await connections.save({ entityId: ada, connectionKey: service("tracker") }, adaTokens);
    await connections.save({ entityId: bob, connectionKey: service("tracker") }, tokens());
    await env.DB.prepare(
      "UPDATE account_connections SET sealed_tokens = (SELECT sealed_tokens FROM account_connections WHERE entity_id = ?1 AND connection_key = ?3) WHERE entity_id = ?2 AND connection_key = ?3",
    )
      .bind(ada, bob, service("tracker"))
      .run();
    const read = await connections.read({ entityId: bob, connectionKey: service("tracker") });
    expect(read).toMatchObject({ ok: false, reason: "unreadable", problem: "not_authentic" });
    expect(JSON.stringify(read)).not.toContain(adaTokens.accessToken);
    // Ada's own row still opens.
    expect(await connections.read({ entityId: ada, connectionKey: service("tracker") })).toMatchObject({ ok: true, connection: { tokens: adaTokens } });
  });

  it("deleting an entity (an agent, through its route) deletes its connections, and nobody else's", async () => {
    const connections = await store();
    const agent = await createAgent(minimalAgentConfig);
    const person = await createHuman("Dee");
    await connections.save({ entityId: agent.entityId, connectionKey: service("tracker") }, tokens());
    await connections.save({ entityId: agent.entityId, connectionKey: "github" }, tokens());
    await connections.save({ entityId: person, connectionKey: service("tracker") }, tokens());
    const count = (entityId: string) => env.DB.prepare("SELECT count(*) AS count FROM account_connections WHERE entity_id = ?").bind(entityId).first<number>("count");
    expect(await count(agent.entityId)).toBe(2);

    expect((await secret(`/api/agents/${agent.id}`, { method: "DELETE" })).status).toBe(200);
    expect(await count(agent.entityId)).toBe(0);
    expect(await count(person)).toBe(1);
  });
});
