/**
 * Portable agents: `GET /api/agents/:agentId/export` → one document →
 * `POST /api/agents/import`. A round trip gives back the same config, goals,
 * memories, plans (next runs worked out again) and notes; secrets travel by
 * name only; a bad document is a 400 with the path of each problem and
 * writes nothing; an import that fails half-way removes what it wrote; the
 * imported agent runs with what it brought.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getDatabase } from "../../src/db/client";
import { importAgent } from "../../src/agents/portable/import-agent";
import type { AgentDocument } from "../../src/agents/portable/agent-document";
import { AgentConfig } from "../../src/agents/agent-config";
import type { AppEnv } from "../../src/env";
import { setGoals } from "../../src/knowledge/goals";
import { setMemories } from "../../src/knowledge/memories";
import { setPlans } from "../../src/knowledge/plans";
import { createNotesTools, notesPrefix } from "../../src/tools/builtins/notes-tools";
import { call, secret } from "../support/api";
import { agentState, createAgent, settledRuns } from "../support/agents";
import { callTool, okValue, toolContext } from "../support/catalogue";
import { countRows } from "../support/database-state";
import { readErrorEnvelope } from "../support/error-envelope";

type Document = AgentDocument & Record<string, unknown>;
type Plan = {
  id: string;
  name: string;
  instruction: string;
  runAt: string | null;
  cron: string | null;
  everySeconds: number | null;
  timezone: string | null;
  nextRunAt: string | null;
  lastRunAt: string | null;
};

const notesScript = [
  {
    toolCalls: [
      { name: "notes_read", args: { path: "people/ada.md" } },
      { name: "get_goals", args: {} },
      { name: "get_memories", args: {} },
    ],
  },
  { text: "I have my notes and goals." },
];

function sourceConfig(name: string, extra: Record<string, unknown> = {}) {
  return {
    agent: { name, description: "Keeps track of people", system: "You remember people." },
    model: { provider: "scripted", turns: notesScript },
    builtins: ["spaces", "knowledge", "notes"],
    tools: [
      {
        name: "lookup",
        description: "Look someone up",
        executionType: "gateway",
        inputSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
        execution: { url: "http://api.test/people/{{who}}", method: "GET", headers: { authorization: "Bearer ${env.TOOL_API_TOKEN}" } },
      },
    ],
    ...extra,
  };
}

/** An agent with goals, memories, plans (of every kind) and notes, written as its tools write them. */
async function richAgent(name = "Archivist", extra: Record<string, unknown> = {}) {
  const agent = await createAgent(sourceConfig(name, extra));
  const knowledge = { database: getDatabase(env.DB), agentId: agent.id };
  await setGoals(knowledge, {
    goals: [
      { description: "Know everyone", priority: 80, isLongTerm: true },
      { description: "File the notes", priority: 10, isCompleted: true },
      { description: "Say hello", priority: 10 },
    ],
  });
  await setMemories(knowledge, {
    memories: [
      { key: "ada.birthday", value: "10 December" },
      { key: "office", value: "Paris, 3rd floor" },
    ],
  });
  const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
  await setPlans(knowledge, {
    plans: [
      { name: "morning", instruction: "Read the notes", cron: "0 9 * * 1-5", timezone: "Europe/Paris" },
      { name: "hourly", instruction: "Check the inbox", everySeconds: 3600 },
      { name: "later", instruction: "Remind Ada", runAt: inAnHour },
      { name: "done", instruction: "Send the welcome", runAt: "2020-01-01T09:00:00", timezone: "Europe/Paris" },
    ],
  });
  // The one-shot plan in the past already ran: finished, as advancePlan leaves it.
  await env.DB.prepare("UPDATE plans SET next_run_at = NULL, last_run_at = ? WHERE agent_id = ? AND name = 'done'").bind("2020-01-01T08:00:00.000Z", agent.id).run();
  const notes = createNotesTools(toolContext({ agent: { agentId: agent.id, entityId: agent.entityId, name } }));
  okValue(await callTool(notes, "notes_write", { path: "people/ada.md", content: "# Ada\n\nWrote the first program.", summary: "Ada Lovelace, programmer" }));
  okValue(await callTool(notes, "notes_write", { path: "places/paris office.md", content: "Third floor, by the window. Café: ☕" }));
  return agent;
}

async function exportOf(agentId: string) {
  return secret<Document>(`/api/agents/${agentId}/export`);
}

async function importDocument(document: unknown, options: { query?: string; headers?: Record<string, string> } = {}) {
  return secret<{ id: string; entityId: string; name: string; error?: { code: string; message: string; details?: { path: string; message: string }[] } }>(
    `/api/agents/import${options.query ?? ""}`,
    { body: document, headers: options.headers },
  );
}

async function notesOf(agentId: string): Promise<{ path: string; content: string; summary: string | undefined }[]> {
  const prefix = notesPrefix(agentId);
  const listed = await env.FILES.list({ prefix, include: ["customMetadata"] });
  return Promise.all(
    listed.objects.map(async (object) => ({
      path: object.key.slice(prefix.length),
      content: (await (await env.FILES.get(object.key))?.text()) ?? "",
      summary: object.customMetadata?.summary,
    })),
  );
}

/** Everything an import could write: the core rows (entities, agents, spaces, members, messages), the knowledge tables and every agent's R2 objects. */
async function everything() {
  const count = (table: string) => env.DB.prepare(`select count(*) as count from ${table}`).first<{ count: number }>();
  const [goals, memories, plans] = await Promise.all([count("goals"), count("memories"), count("plans")]);
  const objects = await env.FILES.list({ prefix: "agents/" });
  return { ...(await countRows()), goals: goals?.count, memories: memories?.count, plans: plans?.count, agentObjects: objects.objects.length, truncated: objects.truncated };
}

const withoutTimes = <T extends Record<string, unknown>>(rows: T[], ...fields: string[]) =>
  rows.map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => !["id", "updatedAt", ...fields].includes(key))));

describe("export", () => {
  it("is one document: config, goals in order, memories, plans as schedules, notes by path; no ids", async () => {
    const agent = await richAgent();
    const { status, body } = await exportOf(agent.id);
    expect(status).toBe(200);
    expect(body).toMatchObject({ format: "switchboard.agent", version: 1, agent: { name: "Archivist" } });
    expect(Date.parse(body.exportedAt as string)).not.toBeNaN();
    expect(body.agent.config).toEqual(AgentConfig.parse(sourceConfig("Archivist")));
    expect(body.goals).toEqual([
      { description: "Know everyone", priority: 80, isLongTerm: true, isCompleted: false },
      { description: "File the notes", priority: 10, isLongTerm: false, isCompleted: true },
      { description: "Say hello", priority: 10, isLongTerm: false, isCompleted: false },
    ]);
    expect(body.memories).toEqual([
      { key: "ada.birthday", value: "10 December" },
      { key: "office", value: "Paris, 3rd floor" },
    ]);
    expect(body.plans).toEqual([
      { name: "done", instruction: "Send the welcome", runAt: "2020-01-01T09:00:00", timezone: "Europe/Paris", finished: true },
      { name: "hourly", instruction: "Check the inbox", everySeconds: 3600 },
      { name: "later", instruction: "Remind Ada", runAt: expect.any(String) },
      { name: "morning", instruction: "Read the notes", cron: "0 9 * * 1-5", timezone: "Europe/Paris" },
    ]);
    expect(body.notes).toEqual([
      { path: "people/ada.md", content: "# Ada\n\n> Summary: Ada Lovelace, programmer\n\nWrote the first program." },
      { path: "places/paris office.md", content: "Third floor, by the window. Café: ☕" },
    ]);
    const text = JSON.stringify(body);
    expect(text).not.toContain(agent.id);
    expect(text).not.toContain(agent.entityId);
    expect(body.references).toEqual([]);
  });

  it("names secrets and never holds their values", async () => {
    const agent = await createAgent({
      ...sourceConfig("Keyholder"),
      model: { provider: "openai", name: "gpt-4o", apiKeyEnv: "TOOL_API_TOKEN" },
    });
    const response = await call(`/api/agents/${agent.id}/export`, { headers: { "x-secret-key": env.GATEWAY_SECRET_KEY } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const document = JSON.parse(text) as Document;
    expect(document.agent.config.model).toMatchObject({ provider: "openai", apiKeyEnv: "TOOL_API_TOKEN" });
    expect((document.agent.config.tools[0] as { execution: { headers: Record<string, string> } }).execution.headers.authorization).toBe("Bearer ${env.TOOL_API_TOKEN}");
    // Not the value of that secret, nor of any of the gateway's own keys, anywhere in the document.
    expect(env.TOOL_API_TOKEN).toBe("test-tool-token");
    for (const value of [env.TOOL_API_TOKEN, env.GATEWAY_SECRET_KEY, env.GATEWAY_PUBLIC_KEY, env.JWT_SECRET, env.WEBHOOK_SECRET]) expect(text).not.toContain(value);
  });

  it("is refused when a secret's value was pasted in literally (a header, a memory): nothing leaves", async () => {
    const pasted = await createAgent({
      ...sourceConfig("Paster"),
      tools: [
        {
          ...sourceConfig("x").tools[0],
          execution: { url: "http://api.test/people/{{who}}", method: "GET", headers: { "x-token": env.TOOL_API_TOKEN, "x-other": "${env.TOOL_API_TOKEN}" } },
        },
      ],
    });
    const refused = await exportOf(pasted.id);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: { code: "export_refused" } });
    const message = (refused.body as unknown as { error: { message: string } }).error.message;
    expect(message).toContain('"TOOL_API_TOKEN"');
    expect(message).toContain("agent.config.tools.0.execution.headers.x-token");
    expect(message).not.toContain(env.TOOL_API_TOKEN);

    const remembered = await createAgent(sourceConfig("Rememberer"));
    await setMemories({ database: getDatabase(env.DB), agentId: remembered.id }, { memories: [{ key: "key", value: `the admin key is ${env.GATEWAY_SECRET_KEY}` }] });
    const again = await exportOf(remembered.id);
    expect(again.status).toBe(422);
    expect((again.body as unknown as { error: { message: string } }).error.message).toContain('"GATEWAY_SECRET_KEY" appears at memories.0.value');
  });

  it("lists the ids of this gateway the config names, and refuses an agent past the document limits", async () => {
    const helper = await createAgent({ agent: { name: "Helper" }, model: { provider: "scripted", turns: [] } });
    const lead = await createAgent(sourceConfig("Lead", { tools: [{ name: "ask_helper", executionType: "agent", execution: { agentId: helper.id } }] }));
    const { body } = await exportOf(lead.id);
    expect(body.references).toEqual([{ path: "agent.config.tools.0.execution.agentId", kind: "agent", id: helper.id }]);

    const crowded = await createAgent(sourceConfig("Crowded"));
    await Promise.all(Array.from({ length: 101 }, (_, index) => env.FILES.put(`${notesPrefix(crowded.id)}n${index}.md`, `note ${index}`)));
    const refused = await exportOf(crowded.id);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: { code: "export_too_large", message: expect.stringContaining("more than 100 notes") } });
  });
});

describe("import", () => {
  it("a round trip reproduces config, goals, memories, plans and notes; next runs are worked out from now; deadlines armed", async () => {
    const source = await richAgent();
    const exported = (await exportOf(source.id)).body;
    const before = Date.now();
    const { status, body } = await importDocument(exported);
    expect(status).toBe(201);
    expect(body).toEqual({ id: expect.stringMatching(/^agt_/), entityId: expect.stringMatching(/^ent_/), name: "Archivist" });
    expect(body.id).not.toBe(source.id);

    const [copy, original] = await Promise.all([secret<{ config: unknown; name: string }>(`/api/agents/${body.id}`), secret<{ config: unknown }>(`/api/agents/${source.id}`)]);
    expect(copy.body.config).toEqual(original.body.config);
    expect((await secret<{ entities: { id: string; name: string; type: string }[] }>(`/api/entities/${body.entityId}`)).body).toMatchObject({
      id: body.entityId,
      type: "agent",
      name: "Archivist",
    });

    const list = async (agentId: string, what: "goals" | "memories" | "plans") =>
      (await secret<Record<string, Record<string, unknown>[]>>(`/api/agents/${agentId}/${what}`)).body[what];
    expect(withoutTimes(await list(body.id, "goals"))).toEqual(withoutTimes(await list(source.id, "goals")));
    expect(withoutTimes(await list(body.id, "memories"))).toEqual(withoutTimes(await list(source.id, "memories")));

    const plans = (await list(body.id, "plans")) as Plan[];
    const sourcePlans = (await list(source.id, "plans")) as Plan[];
    expect(withoutTimes(plans, "nextRunAt", "lastRunAt")).toEqual(withoutTimes(sourcePlans, "nextRunAt", "lastRunAt"));
    const byName = Object.fromEntries(plans.map((plan) => [plan.name, plan]));
    expect(plans.every((plan) => plan.lastRunAt === null)).toBe(true);
    expect(byName.done.nextRunAt).toBeNull();
    expect(byName.later.nextRunAt).toBe(sourcePlans.find((plan) => plan.name === "later")?.nextRunAt);
    expect(Date.parse(byName.hourly.nextRunAt as string)).toBeGreaterThanOrEqual(before + 3_600_000);
    // The next weekday 09:00 in Paris, after now: 07:00 or 08:00 UTC.
    const morning = new Date(byName.morning.nextRunAt as string);
    expect(morning.getTime()).toBeGreaterThan(before);
    expect([7, 8]).toContain(morning.getUTCHours());
    expect([1, 2, 3, 4, 5]).toContain(new Date(morning.getTime() + 2 * 3_600_000).getUTCDay());
    // The plans route gives nextRunAt; only the deadline table tells that each is armed for it.
    const deadlines = (await agentState(body.id)).deadlines.filter((deadline) => deadline.kind === "plan");
    expect(deadlines.map((deadline) => deadline.id).sort()).toEqual(
      plans
        .filter((plan) => plan.nextRunAt !== null)
        .map((plan) => `plan:${plan.id}`)
        .sort(),
    );
    for (const plan of plans.filter((entry) => entry.nextRunAt !== null))
      expect(deadlines.find((deadline) => deadline.id === `plan:${plan.id}`)?.dueAt).toBe(Date.parse(plan.nextRunAt as string));

    const sortByPath = (notes: Awaited<ReturnType<typeof notesOf>>) => [...notes].sort((a, b) => a.path.localeCompare(b.path));
    expect(sortByPath(await notesOf(body.id))).toEqual(sortByPath(await notesOf(source.id)));
    expect((await notesOf(body.id)).find((note) => note.path === "people/ada.md")?.summary).toBe("Ada Lovelace, programmer");

    // Exported again, the copy is the same document.
    const again = (await exportOf(body.id)).body;
    expect({ ...again, exportedAt: undefined }).toEqual({ ...exported, exportedAt: undefined });
  });

  it("the imported agent works: a scripted cycle reads its imported notes, goals and memories", async () => {
    const source = await richAgent("Worker");
    const { body } = await importDocument((await exportOf(source.id)).body, { query: "?name=Worker%20copy" });
    expect(body.name).toBe("Worker copy");
    expect((await secret<{ name: string; config: { agent: { name: string } } }>(`/api/agents/${body.id}`)).body).toMatchObject({
      name: "Worker copy",
      config: { agent: { name: "Worker copy" } },
    });
    await secret(`/api/agents/${body.id}/inbox`, { body: { type: "external", data: { go: true } } });
    const [run] = await settledRuns(body.id);
    expect(run.status).toBe("completed");
    const result = (name: string) => run.toolCalls.find((entry) => entry.toolName === name);
    expect(result("notes_read")).toMatchObject({
      status: "completed",
      result: { path: "people/ada.md", content: expect.stringContaining("Wrote the first program."), summary: "Ada Lovelace, programmer" },
    });
    expect((result("get_goals")?.result as { goals: { description: string }[] }).goals.map((goal) => goal.description)).toEqual(["Know everyone", "File the notes", "Say hello"]);
    expect((result("get_memories")?.result as { memories: { key: string }[] }).memories.map((memory) => memory.key)).toEqual(["ada.birthday", "office"]);
    expect(run.steps.at(-1)?.text).toBe("I have my notes and goals.");
  });

  it("honours Idempotency-Key: the same key and document give the same agent once", async () => {
    const document = (await exportOf((await richAgent("Twice")).id)).body;
    const headers = { "idempotency-key": `import-${crypto.randomUUID()}` };
    const first = await importDocument(document, { headers });
    const rows = await everything();
    const second = await call("/api/agents/import", { headers: { "x-secret-key": env.GATEWAY_SECRET_KEY, ...headers }, body: document });
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await second.json()).toEqual(first.body);
    expect(await everything()).toEqual(rows);
    const reused = await importDocument({ ...document, goals: [] }, { headers });
    expect(reused.status).toBe(422);
  });

  it("reads documents past 256 KiB (its own limit is 2 MiB)", async () => {
    const document = (await exportOf((await richAgent("Bulky")).id)).body;
    const big = { ...document, notes: [0, 1, 2].map((index) => ({ path: `big/${index}.md`, content: "x".repeat(200_000) })) };
    const { status, body } = await importDocument(big);
    expect(status).toBe(201);
    expect((await notesOf(body.id)).map((note) => note.content.length)).toEqual([200_000, 200_000, 200_000]);
    const tooBig = { ...document, notes: Array.from({ length: 11 }, (_, index) => ({ path: `big/${index}.md`, content: "x".repeat(200_000) })) };
    const refused = await importDocument(tooBig);
    expect(refused.status).toBe(413);
  });
});

describe("a bad document is a 400 with the path of each problem, and writes nothing", () => {
  const cases: { name: string; change: (document: Document) => unknown; path: string; message?: string }[] = [
    { name: "another format", change: (document) => ({ ...document, format: "acme.bot" }), path: "document.format", message: "Not a Switchboard agent document" },
    { name: "another version", change: (document) => ({ ...document, version: 2 }), path: "document.version", message: "version 1" },
    {
      name: "a config the schema refuses",
      change: (document) => ({
        ...document,
        agent: { ...document.agent, config: { ...document.agent.config, tools: [{ ...document.agent.config.tools[0], name: "bad name!" }] } },
      }),
      path: "document.agent.config.tools.0.name",
    },
    {
      name: "a header secret that is not set (the save-time check)",
      change: (document) => ({
        ...document,
        agent: {
          ...document.agent,
          config: {
            ...document.agent.config,
            tools: [{ ...document.agent.config.tools[0], execution: { url: "http://api.test/x", method: "GET", headers: { authorization: "${env.NOT_SET_ANYWHERE}" } } }],
          },
        },
      }),
      path: "document.agent.config.tools.0.execution.headers.authorization",
      message: "NOT_SET_ANYWHERE",
    },
    {
      name: "a sub-agent this gateway does not have",
      change: (document) => ({
        ...document,
        agent: {
          ...document.agent,
          config: { ...document.agent.config, tools: [{ name: "ask", executionType: "agent", execution: { agentId: "agt_00000000000000000000000000000000" } }] },
        },
      }),
      path: "document.agent.config.tools.0.execution.agentId",
    },
    {
      name: "a bad goal",
      change: (document) => ({ ...document, goals: [...document.goals, ...document.goals, { description: "Too keen", priority: 500 }] }),
      path: "document.goals.6.priority",
    },
    {
      name: "a memory key twice",
      change: (document) => ({ ...document, memories: [...document.memories, { key: "office", value: "again" }] }),
      path: "document.memories.2.key",
      message: "Duplicate",
    },
    {
      name: "a plan with two schedules",
      change: (document) => ({ ...document, plans: [{ name: "x", instruction: "y", cron: "0 9 * * *", everySeconds: 60 }] }),
      path: "document.plans.0",
    },
    {
      name: "a plan in an unknown zone",
      change: (document) => ({ ...document, plans: [{ name: "x", instruction: "y", cron: "0 9 * * *", timezone: "Mars/Olympus" }] }),
      path: "document.plans.0.timezone",
    },
    {
      name: "too many notes",
      change: (document) => ({ ...document, notes: Array.from({ length: 101 }, (_, index) => ({ path: `n${index}.md`, content: "x" })) }),
      path: "document.notes",
      message: "100",
    },
    {
      name: "a note path going up",
      change: (document) => ({ ...document, notes: [{ path: "../x", content: "escape" }] }),
      path: "document.notes.0.path",
      message: '".." segments',
    },
    { name: "an absolute note path", change: (document) => ({ ...document, notes: [{ path: "/agents/other/notes/x.md", content: "escape" }] }), path: "document.notes.0.path" },
    { name: "a note path in disguise", change: (document) => ({ ...document, notes: [{ path: "a/%2e%2e/x", content: "escape" }] }), path: "document.notes.0.path" },
    {
      name: "a note over 256 KB",
      change: (document) => ({ ...document, notes: [{ path: "big.md", content: "x".repeat(256_001) }] }),
      path: "document.notes.0.content",
      message: "256000",
    },
    { name: "one note twice", change: (document) => ({ ...document, notes: [document.notes[0], { ...document.notes[0] }] }), path: "document.notes.1.path", message: "Duplicate" },
    { name: "an unknown field", change: (document) => ({ ...document, secrets: { TOOL_API_TOKEN: "x" } }), path: "document" },
  ];

  it.each(cases)("$name → $path", async ({ change, path, message }) => {
    const document = (await exportOf((await richAgent("Template")).id)).body;
    const before = await everything();
    const { status, body } = await importDocument(change(document));
    expect(status).toBe(400);
    const envelope = body as unknown as { error: { code: string; message: string; details: { path: string; message: string }[] } };
    expect(envelope.error.code).toBe("validation_error");
    const problem = envelope.error.details.find((detail) => detail.path === path);
    expect(problem, JSON.stringify(envelope.error.details)).toBeDefined();
    if (message) expect(problem?.message).toContain(message);
    expect(await everything()).toEqual(before);
  });

  it("a bad ?name= is a 400 naming the query field; not JSON is the usual 400", async () => {
    const document = (await exportOf((await richAgent("Named")).id)).body;
    const before = await everything();
    const { status, body } = await importDocument(document, { query: `?name=${"n".repeat(101)}` });
    expect(status).toBe(400);
    expect((body as unknown as { error: { details: { path: string }[] } }).error.details[0].path).toBe("name");
    const broken = await call("/api/agents/import", { headers: { "x-secret-key": env.GATEWAY_SECRET_KEY }, rawBody: "{not json" });
    await readErrorEnvelope(broken, "invalid_json");
    expect(await everything()).toEqual(before);
  });

  it("needs the secret key", async () => {
    expect((await call("/api/agents/import", { body: {} })).status).toBe(401);
    expect((await call("/api/agents/agt_x/export")).status).toBe(401);
  });
});

describe("an import that fails half-way removes what it wrote", () => {
  const target = () => {
    const hex = crypto.randomUUID().replaceAll("-", "");
    return { agentId: `agt_${hex}`, entityId: `ent_${hex}` };
  };

  it("D1 refuses the rows after the notes were written: the notes are gone again", async () => {
    const document = (await exportOf((await richAgent("Unlucky")).id)).body as AgentDocument;
    const ids = target();
    const database = getDatabase(env.DB);
    const failing = new Proxy(database, {
      get: (object, property, receiver) => (property === "batch" ? async () => Promise.reject(new Error("D1 is down")) : Reflect.get(object, property, receiver)),
    });
    await expect(importAgent(env as unknown as AppEnv, failing, ids, document, document.agent.config)).rejects.toThrow("D1 is down");
    expect(await notesOf(ids.agentId)).toEqual([]);
    expect(await env.DB.prepare("select count(*) as count from agents where id = ?").bind(ids.agentId).first("count")).toBe(0);
  });

  it("the agent object cannot arm the plans: the rows and the notes are gone again", async () => {
    const document = (await exportOf((await richAgent("Unarmed")).id)).body as AgentDocument;
    const ids = target();
    const before = await everything();
    const brokenObjects = {
      idFromName: (name: string) => env.AGENT.idFromName(name),
      get: (id: DurableObjectId) => {
        const real = env.AGENT.get(id);
        return { plansImported: async () => Promise.reject(new Error("object unavailable")), destroy: () => real.destroy() };
      },
    };
    const brokenEnv = { ...(env as unknown as AppEnv), AGENT: brokenObjects as unknown as AppEnv["AGENT"] };
    await expect(importAgent(brokenEnv, getDatabase(env.DB), ids, document, document.agent.config)).rejects.toThrow("object unavailable");
    expect(await notesOf(ids.agentId)).toEqual([]);
    expect(await everything()).toEqual(before);
  });
});
