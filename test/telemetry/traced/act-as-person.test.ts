/**
 * Calls that act as a person keep their trace. An MCP server's tool with
 * `auth` sends the call span's `traceparent` in `params._meta` whether the
 * person was connected or the call waited for them to connect: the call made
 * once they have carries the span of the call that waited, also when the
 * agent object restarted between the card and the callback (the trace is
 * kept with the pending call). A gateway tool's or an OpenAPI operation's
 * request made once they connect carries it as its header.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConnectionStore } from "../../../src/accounts/connection-store";
import { tokenCipherFor } from "../../../src/accounts/token-cipher";
import { getDatabase } from "../../../src/db/client";
import { type AccountCard, fakeIssuer, fakeOAuth, personConnects, recorded } from "../../support/accounts";
import { postMessage, secret } from "../../support/api";
import { agentObject, settledRuns } from "../../support/agents";
import { fakeJson, providerWorld } from "../../support/provider-world";
import { openSse } from "../../support/stream-client";
import { enter, skip, toolWorld } from "../../support/tool-world";
import { callSpan, rootSpan, spanTraceparent } from "./exported-spans";

const issuer = fakeIssuer;
const oauth = fakeOAuth();
const notes = (id: string) => ({
  name: "notes",
  url: `http://mcp.test/person/${id}`,
  auth: { ...oauth, scope: "notes:read", service: "Notes", tools: [{ name: "whoami", description: "Says whose token came" }] },
});

/** The `_meta.traceparent` of each `whoami` call the person's MCP server got (test/fake-mcp.ts). */
const mcpCalls = (id: string) => fakeJson<{ traceparent: string | null }[]>(`http://mcp.test/person-calls/${id}`);

const WaitingRow = z.object({ toolCallId: z.string(), runId: z.string(), traceparent: z.string().nullable() });

/** A person's message starts a run that calls `notes__whoami` once. */
async function mcpWorld(id: string) {
  const world = await providerWorld({ mcp: { servers: [notes(id)] } }, (spaceId) => [
    { toolCalls: [enter(spaceId), { name: "notes__whoami", args: {} }, skip] },
    { toolCalls: [skip] },
  ]);
  return { ...world, ask: () => postMessage(world.spaceId, world.person, "who am I at Notes?") };
}

/** The run's call of `toolName` waits on a card for the person to connect. */
async function waitsForPerson(world: Awaited<ReturnType<typeof mcpWorld>>, toolName: string) {
  await world.ask();
  const pending = await world.agentStream.waitFor((event) => event.type === "tool.pending" && event.data.toolName === toolName);
  return pending.data as { toolCallId: string; runId: string; account: AccountCard };
}

describe("an MCP server's tool that acts as a person, traced", () => {
  it("the person connected: the call carries its span in _meta", async () => {
    const id = crypto.randomUUID();
    const world = await mcpWorld(id);
    const store = new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));
    await store.save(
      { entityId: world.person, connectionKey: notes(id).url },
      { accessToken: `at-${crypto.randomUUID()}`, scopes: ["notes:read"], tokenType: "Bearer", expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      { issuer, clientId: "switchboard-test" },
    );
    await world.ask();
    const [run] = await settledRuns(world.agent.id);
    const call = run.toolCalls.find((entry) => entry.toolName === "notes__whoami");
    expect(call?.status).toBe("completed");
    expect(await mcpCalls(id)).toEqual([{ traceparent: spanTraceparent(await callSpan("notes__whoami", call?.toolCallId ?? "")) }]);
  });

  it("the call that waited for the person is made, once they connect, with the span of that call", async () => {
    const id = crypto.randomUUID();
    const world = await mcpWorld(id);
    const { toolCallId, account } = await waitsForPerson(world, "notes__whoami");
    expect((await personConnects(world.person, account.flowId, issuer)).status).toBe(200);
    const [run] = await settledRuns(world.agent.id, 15_000);
    expect(run.toolCalls.find((entry) => entry.toolName === "notes__whoami")?.status).toBe("completed");
    expect(await mcpCalls(id)).toEqual([{ traceparent: spanTraceparent(await callSpan("notes__whoami", toolCallId)) }]);
  });

  it("the agent object restarted between the card and the callback: the call made after keeps the trace, kept with the pending call", async () => {
    const id = crypto.randomUUID();
    const world = await mcpWorld(id);
    const { toolCallId, runId, account } = await waitsForPerson(world, "notes__whoami");
    const { body } = await secret<{ pendingToolCalls: unknown[] }>(`/api/agents/${world.agent.id}/pending-tool-calls?status=waiting`);
    const row = z
      .array(WaitingRow)
      .parse(body.pendingToolCalls)
      .find((entry) => entry.toolCallId === toolCallId);
    expect(row?.traceparent ?? "none").toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    await abortAllDurableObjects();
    const space = await openSse(`/api/spaces/${world.spaceId}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
    await runDurableObjectAlarm(agentObject(world.agent.id));
    await space.collector.waitFor((event) => event.type === "tool.started" && event.data.toolCallId === toolCallId, 10_000);
    expect((await personConnects(world.person, account.flowId, issuer)).status).toBe(200);
    const [run] = await settledRuns(world.agent.id, 15_000);
    expect(run.toolCalls.find((entry) => entry.toolName === "notes__whoami")?.status).toBe("completed");

    // The span of the call as it first waited (the one a restart cut short is never exported), in the run's trace.
    expect(await mcpCalls(id)).toEqual([{ traceparent: row?.traceparent }]);
    expect(row?.traceparent?.split("-")[1]).toBe((await rootSpan(runId)).traceId);
    space.close();
  });
});

describe("a gateway tool and an OpenAPI operation that act as a person, traced", () => {
  it("the request made once the person connects carries the span of the call that waited", async () => {
    const id = crypto.randomUUID();
    const tool = {
      name: "myFiles",
      description: "Lists my files",
      executionType: "gateway",
      inputSchema: { type: "object", properties: {} },
      timeout: 30_000,
      execution: { url: `http://api.test/as-person/${id}`, method: "GET", auth: { ...oauth, scope: "files:read", service: "Files" } },
    };
    const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "myFiles", args: {} }, skip] }, { toolCalls: [skip] }]);
    await postMessage(world.spaceId, world.person, "list my files");
    const pending = await world.agentStream.waitFor((event) => event.type === "tool.pending" && event.data.toolName === "myFiles");
    const { toolCallId, account } = pending.data as { toolCallId: string; account: AccountCard };
    expect((await personConnects(world.person, account.flowId, issuer)).status).toBe(200);
    await settledRuns(world.agent.id, 15_000);
    const sent = await recorded(`as-person-${id}`);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers.traceparent).toBe(spanTraceparent(await callSpan("myFiles", toolCallId)));
  });

  it("the OpenAPI request made once the person connects carries the span of the call that waited", async () => {
    const id = crypto.randomUUID();
    const files = {
      type: "openapi",
      name: "files",
      auth: { ...oauth, scope: "files:read", service: "Files" },
      spec: {
        document: {
          openapi: "3.0.3",
          info: { title: "Files", version: "1" },
          servers: [{ url: "http://api.test" }],
          paths: { [`/as-person/${id}`]: { get: { operationId: "listFiles", summary: "Lists my files", responses: { "200": { description: "The files" } } } } },
        },
      },
    };
    const world = await providerWorld({ providers: [files] }, (spaceId) => [{ toolCalls: [enter(spaceId), { name: "files__listFiles", args: {} }, skip] }, { toolCalls: [skip] }]);
    await postMessage(world.spaceId, world.person, "list my files");
    const pending = await world.agentStream.waitFor((event) => event.type === "tool.pending" && event.data.toolName === "files__listFiles");
    const { toolCallId, account } = pending.data as { toolCallId: string; account: AccountCard };
    expect((await personConnects(world.person, account.flowId, issuer)).status).toBe(200);
    await settledRuns(world.agent.id, 15_000);
    const sent = await recorded(`as-person-${id}`);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers.traceparent).toBe(spanTraceparent(await callSpan("files__listFiles", toolCallId)));
  });
});
