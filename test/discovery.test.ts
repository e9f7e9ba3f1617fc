/**
 * Discovery: GET /api/spaces, /api/agents, /api/entities (keyset
 * pages), GET /api/me, GET /api/spaces/:id/tools, and an agent accepted by
 * either of its ids where an entity is expected.
 */
import { describe, expect, it } from "vitest";
import { createAgent, scriptedConfig } from "./support/agents";
import { call, callJson, createHuman, createSpace, memberHeaders, postMessage, secret } from "./support/api";
import { expectErrorEnvelope, readErrorEnvelope } from "./support/error-envelope";

type Page<K extends string, T> = { [key in K]: T[] } & { nextCursor: string | null };
type SpaceSummary = { id: string; name: string; memberCount: number; createdAt: string };

/** Follows `nextCursor` to the end, with a bound on the number of pages. */
async function readAll<K extends string, T>(path: string, key: K, headers: Record<string, string> = {}, limit = 2): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 500; page += 1) {
    const separator = path.includes("?") ? "&" : "?";
    const url: string = `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const { status, body }: { status: number; body: Page<K, T> } = await callJson<Page<K, T>>(url, { headers });
    expect(status, url).toBe(200);
    expect(body[key].length).toBeLessThanOrEqual(limit);
    items.push(...body[key]);
    cursor = body.nextCursor;
    if (cursor === null) return items;
  }
  throw new Error("more than 500 pages");
}

const secretHeaders = { "x-secret-key": "test-secret-key" };

describe("GET /api/spaces", () => {
  it("with the secret key pages through every space, newest first, each exactly once", async () => {
    const ada = await createHuman("Ada");
    const created = [await createSpace([ada], "first"), await createSpace([], "second"), await createSpace([ada], "third")];
    const all = await readAll<"spaces", SpaceSummary>("/api/spaces", "spaces", secretHeaders);
    const ids = all.map((space) => space.id);
    expect(new Set(ids).size).toBe(ids.length);
    const mine = all.filter((space) => created.includes(space.id));
    expect(mine.map((space) => space.name)).toEqual(["third", "second", "first"]);
    expect(mine.map((space) => space.memberCount)).toEqual([1, 0, 1]);
  });

  it("with a member JWT lists only the caller's spaces", async () => {
    const ada = await createHuman("Ada");
    const bob = await createHuman("Bob");
    const shared = await createSpace([ada, bob], "shared");
    const adaOnly = await createSpace([ada], "ada only");
    await createSpace([bob], "bob only");
    const spaces = await readAll<"spaces", SpaceSummary>("/api/spaces", "spaces", await memberHeaders(ada), 1);
    expect(spaces.map((space) => space.id).sort()).toEqual([shared, adaOnly].sort());
  });

  it("refuses a cursor it did not give out, and a limit out of range", async () => {
    const bad = await call("/api/spaces?cursor=not-a-cursor", { headers: secretHeaders });
    expect(bad.status).toBe(400);
    expect((await readErrorEnvelope(bad, "invalid_query")).error.message).toContain("cursor");
    const tooMany = await call("/api/spaces?limit=1000", { headers: secretHeaders });
    expect(tooMany.status).toBe(400);
  });

  it("needs credentials", async () => {
    const response = await call("/api/spaces");
    expect(response.status).toBe(401);
    await readErrorEnvelope(response, "unauthorized");
  });
});

describe("GET /api/agents and /api/entities", () => {
  it("lists agents with both ids and their model; JWTs are refused", async () => {
    const agent = await createAgent(scriptedConfig([], { agent: { name: "Lister", description: "lists things" } }));
    const agents = await readAll<"agents", { id: string; entityId: string; name: string; description?: string; model: { provider: string } }>(
      "/api/agents",
      "agents",
      secretHeaders,
      5,
    );
    expect(agents).toContainEqual(
      expect.objectContaining({ id: agent.id, entityId: agent.entityId, name: "Lister", description: "lists things", model: { provider: "scripted" } }),
    );
    const ada = await createHuman("Ada");
    const forbidden = await call("/api/agents", { headers: await memberHeaders(ada) });
    expect(forbidden.status).toBe(403);
    await readErrorEnvelope(forbidden, "forbidden");
  });

  it("lists entities, filtered by type; an agent's entity names its agent id", async () => {
    const agent = await createAgent(scriptedConfig([]));
    const ada = await createHuman("Ada the entity");
    const agentEntities = await readAll<"entities", { id: string; type: string; agentId?: string }>("/api/entities?type=agent", "entities", secretHeaders, 10);
    expect(agentEntities.every((entity) => entity.type === "agent")).toBe(true);
    expect(agentEntities).toContainEqual(expect.objectContaining({ id: agent.entityId, agentId: agent.id }));
    const humans = await readAll<"entities", { id: string; type: string }>("/api/entities?type=human", "entities", secretHeaders, 10);
    expect(humans).toContainEqual(expect.objectContaining({ id: ada, type: "human", name: "Ada the entity" }));
    expect(humans.some((entity) => entity.id === agent.entityId)).toBe(false);
  });
});

describe("GET /api/me", () => {
  it("gives a JWT caller its entity and spaces", async () => {
    const ada = await createHuman("Ada");
    const space = await createSpace([ada], "mine");
    await createSpace([], "not mine");
    const { status, body } = await callJson<{ entity: { id: string; name: string; type: string }; spaces: SpaceSummary[]; nextCursor: null }>("/api/me", {
      headers: await memberHeaders(ada),
    });
    expect(status).toBe(200);
    expect(body.entity).toMatchObject({ id: ada, name: "Ada", type: "human" });
    expect(body.spaces.map((entry) => entry.id)).toEqual([space]);
    expect(body.nextCursor).toBeNull();
  });

  it("is for JWT callers only: the secret key gets 403 saying why", async () => {
    const { status, body } = await callJson("/api/me", { headers: secretHeaders });
    expect(status).toBe(403);
    expectErrorEnvelope(body, "forbidden");
    expect(body.error.message).toContain("JWT");
  });

  it("answers 404 when the token names an entity that does not exist", async () => {
    const response = await call("/api/me", { headers: await memberHeaders("ent_gone") });
    expect(response.status).toBe(404);
    await readErrorEnvelope(response, "not_found");
  });
});

describe("an agent by either of its ids", () => {
  it("joins a space by its agent id, in POST /api/spaces and POST …/members, as its entity", async () => {
    const first = await createAgent(scriptedConfig([]));
    const second = await createAgent(scriptedConfig([]));
    const created = await secret<{ id: string }>("/api/spaces", { body: { name: "by agent id", memberIds: [first.id] } });
    expect(created.status).toBe(201);
    const added = await secret(`/api/spaces/${created.body.id}/members`, { body: { entityId: second.id } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ spaceId: created.body.id, entityId: second.entityId });
    const detail = await secret<{ memberIds: string[] }>(`/api/spaces/${created.body.id}`);
    expect(detail.body.memberIds.sort()).toEqual([first.entityId, second.entityId].sort());
    // Adding it again by the other id is the same member.
    const again = await secret(`/api/spaces/${created.body.id}/members`, { body: { entityId: first.entityId } });
    expect(again.status).toBe(409);
    // A role is set on it by either id too.
    const role = await secret(`/api/spaces/${created.body.id}/members/${second.id}`, { method: "PUT", body: { role: "reviewer" } });
    expect(role).toMatchObject({ status: 200, body: { entityId: second.entityId, role: "reviewer" } });
    const removed = await secret(`/api/spaces/${created.body.id}/members/${second.id}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
  });

  it("speaks and is mentioned by its agent id", async () => {
    const agent = await createAgent(scriptedConfig([]));
    const ada = await createHuman("Ada");
    const space = await createSpace([ada, agent.entityId]);
    const spoken = await secret<{ entityId: string; role: string }>(`/api/spaces/${space}/messages`, { body: { text: "as the agent", entityId: agent.id } });
    expect(spoken.status).toBe(201);
    expect(spoken.body).toMatchObject({ entityId: agent.entityId, role: "assistant" });
    const mentioned = await postMessage(space, ada, "hello", [agent.id]);
    const { body } = await secret<{ messages: { id: string; mentions?: string[] }[] }>(`/api/spaces/${space}/messages?afterSeq=0&limit=200`);
    expect(body.messages.find((message) => message.id === mentioned.id)?.mentions).toEqual([agent.entityId]);
  });

  it("an unknown agent id is a 404 that says it is not an agent; an entity id on an agent route names the agent id", async () => {
    const space = await createSpace([]);
    const unknown = await secret(`/api/spaces/${space}/members`, { body: { entityId: "agt_nope" } });
    expect(unknown.status).toBe(404);
    expectErrorEnvelope(unknown.body, "not_found");
    expect(unknown.body.error.message).toContain('"agt_nope"');
    const agent = await createAgent(scriptedConfig([]));
    const wrongId = await secret(`/api/agents/${agent.entityId}`);
    expect(wrongId.status).toBe(404);
    expectErrorEnvelope(wrongId.body, "not_found");
    expect(wrongId.body.error.message).toContain(agent.id);
    const runs = await secret(`/api/agents/${agent.entityId}/runs`);
    expect(runs.status).toBe(404);
    expectErrorEnvelope(runs.body, "not_found");
    expect(runs.body.error.message).toContain(agent.id);
  });
});

describe("GET /api/spaces/:spaceId/tools", () => {
  const tools = [
    {
      name: "rate",
      description: "Ask for a rating",
      executionType: "space",
      isAsync: true,
      display: { customUI: "Stars" },
      inputSchema: { type: "object", properties: { question: { type: "string" } } },
      resultSchema: { type: "object", properties: { stars: { type: "integer" } }, required: ["stars"] },
    },
    {
      name: "secret_note",
      description: "A note the people see only as a name",
      executionType: "internal",
      visible: true,
      display: { mode: "minimal" },
      inputSchema: { type: "object", properties: { note: { type: "string" } } },
    },
    { name: "quiet", description: "never shows", executionType: "internal", inputSchema: { type: "object" } },
    { name: "backstage", description: "hidden", executionType: "external", display: { mode: "hidden" }, inputSchema: { type: "object" } },
  ];

  it("lists the tools that can show cards, with the result schema; minimal tools keep their input schema from JWTs", async () => {
    const agent = await createAgent(scriptedConfig([], { tools }));
    const ada = await createHuman("Ada");
    const space = await createSpace([ada, agent.entityId]);
    const asMember = await callJson<{ tools: Record<string, unknown>[] }>(`/api/spaces/${space}/tools`, { headers: await memberHeaders(ada) });
    expect(asMember.status).toBe(200);
    expect(asMember.body.tools.map((tool) => tool.name)).toEqual(["rate", "secret_note"]);
    expect(asMember.body.tools[0]).toEqual({
      agentId: agent.id,
      agentEntityId: agent.entityId,
      agentName: "Scripty",
      name: "rate",
      description: "Ask for a rating",
      executionType: "space",
      isAsync: true,
      display: { mode: "full", customUI: "Stars" },
      inputSchema: tools[0].inputSchema,
      resultSchema: tools[0].resultSchema,
    });
    expect(asMember.body.tools[1].inputSchema).toBeUndefined();
    expect(asMember.body.tools[1].display).toEqual({ mode: "minimal" });
    const asSecret = await secret<{ tools: Record<string, unknown>[] }>(`/api/spaces/${space}/tools`);
    expect(asSecret.body.tools[1].inputSchema).toEqual(tools[1].inputSchema);
  });

  it("is refused to a non-member", async () => {
    const stranger = await createHuman("Stranger");
    const space = await createSpace([]);
    const response = await call(`/api/spaces/${space}/tools`, { headers: await memberHeaders(stranger) });
    expect(response.status).toBe(403);
    await readErrorEnvelope(response, "forbidden");
  });
});

describe("GET /api/spaces/:spaceId/members", () => {
  it("names every member, with the agent id of an agent, for members and the secret key", async () => {
    const agent = await createAgent(scriptedConfig([]));
    const ada = await createHuman("Ada");
    const space = await createSpace([ada, agent.entityId]);
    const { status, body } = await callJson<{ members: Record<string, unknown>[] }>(`/api/spaces/${space}/members`, { headers: await memberHeaders(ada) });
    expect(status).toBe(200);
    // Both joined in one batch (same joinedAt): compare without order.
    expect(body.members).toHaveLength(2);
    expect(body.members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: ada, type: "human", name: "Ada" }),
        expect.objectContaining({ id: agent.entityId, type: "agent", name: "Scripty", agentId: agent.id }),
      ]),
    );
    expect(body.members.find((member) => member.id === ada)?.agentId).toBeUndefined();
    const stranger = await createHuman("Stranger");
    expect((await call(`/api/spaces/${space}/members`, { headers: await memberHeaders(stranger) })).status).toBe(403);
    expect((await secret(`/api/spaces/${space}/members`)).status).toBe(200);
  });
});
