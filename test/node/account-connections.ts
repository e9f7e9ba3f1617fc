/**
 * A connected account put straight into the shared dev server's D1, as the
 * OAuth callback would have stored it: no route creates one, and a real flow
 * needs an authorization server and a run that asks for the account. The
 * tokens are sealed with the gateway's own `ACCOUNTS_KEYS` by the gateway's
 * own cipher, so the row is one the gateway can open.
 */
import { randomBytes } from "node:crypto";
import { tokenCipherFor } from "../../src/accounts/token-cipher";
import { gateway } from "./gateway";
import { executeLocalD1 } from "./local-d1";

const sqlText = (value: string | null) => (value === null ? "NULL" : `'${value.replaceAll("'", "''")}'`);

export type SeededConnection = { entityId: string; connectionKey: string; scopes: string[]; issuer: string; expiresAt: string; accessToken: string };

/** Stores a live connection of `entityId` to `connectionKey` (the entity must exist) and gives back what was stored, the access token among it. */
export async function seedConnection(entityId: string, connectionKey: string, scopes = ["read", "write"]): Promise<SeededConnection> {
  const issuer = "http://127.0.0.1:9/issuer";
  const expiresAt = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, ".000Z");
  const accessToken = `at_${randomBytes(16).toString("hex")}`;
  const cipher = await tokenCipherFor({ ACCOUNTS_KEYS: gateway.vars.ACCOUNTS_KEYS });
  const sealed = await cipher.seal({ accessToken, refreshToken: `rt_${randomBytes(16).toString("hex")}`, expiresAt, scopes, tokenType: "Bearer" }, { entityId, connectionKey });
  const now = new Date().toISOString();
  const values = [entityId, connectionKey, sealed.blob, sealed.keyId, scopes.join(" "), expiresAt, issuer, "seeded-client", now].map(sqlText);
  const sql = `INSERT INTO account_connections (entity_id, connection_key, sealed_tokens, key_id, scopes, expires_at, issuer, client_id, updated_at) VALUES (${values.join(", ")})`;
  await executeLocalD1(sql, "store the connection");
  return { entityId, connectionKey, scopes, issuer, expiresAt, accessToken };
}
