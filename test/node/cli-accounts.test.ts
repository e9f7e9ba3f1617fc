/**
 * `switchboard accounts` against the real gateway: a person lists and revokes
 * their own connected accounts (`--as`), an operator everyone's with the
 * secret key (`--entity` for one entity's, an agent named by its agent id
 * too); the table and `--json` never carry a token; refusals say what to do.
 * The connections are stored straight into the dev server's D1 (no route
 * creates one).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../cli/src/main";
import { type SeededConnection, seedConnection } from "./account-connections";
import { admin, gateway, spaceEvent } from "./gateway";
import { authorizeAs } from "./oauth-servers";
import { agentEvent } from "./dead-letters";

type Run = { code: number; out: string; err: string };

const stateDir = mkdtempSync(join(tmpdir(), "switchboard-cli-accounts-"));

async function cli(args: string[]): Promise<Run> {
  let out = "";
  let err = "";
  const code = await runCli([...args, "--dev-vars", gateway.envFile], {
    out: (text) => (out += text),
    err: (text) => (err += text),
    cwd: tmpdir(),
    env: { SWITCHBOARD_URL: gateway.baseUrl, SWITCHBOARD_STATE_DIR: stateDir },
  });
  return { code, out, err };
}

const world = { ana: "", ben: "", cara: "", agentId: "", agentEntityId: "" };
let anaMail: SeededConnection;
let benCode: SeededConnection;
let agentCalendar: SeededConnection;

beforeAll(async () => {
  const [ana, ben, cara] = await Promise.all(["Ana", "Ben", "Cara"].map((name) => admin.entities.create({ type: "human", name })));
  const agent = await admin.agents.create({ agent: { name: "Accounts agent" }, model: { provider: "scripted", turns: [] } });
  Object.assign(world, { ana: ana.id, ben: ben.id, cara: cara.id, agentId: agent.id, agentEntityId: agent.entityId });
  anaMail = await seedConnection(ana.id, "https://mail.example.test/mcp", ["mail.read", "mail.send"]);
  benCode = await seedConnection(ben.id, "code-host");
  agentCalendar = await seedConnection(agent.entityId, "calendar", ["calendar"]);
});

afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const tokensOf = (...connections: SeededConnection[]) => connections.map((connection) => connection.accessToken);

describe("switchboard accounts", () => {
  it("lists a person's own with --as, everyone's with the secret key, one entity's with --entity; never a token", async () => {
    const mine = await cli(["accounts", "--as", world.ana]);
    expect(mine.code, mine.err).toBe(0);
    expect(mine.out).toMatch(/^entity\s+service\s+scopes\s+issuer\s+connected\s+expires\s+revoked$/m);
    expect(mine.out).toMatch(
      new RegExp(
        `^${world.ana}\\s+https://mail\\.example\\.test/mcp\\s+mail\\.read mail\\.send\\s+${anaMail.issuer.replaceAll(".", "\\.")}\\s+\\S+Z\\s+${anaMail.expiresAt}$`,
        "m",
      ),
    );
    expect(mine.out).not.toContain(world.ben);

    const everyone = await cli(["accounts"]);
    expect(everyone.code, everyone.err).toBe(0);
    for (const id of [world.ana, world.ben, world.agentEntityId]) expect(everyone.out).toContain(id);

    const bens = await cli(["accounts", "--entity", world.ben, "--json"]);
    expect(bens.code, bens.err).toBe(0);
    const listed = JSON.parse(bens.out);
    expect(listed).toEqual([
      {
        entityId: world.ben,
        connectionKey: "code-host",
        scopes: ["read", "write"],
        issuer: benCode.issuer,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        expiresAt: benCode.expiresAt,
        revokedAt: null,
      },
    ]);

    // An agent is named by its agent id as well as by its entity id.
    const agents = await cli(["accounts", "--entity", world.agentId, "--json"]);
    expect(JSON.parse(agents.out)).toMatchObject([{ entityId: world.agentEntityId, connectionKey: "calendar", scopes: ["calendar"] }]);

    for (const run of [mine, everyone, bens, agents]) for (const token of tokensOf(anaMail, benCode, agentCalendar)) expect(run.out).not.toContain(token);

    const empty = await cli(["accounts", "--as", world.cara]);
    expect(empty).toMatchObject({ code: 0, out: "No connected accounts. A person connects one from the card that asks them, when an agent's tool needs it.\n" });
    expect(JSON.parse((await cli(["accounts", "--as", world.cara, "--json"])).out)).toEqual([]);
  });

  it("revoke: a person their own, the secret key anyone's named with --entity; revoked stays listed; nothing to revoke says so", async () => {
    const revoked = await cli(["accounts", "revoke", anaMail.connectionKey, "--as", world.ana]);
    expect(revoked.code, revoked.err).toBe(0);
    expect(revoked.out).toBe(`revoked ${anaMail.connectionKey} for ${world.ana}: its tokens are erased (it stays listed as revoked until the account is connected again)\n`);
    const after = JSON.parse((await cli(["accounts", "--as", world.ana, "--json"])).out);
    expect(after).toMatchObject([{ connectionKey: anaMail.connectionKey, revokedAt: expect.stringMatching(/Z$/), expiresAt: null }]);
    expect((await cli(["accounts", "--as", world.ana])).out).toMatch(new RegExp(`^${world.ana}\\s+https://mail\\.example\\.test/mcp\\s+.*\\S+Z$`, "m"));

    const again = await cli(["accounts", "revoke", anaMail.connectionKey, "--as", world.ana]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/^error: not_found: No connection to "https:\/\/mail\.example\.test\/mcp" to revoke for entity "ent_\w+" \(DELETE [^)]+ 404\)\n/);
    expect(again.err).toContain(`It may be revoked already: see what there is with \`switchboard accounts --as ${world.ana}\`.`);

    // Another person's connection: refused before any request, and nothing revoked.
    const othersAsAna = await cli(["accounts", "revoke", "code-host", "--as", world.ana, "--entity", world.ben]);
    expect(othersAsAna.code).toBe(2);
    expect(othersAsAna.err).toContain("accounts revoke --as ENTITY is that person's own: --entity is for the secret key");
    const listOthersAsAna = await cli(["accounts", "--as", world.ana, "--entity", world.ben]);
    expect(listOthersAsAna.code).toBe(2);
    expect(listOthersAsAna.err).toContain("accounts --as ENTITY is that person's own: --entity is for the secret key");
    const notAnas = await cli(["accounts", "revoke", "code-host", "--as", world.ana]);
    expect(notAnas.err).toContain(`No connection to "code-host" to revoke for entity "${world.ana}"`);

    const whose = await cli(["accounts", "revoke", "code-host"]);
    expect(whose.code).toBe(2);
    expect(whose.err).toContain("accounts revoke with the secret key needs whose connection it is: --entity ent_…");
    const byOperator = await cli(["accounts", "revoke", "code-host", "--entity", world.ben, "--json"]);
    expect(byOperator.code, byOperator.err).toBe(0);
    expect(JSON.parse(byOperator.out)).toEqual({ revoked: true, entityId: world.ben, connectionKey: "code-host" });
    const byAgentId = await cli(["accounts", "revoke", "calendar", "--entity", world.agentId]);
    expect(byAgentId.out).toContain(`revoked calendar for ${world.agentEntityId}`);
    const operatorAgain = await cli(["accounts", "revoke", "code-host", "--entity", world.ben]);
    expect(operatorAgain.err).toContain(`see what there is with \`switchboard accounts --entity ${world.ben}\``);

    const noKey = await cli(["accounts", "revoke"]);
    expect(noKey.code).toBe(2);
    expect(noKey.err).toContain("accounts revoke needs the connection's key");
    const unknown = await cli(["accounts", "forget"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('Unknown accounts command "forget"');
  });
});

describe("switchboard accounts connect", () => {
  /** The demo's own account server and MCP server (`npm run dev` started them; the demo agent names the server). */
  async function demoNotesUrl(): Promise<string> {
    const demo = await admin.agents.get(gateway.demo.agentId);
    const url = (demo.config.mcp?.servers ?? []).find((server) => server.name === "notes")?.url;
    if (url === undefined) throw new Error("the demo agent has no notes server");
    return url;
  }

  it("an operator connects an agent's own account: the link signs in as the account the agent uses, and its calls then act as it", async () => {
    const notesUrl = await demoNotesUrl();
    const server = { name: "notes", url: notesUrl, auth: { type: "oauth" as const, owner: "agent" as const, service: "Demo notes", tools: [{ name: "whoami" }] } };
    const agent = await admin.agents.create({
      agent: { name: "Team notes agent" },
      model: {
        provider: "scripted",
        turns: [
          {
            toolCalls: [
              { name: "notes__whoami", args: {} },
              { name: "skip", args: {} },
            ],
          },
        ],
      },
      mcp: { servers: [server] },
    });
    const usage = await cli(["accounts", "connect", "--agent", agent.id]);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("exactly one of --tool NAME, --server NAME or --provider NAME");

    const connect = await cli(["accounts", "connect", "--agent", agent.id, "--server", "notes"]);
    expect(connect.code, connect.err).toBe(0);
    expect(connect.out).toContain(`sign in as the account ${agent.id} should use at Demo notes (notes:read)`);
    const startUrl = connect.out.trim().split("\n").at(-1) ?? "";
    expect(startUrl.startsWith(`${gateway.baseUrl}/oauth/start/`)).toBe(true);
    const jar = new Map<string, string>();
    const callback = await authorizeAs("team-bot", startUrl, `${gateway.baseUrl}/oauth/callback`, { jar });
    const connected = await fetch(`${gateway.baseUrl}/oauth/callback?${callback}`, {
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; "), accept: "application/json" },
    });
    expect(connected.status).toBe(200);

    const listed = await cli(["accounts", "--entity", agent.id, "--json"]);
    expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ entityId: agent.entityId, connectionKey: notesUrl, scopes: ["notes:read"] })]);
    const finished = agentEvent(agent.id, "agent.cycle.finished");
    await admin.agents.pushInbox(agent.id, { go: true });
    await finished;
    const [run] = (await admin.agents.runs(agent.id, { limit: 1 })).runs;
    const calls = (run?.toolCalls ?? []) as { toolName: string; result?: unknown }[];
    expect(calls.find((call) => call.toolName === "notes__whoami")?.result).toEqual({ text: "You are signed in to Demo notes as team-bot." });
  }, 60_000);

  it("a person gets the link a card asks them to open, by the flow the card names; someone else does not", async () => {
    const notesUrl = await demoNotesUrl();
    const person = await admin.entities.create({ type: "human", name: "Dee" });
    const other = await admin.entities.create({ type: "human", name: "Eve" });
    const agent = await admin.agents.create({
      agent: { name: "Notes asker" },
      model: {
        provider: "scripted",
        turns: [
          {
            toolCalls: [
              { name: "enter_space", args: { spaceId: "SPACE" } },
              { name: "notes__whoami", args: {} },
            ],
          },
        ],
      },
      mcp: { servers: [{ name: "notes", url: notesUrl, auth: { type: "oauth", owner: "person", service: "Demo notes", tools: [{ name: "whoami" }] } }] },
    });
    const space = await admin.spaces.create({ name: "Dee's notes", memberIds: [person.id, other.id, agent.entityId] });
    const config = (await admin.agents.get(agent.id)).config;
    await admin.agents.update(agent.id, JSON.parse(JSON.stringify(config).replaceAll("SPACE", space.id)));
    await admin.messages.send(space.id, { text: "who am I?", entityId: person.id });
    const card = await spaceEvent(space.id, "space.message.updated", (event) => JSON.stringify(event.data).includes('"flowId"'));
    const flowId = /"flowId":"(flw_[0-9a-f]+)"/.exec(JSON.stringify(card.data))?.[1] ?? "";
    const mine = await cli(["accounts", "connect", flowId, "--as", person.id]);
    expect(mine.code, mine.err).toBe(0);
    expect(mine.out).toMatch(
      new RegExp(
        `^Open this link in your browser to connect Demo notes \\(notes:read\\); it works once, until \\S+:\n${gateway.baseUrl.replaceAll(".", "\\.")}/oauth/start/${flowId}\\?t=`,
      ),
    );
    const theirs = await cli(["accounts", "connect", flowId, "--as", other.id]);
    expect(theirs.code).toBe(1);
    expect(theirs.err).toContain("not_found");
    const withoutAs = await cli(["accounts", "connect", flowId]);
    expect(withoutAs.code).toBe(2);
  }, 60_000);
});
