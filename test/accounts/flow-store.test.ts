/**
 * OAuth flows in D1 (`oauth_flows`): begun by `beginAccountFlow`, their
 * secrets never in plain in a row (the state and start token hashed, the
 * verifier and the authorization URL sealed), the start link used once, a
 * flow taken once even under twenty concurrent takes, and an expired flow
 * refused and deleted.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { beginAccountFlow } from "../../src/accounts/begin-account-flow";
import { FlowStore, flowLifetimeMs, secretHash } from "../../src/accounts/flow-store";
import { tokenCipherFor } from "../../src/accounts/token-cipher";
import { getDatabase } from "../../src/db/client";
import { createHuman } from "../support/api";
import { beginTestFlow, startFlow } from "./oauth-flow-fixture";

const store = async () => new FlowStore(getDatabase(env.DB), await tokenCipherFor(env));

async function flowRow(flowId: string): Promise<Record<string, unknown> | null> {
  return env.DB.prepare("SELECT * FROM oauth_flows WHERE id = ?").bind(flowId).first<Record<string, unknown>>();
}

describe("the flow store", () => {
  it("keeps no secret of a flow in plain: the state and start token hashed, the verifier and authorization URL sealed", async () => {
    const began = await beginTestFlow();
    const row = await flowRow(began.flowId);
    expect(row).not.toBeNull();
    const stored = JSON.stringify(row);
    const startToken = new URL(began.startUrl).searchParams.get("t") ?? "";
    const { authorizationUrl, browserSecret } = await startFlow(began);
    const state = new URL(authorizationUrl).searchParams.get("state") ?? "";
    const challenge = new URL(authorizationUrl).searchParams.get("code_challenge") ?? "";
    const after = JSON.stringify(await flowRow(began.flowId));
    for (const secret of [startToken, state, browserSecret, challenge]) {
      expect(secret.length).toBeGreaterThan(20);
      expect(stored).not.toContain(secret);
      expect(after).not.toContain(secret);
    }
    expect(row).toMatchObject({ state_hash: await secretHash(state), start_token_hash: await secretHash(startToken), browser_hash: null, key_id: "test1" });
    // The verifier is only in the sealed blob: opened with the key, it is the one whose S256 challenge the URL carries.
    const found = await (await store()).find(state);
    if (!found.ok) throw new Error(found.message);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(found.flow.flow.codeVerifier)));
    expect(
      btoa(String.fromCharCode(...digest))
        .replace(/=+$/, "")
        .replaceAll("+", "-")
        .replaceAll("/", "_"),
    ).toBe(challenge);
    expect(after).not.toContain(found.flow.flow.codeVerifier);
    expect(JSON.parse(after)).toMatchObject({ browser_hash: await secretHash(browserSecret), start_token_hash: null });
  });

  it("the start token works once", async () => {
    const flows = await store();
    const began = await beginTestFlow();
    const token = new URL(began.startUrl).searchParams.get("t") ?? "";
    expect(await flows.start(began.flowId, "not-the-token")).toMatchObject({ ok: false, reason: "used" });
    const first = await flows.start(began.flowId, token);
    expect(first.ok).toBe(true);
    expect(await flows.start(began.flowId, token)).toMatchObject({ ok: false, reason: "used" });
    expect(await flows.start("flw_missing", token)).toMatchObject({ ok: false, reason: "not_found" });
  });

  it("twenty concurrent takes of one flow: exactly one wins, the row is gone", async () => {
    const flows = await store();
    const began = await beginTestFlow();
    const { browserSecret } = await startFlow(began);
    const takes = await Promise.all(Array.from({ length: 20 }, () => flows.take(began.flowId, browserSecret)));
    expect(takes.filter(Boolean)).toHaveLength(1);
    expect(await flowRow(began.flowId)).toBeNull();
  });

  it("is taken only with the browser secret its start link gave", async () => {
    const flows = await store();
    const began = await beginTestFlow();
    expect(await flows.take(began.flowId, "anything"), "not started: no browser bound").toBe(false);
    await startFlow(began);
    expect(await flows.take(began.flowId, "another-browsers-secret")).toBe(false);
    expect(await flowRow(began.flowId)).not.toBeNull();
  });

  it("refuses an expired flow and deletes it; creating a flow sweeps the expired ones", async () => {
    const flows = await store();
    const began = await beginTestFlow({ now: Date.now() - flowLifetimeMs - 1_000 });
    const token = new URL(began.startUrl).searchParams.get("t") ?? "";
    expect(await flows.start(began.flowId, token)).toMatchObject({ ok: false, reason: "expired" });
    expect(await flowRow(began.flowId)).toBeNull();

    const stale = await beginTestFlow({ now: Date.now() - 10_000, lifetimeMs: 1_000 });
    expect(await flowRow(stale.flowId)).not.toBeNull();
    await beginTestFlow();
    expect(await flowRow(stale.flowId)).toBeNull();
  });

  it("an expired flow found by its state is refused and deleted", async () => {
    const flows = await store();
    const began = await beginTestFlow();
    const { authorizationUrl, browserSecret } = await startFlow(began);
    const state = new URL(authorizationUrl).searchParams.get("state") ?? "";
    const later = Date.now() + flowLifetimeMs + 1_000;
    expect(await flows.take(began.flowId, browserSecret, later)).toBe(false);
    expect(await flows.find(state, later)).toMatchObject({ ok: false, reason: "expired" });
    expect(await flowRow(began.flowId)).toBeNull();
  });

  it("a flow for an entity that does not exist is refused, and nothing is stored", async () => {
    const before = await env.DB.prepare("SELECT count(*) AS n FROM oauth_flows").first<{ n: number }>();
    const result = await beginTestFlow({ entityId: "ent_missing" }).catch((error: unknown) => error);
    expect(String(result)).toContain("does not exist");
    const after = await env.DB.prepare("SELECT count(*) AS n FROM oauth_flows").first<{ n: number }>();
    expect(after?.n).toBeLessThanOrEqual(before?.n ?? 0);
  });

  it("deleting the entity deletes its flows", async () => {
    const entityId = await createHuman("Gone soon");
    const began = await beginTestFlow({ entityId });
    expect(await flowRow(began.flowId)).not.toBeNull();
    await env.DB.prepare("DELETE FROM entities WHERE id = ?").bind(entityId).run();
    expect(await flowRow(began.flowId)).toBeNull();
  });

  it("beginAccountFlow gives a start link on the gateway's origin", async () => {
    const entityId = await createHuman("Linda");
    const began = await beginAccountFlow(env, {
      entityId,
      connectionKey: "https://files.example.com/mcp",
      gatewayOrigin: "https://gateway.example.com/anything",
      discovery: {
        server: {
          issuer: "https://auth.test",
          authorizationEndpoint: "https://auth.test/authorize",
          tokenEndpoint: "https://auth.test/token",
          clientIdMetadataDocumentSupported: true,
          issParameterSupported: true,
        },
        scopes: ["files:read"],
      },
      registration: { method: "metadata_document", clientId: "https://gateway.example.com/oauth/client-metadata.json" },
    });
    if (!began.ok) throw new Error(began.error.message);
    const url = new URL(began.value.startUrl);
    expect(url.origin + url.pathname).toBe(`https://gateway.example.com/oauth/start/${began.value.flowId}`);
    expect(url.searchParams.get("t")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(began.value.expiresAt) - Date.now()).toBeGreaterThan(flowLifetimeMs - 60_000);
  });
});
