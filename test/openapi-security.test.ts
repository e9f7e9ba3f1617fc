/**
 * The document and the checks cannot drift: for every operation of the served
 * `/openapi.json`, each kind of credential its `security` lists is let in
 * (whatever the route answers then, it is not a 401 or 403), and each kind it
 * does not list is refused (401 or 403, in the envelope). Requests are built
 * from the document alone (ids in paths, `{}` for bodies), so a new route is
 * walked without being named here. Callback URLs, whose credential is the
 * token in the path (which OpenAPI cannot list), say so with
 * `x-audience: callback-token`, and are walked with a forged token too.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { signCallbackToken } from "../src/security/callback-token";
import { createAgent } from "./support/agents";
import { call, createHuman, createSpace, secretHeaders, tokenFor } from "./support/api";
import { minimalAgentConfig } from "./support/minimal-agent-config";

type Requirement = Record<string, string[]>;
type Operation = { security?: Requirement[]; "x-audience"?: string; requestBody?: unknown };
type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; security?: Requirement[]; components: { securitySchemes: Record<string, unknown> } };

type Fixture = { member: string; agentEntityId: string; spaceId: string; callbackToken: string };

/** How a client presents each kind of credential, and the security schemes that describe it. */
type CredentialKind = { name: string; schemes: string[]; apply: (fixture: Fixture, request: { url: URL; headers: Headers }) => Promise<void> };

const memberJwtInHeaders: CredentialKind = {
  name: "a member JWT in headers",
  schemes: ["bearer", "publicKey"],
  apply: async (fixture, { headers }) => {
    headers.set("x-public-key", env.GATEWAY_PUBLIC_KEY);
    headers.set("authorization", `Bearer ${await tokenFor(fixture.member)}`);
  },
};

const credentialKinds: CredentialKind[] = [
  { name: "no credentials", schemes: [], apply: async () => undefined },
  {
    name: "the secret key",
    schemes: ["secretKey"],
    apply: async (_fixture, { headers }) => headers.set("x-secret-key", env.GATEWAY_SECRET_KEY),
  },
  memberJwtInHeaders,
  {
    name: "a member JWT in the query",
    schemes: ["publicKeyQuery", "tokenQuery"],
    apply: async (fixture, { url }) => {
      url.searchParams.set("publicKey", env.GATEWAY_PUBLIC_KEY);
      url.searchParams.set("token", await tokenFor(fixture.member));
    },
  },
];

/** Whether an operation's security (OpenAPI: the operation's own, else the document's) lets a kind of credential in. */
function lists(document: OpenApiDocument, operation: Operation, kind: CredentialKind): boolean {
  const security = operation.security ?? document.security ?? [];
  // No requirement, or an empty one: no credentials are needed, so none is turned away.
  if (security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0)) return true;
  return security.some((requirement) => Object.keys(requirement).sort().join(" ") === kind.schemes.join(" "));
}

/** A request for an operation from the document alone: the fixture's space (its member belongs to it), ids that exist nowhere else, `{}` as the body. */
function requestFor(fixture: Fixture, path: string, method: string, operation: Operation, token = fixture.callbackToken) {
  const ids: Record<string, string> = {
    spaceId: fixture.spaceId,
    token,
    webhookId: `whk_${"0".repeat(32)}`,
    deadLetterId: `dlt_${"0".repeat(32)}`,
  };
  const filled = path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(ids[name] ?? `${name}_missing`));
  const url = new URL(filled, "http://gateway.test");
  const headers = new Headers();
  const body = operation.requestBody === undefined ? undefined : "{}";
  if (body !== undefined) headers.set("content-type", "application/json");
  return { url, headers, init: { method: method.toUpperCase(), body } };
}

async function send(request: ReturnType<typeof requestFor>): Promise<{ status: number; code?: string }> {
  const response = await call(`${request.url.pathname}${request.url.search}`, {
    method: request.init.method,
    headers: Object.fromEntries(request.headers),
    rawBody: request.init.body,
  });
  const text = await response.text();
  const code = response.headers.get("content-type")?.includes("application/json") ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined;
  return { status: response.status, code };
}

let document: OpenApiDocument;
let fixture: Fixture;

beforeAll(async () => {
  document = (await (await call("/openapi.json")).json()) as OpenApiDocument;
  const member = await createHuman("Member");
  const agent = await createAgent(minimalAgentConfig);
  // A token the gateway signed, for a call that does not exist: let in, then 404.
  const callbackToken = await signCallbackToken(env.WEBHOOK_SECRET, "call_missing", Date.now() + 3_600_000);
  fixture = { member, agentEntityId: agent.entityId, spaceId: await createSpace([member, agent.entityId]), callbackToken };
});

const operations = () => Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

describe("every operation's security is what its route lets in", () => {
  it("every operation says who may call it: its own security and audience", () => {
    expect(operations().length).toBeGreaterThan(40);
    for (const { path, method, operation } of operations()) {
      expect(operation.security, `${method} ${path}`).toBeInstanceOf(Array);
      expect(operation["x-audience"], `${method} ${path}`).toMatch(/^(anyone|callback-token|secret|secret-or-member|member)$/);
      for (const requirement of operation.security ?? []) {
        for (const scheme of Object.keys(requirement)) expect(document.components.securitySchemes, `${method} ${path}`).toHaveProperty(scheme);
      }
    }
  });

  it.each(credentialKinds)("$name: let in where listed, refused (401/403) where not", async (kind) => {
    const mismatches: string[] = [];
    for (const { path, method, operation } of operations()) {
      const request = requestFor(fixture, path, method, operation);
      await kind.apply(fixture, request);
      const answer = await send(request);
      const listed = lists(document, operation, kind);
      const refused = answer.status === 401 || answer.status === 403;
      if (listed && refused) mismatches.push(`${method.toUpperCase()} ${path}: listed, but answered ${answer.status} ${answer.code}`);
      if (!listed && !refused) mismatches.push(`${method.toUpperCase()} ${path}: not listed, but answered ${answer.status} ${answer.code}`);
      if (!listed && refused) expect(answer.code, `${method} ${path}`).toBe(answer.status === 401 ? "unauthorized" : "forbidden");
    }
    expect(mismatches).toEqual([]);
  });

  it("an agent's JWT is let in nowhere, whatever the document lists (agents act only through their cycles)", async () => {
    const mismatches: string[] = [];
    for (const { path, method, operation } of operations()) {
      if (!lists(document, operation, memberJwtInHeaders) || (operation.security ?? []).length === 0) continue;
      const request = requestFor(fixture, path, method, operation);
      request.headers.set("x-public-key", env.GATEWAY_PUBLIC_KEY);
      request.headers.set("authorization", `Bearer ${await tokenFor(fixture.agentEntityId)}`);
      const answer = await send(request);
      if (answer.status !== 403) mismatches.push(`${method.toUpperCase()} ${path}: answered ${answer.status} ${answer.code}`);
    }
    expect(mismatches).toEqual([]);
  });

  it("a callback URL's token is its credential: one the gateway signed is let in, a forged one is 401, gateway keys add nothing", async () => {
    const callbackOperations = operations().filter(({ operation }) => operation["x-audience"] === "callback-token");
    expect(callbackOperations.map(({ method, path }) => `${method} ${path}`)).toEqual(["post /api/callbacks/{token}"]);
    for (const { path, method, operation } of callbackOperations) {
      expect(operation.security).toEqual([]);
      const signed = await send(requestFor(fixture, path, method, operation));
      expect(signed).toEqual({ status: 404, code: "not_found" });
      const forgedToken = await signCallbackToken("not-the-webhook-secret", "call_missing", Date.now() + 3_600_000);
      expect(await send(requestFor(fixture, path, method, operation, forgedToken))).toEqual({ status: 401, code: "unauthorized" });
      const withSecret = requestFor(fixture, path, method, operation, forgedToken);
      for (const [name, value] of Object.entries(secretHeaders)) withSecret.headers.set(name, value);
      expect(await send(withSecret)).toEqual({ status: 401, code: "unauthorized" });
    }
  });
});
