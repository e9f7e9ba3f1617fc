/**
 * An OpenAPI source whose operations act as a person (`auth` on the
 * provider): the person's token goes to the base URL's origin; not
 * connected, the call waits on a card and is sent once when they connect.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConnectionStore } from "../../src/accounts/connection-store";
import { tokenCipherFor } from "../../src/accounts/token-cipher";
import { getDatabase } from "../../src/db/client";
import { OpenApiProviderConfig } from "../../src/tools/config/provider-config";
import { type AccountCard, fakeIssuer, fakeOAuth, pendingStatus, personConnects, recorded } from "../support/accounts";
import { postMessage } from "../support/api";
import { settledRuns } from "../support/agents";
import { providerWorld } from "../support/provider-world";
import { enter, skip } from "../support/tool-world";

const issuer = fakeIssuer;
const auth = fakeOAuth({ scope: "files:read", service: "Files" });

function provider(id: string, overrides: Record<string, unknown> = {}) {
  return {
    type: "openapi",
    name: "files",
    spec: {
      document: {
        openapi: "3.0.3",
        info: { title: "Files", version: "1" },
        servers: [{ url: "http://api.test" }],
        paths: { [`/as-person/${id}`]: { get: { operationId: "listFiles", summary: "Lists my files", responses: { "200": { description: "The files" } } } } },
      },
    },
    auth,
    ...overrides,
  };
}

async function personWorld(id: string) {
  const world = await providerWorld({ providers: [provider(id)] }, (spaceId) => [
    { toolCalls: [enter(spaceId), { name: "files__listFiles", args: {} }, skip] },
    { toolCalls: [skip] },
  ]);
  return { ...world, ask: () => postMessage(world.spaceId, world.person, "list my files") };
}

describe("an OpenAPI source that acts as a person", () => {
  it("its config refuses an Authorization header beside auth, naming the path", () => {
    const parsed = OpenApiProviderConfig.safeParse(provider("x", { headers: { Authorization: "Bearer ${env.TOOL_API_TOKEN}" } }));
    expect(parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join("."))).toEqual(["headers.Authorization"]);
  });

  it("connected: the person's token goes to the base URL's origin", async () => {
    const id = crypto.randomUUID();
    const world = await personWorld(id);
    const token = `at-openapi-${crypto.randomUUID()}`;
    const store = new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));
    await store.save({ entityId: world.person, connectionKey: "http://api.test" }, { accessToken: token, scopes: ["files:read"], tokenType: "Bearer" }, { issuer });
    await world.ask();
    const runs = await settledRuns(world.agent.id);
    expect(runs[0].toolCalls.find((call) => call.toolName === "files__listFiles")).toMatchObject({ status: "completed", result: { ok: true, id } });
    expect((await recorded(`as-person-${id}`)).map((request) => request.headers.authorization)).toEqual([`Bearer ${token}`]);
    world.close();
  });

  it("not connected: the call waits on a card for the person, and is sent once when they connect", async () => {
    const id = crypto.randomUUID();
    const world = await personWorld(id);
    await world.ask();
    const pending = await world.agentStream.waitFor((event) => event.type === "tool.pending" && event.data.toolName === "files__listFiles");
    const { toolCallId, account, executionType } = pending.data as { toolCallId: string; account: AccountCard; executionType: string };
    expect(executionType).toBe("openapi");
    expect(account).toMatchObject({ entityId: world.person, service: "Files", scopes: ["files:read"] });
    expect(await recorded(`as-person-${id}`)).toEqual([]);
    expect((await personConnects(world.person, account.flowId, issuer)).status).toBe(200);
    const runs = await settledRuns(world.agent.id, 15_000);
    expect(runs[0].toolCalls.find((call) => call.toolName === "files__listFiles")).toMatchObject({ status: "completed", result: { ok: true, id } });
    expect(await recorded(`as-person-${id}`)).toHaveLength(1);
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("resolved");
    world.close();
  });
});
