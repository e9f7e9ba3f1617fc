/**
 * For tests of tools that act as a person: what the fake remote recorded,
 * everything the gateway stores (to look for a token in it), a browser with
 * cookies that goes through a flow's start link and the authorization
 * server's callback, and the status of a pending call.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { agentObject } from "./agents";
import { callJson, memberHeaders, secret } from "./api";

export type Recorded = { url: string; headers: Record<string, string>; body: string };

export async function recorded(key: string): Promise<Recorded[]> {
  return (await (await fetch(`http://recorded.test/${key}`)).json()) as Recorded[];
}

/** Every row of every D1 table and of the agent object's storage, as text. */
export async function everythingStored(agentId: string): Promise<string> {
  const tables = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'").all<{
    name: string;
  }>();
  const rows: unknown[] = [];
  for (const { name } of tables.results) rows.push(name, (await env.DB.prepare(`SELECT * FROM "${name}"`).all()).results);
  const objectRows = await runInDurableObject(agentObject(agentId), (_instance, state) => {
    const names = state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
      .toArray()
      .map((row) => row.name);
    return names.map((name) => [name, state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray()]);
  });
  return JSON.stringify([rows, objectRows]);
}

/** The fake authorization server test/fake-remote.ts answers as (its token endpoint takes the code `good-code`). */
export const fakeIssuer = "https://auth.test";

/** An `auth` block on the fake authorization server: a person's, with a configured client; `extra` adds the scope, service and the rest. */
export const fakeOAuth = <Extra extends Record<string, unknown>>(extra: Extra = {} as Extra) => ({
  type: "oauth" as const,
  owner: "person" as const,
  issuer: fakeIssuer,
  authorizationUrl: `${fakeIssuer}/authorize`,
  tokenUrl: `${fakeIssuer}/token`,
  client: { clientId: "switchboard-test" },
  ...extra,
});

/** A browser: its cookies, kept per name, sent back on every request. */
export class Browser {
  readonly cookies = new Map<string, string>();

  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await exports.default.fetch(new Request(url, { headers: cookie === "" ? headers : { ...headers, cookie }, redirect: "manual" }));
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, value] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
      if (value === "" || /max-age=0\b/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}

/** The person gets their link, opens it, and the authorization server (the fake `issuer`) sends them back with a code. */
export async function personConnects(person: string, flowId: string, issuer: string): Promise<Response> {
  const link = await callJson<{ startUrl: string }>(`/api/me/connections/flows/${flowId}`, { headers: await memberHeaders(person) });
  expect(link.status).toBe(200);
  const browser = new Browser();
  const started = await browser.get(link.body.startUrl);
  expect(started.status).toBe(302);
  const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
  return browser.get(`http://gateway.test/oauth/callback?${new URLSearchParams({ code: "good-code", state, iss: issuer })}`, { accept: "application/json" });
}

/** What a "connect your account" card carries. */
export type AccountCard = { entityId: string; service: string; scopes: string[]; flowId: string; expiresAt: string };

export async function pendingStatus(agentId: string, toolCallId: string): Promise<string | undefined> {
  const { body } = await secret<{ pendingToolCalls: { toolCallId: string; status: string }[] }>(`/api/agents/${agentId}/pending-tool-calls`);
  return body.pendingToolCalls.find((call) => call.toolCallId === toolCallId)?.status;
}
