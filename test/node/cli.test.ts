/**
 * `switchboard`, the CLI, as a developer uses it next to `npm run dev`: the
 * defaults come from the keys file, the URL and the demo's ids; each command
 * against the real gateway; failures that say what to do.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verify } from "hono/jwt";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { runCli } from "../../cli/src/main";
import type { AgentConfigInput, ModelConfigInput, ToolConfigInput } from "../../client/src/index";
import { agentEvent, receiver, subscriptionDeadLetter } from "./dead-letters";
import { admin, gateway, personInSpace } from "./gateway";

type Run = { code: number; out: string; err: string };

/** Runs the CLI in-process with this world's state folder as its defaults. */
async function cli(args: string[], options: { env?: Record<string, string>; signal?: AbortSignal; onOut?: (all: string) => void } = {}): Promise<Run> {
  let out = "";
  let err = "";
  const code = await runCli(args, {
    out: (text) => {
      out += text;
      options.onOut?.(out);
    },
    err: (text) => (err += text),
    cwd: tmpdir(),
    env: { SWITCHBOARD_URL: gateway.baseUrl, SWITCHBOARD_STATE_DIR: world.stateDir, ...options.env },
    signal: options.signal,
  });
  return { code, out, err };
}

const askTool: ToolConfigInput = {
  name: "pick_colour",
  description: "Ask the person for a colour",
  executionType: "space",
  timeout: 60_000,
  inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
  resultSchema: { type: "object", properties: { colour: { type: "string", enum: ["red", "blue"] } }, required: ["colour"] },
};

const world = { stateDir: "", personId: "", spaceId: "", agentId: "", agentEntityId: "" };

/** A new empty folder, removed when the test ends. */
function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

beforeAll(async () => {
  const agentBody: AgentConfigInput & { model: Extract<ModelConfigInput, { provider: "scripted" }> } = {
    agent: { name: "CLI agent" },
    model: {
      provider: "scripted",
      turns: [],
    },
    tools: [askTool],
  };
  const agent = await admin.agents.create(agentBody);
  const { personId, spaceId } = await personInSpace("Cleo", [agent.entityId]);
  agentBody.model.turns = [
    {
      toolCalls: [
        { name: "enter_space", args: { spaceId } },
        { name: "send_message", args: { text: "Which colour do you like?" } },
        { name: "pick_colour", args: { question: "Red or blue?" } },
      ],
    },
    {
      toolCalls: [
        { name: "send_message", args: { text: "Noted, thank you." } },
        { name: "skip", args: {} },
      ],
    },
  ];
  await admin.agents.update(agent.id, agentBody);
  // The whole file's state folder: opened here, removed after the last test.
  world.stateDir = mkdtempSync(join(tmpdir(), "switchboard-cli-"));
  Object.assign(world, { personId, spaceId, agentId: agent.id, agentEntityId: agent.entityId });
  writeFileSync(join(world.stateDir, "switchboard-demo.json"), JSON.stringify({ personId, spaceId, agentId: agent.id, agentEntityId: agent.entityId }));
});

afterAll(() => {
  if (world.stateDir) rmSync(world.stateDir, { recursive: true, force: true });
});

const withKeys = (args: string[]) => [...args, "--dev-vars", gateway.envFile];

describe("switchboard CLI", () => {
  it("say, watch and answer: streamed text and a tool card live, answered from the terminal, the agent carries on", async () => {
    const controller = new AbortController();
    const seen = (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`watch never printed ${pattern}; it printed:\n${watchOut}`)), 20_000);
        waiters.push({ pattern, done: () => (clearTimeout(timer), resolve()) });
        check(watchOut);
      });
    let watchOut = "";
    const waiters: { pattern: RegExp; done: () => void }[] = [];
    const check = (all: string) => {
      watchOut = all;
      for (const waiter of [...waiters]) {
        if (waiter.pattern.test(all)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.done();
        }
      }
    };
    const watching = cli(withKeys(["watch"]), { signal: controller.signal, onOut: check });
    onTestFinished(() => controller.abort());
    const said = await cli(withKeys(["say", "Hello from the terminal"]));
    expect(said).toMatchObject({ code: 0, err: "" });
    expect(said.out).toMatch(/^sent msg_\w+ \(seq \d+\) to spc_\w+\n$/);
    await seen(/Cleo: Hello from the terminal/);
    await seen(/CLI agent: Which colour do you like\?\n/);
    await seen(/pick_colour\(\{"question":"Red or blue\?"\}\) requires_action/);

    const listed = await cli(withKeys(["answer"]));
    expect(listed.code).toBe(0);
    const callId = /^(call_\w+)\s+pick_colour/m.exec(listed.out)?.[1];
    expect(callId, listed.out).toBeDefined();
    expect(listed.out).toContain('"enum":["red","blue"]');

    const notJson = await cli(withKeys(["answer", callId as string, "{colour: red}"]));
    expect(notJson.code).toBe(2);
    expect(notJson.err).toContain("not JSON");

    const answered = await cli(withKeys(["answer", callId as string, '{"colour":"blue"}']));
    expect(answered).toMatchObject({ code: 0, out: `answered ${callId}\n` });
    await seen(/pick_colour\(\{"question":"Red or blue\?"\}\) complete → \{"colour":"blue"\}/);
    await seen(/CLI agent: Noted, thank you\./);
    controller.abort();
    expect((await watching).code).toBe(0);
    // Streamed text is written once, as it arrives, not again when the message is stored.
    expect(watchOut.match(/Which colour do you like\?/g)).toHaveLength(1);
  });

  it("spaces, agents, entities and runs list what exists; runs show a failed run's error", async () => {
    const failing = await admin.agents.create({ agent: { name: "Keyless" }, model: { provider: "openai", name: "gpt-4o-mini" } });
    const stream = admin.subscribeAgent(failing.id, { afterSeq: 0 });
    onTestFinished(() => stream.close());
    const finished = new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error("the keyless agent's run did not finish within 20 s")), 20_000);
      stream.on("event", (event) => {
        if (event.type !== "agent.cycle.finished") return;
        clearTimeout(deadline);
        resolve();
      });
    });
    await admin.agents.pushInbox(failing.id, {});
    await finished;
    stream.close();

    const spaces = await cli(withKeys(["spaces"]));
    expect(spaces.code).toBe(0);
    expect(spaces.out).toMatch(new RegExp(`${world.spaceId}\\s+Cleo's room\\s+2`));
    const mine = await cli(withKeys(["spaces", "--as", "person", "--json"]));
    expect(JSON.parse(mine.out).map((space: { id: string }) => space.id)).toEqual([world.spaceId]);
    const agents = await cli(withKeys(["agents"]));
    expect(agents.out).toMatch(new RegExp(`${world.agentId}\\s+${world.agentEntityId}\\s+CLI agent\\s+scripted`));
    const entities = await cli(withKeys(["entities", "--type", "agent"]));
    expect(entities.out).toContain(world.agentEntityId);
    expect(entities.out).not.toContain(world.personId);
    const runs = await cli(withKeys(["runs", failing.id]));
    expect(runs.code).toBe(0);
    expect(runs.out).toMatch(/run_\w+\s+failed\s+.*OPENAI_API_KEY/);
  });

  it("agents export > file, then agents import file: a new agent with the same config, goals and memories", async () => {
    const source = await admin.agents.create({ agent: { name: "Portable" }, model: { provider: "scripted", turns: [] }, tools: [askTool] });
    // The SDK's pair: a copy with goals and memories added to the document.
    const seeded = await admin.importAgent(
      { ...(await admin.exportAgent(source.id)), goals: [{ description: "Travel light", priority: 5 }], memories: [{ key: "home", value: "Lyon" }] },
      { name: "Portable seed" },
    );
    expect(seeded.name).toBe("Portable seed");
    const exported = await cli(withKeys(["agents", "export", seeded.id]));
    expect(exported).toMatchObject({ code: 0, err: "" });
    const document = JSON.parse(exported.out);
    expect(document).toMatchObject({ format: "switchboard.agent", version: 1, goals: [{ description: "Travel light", priority: 5 }], memories: [{ key: "home", value: "Lyon" }] });
    const file = join(temporaryFolder("switchboard-export-"), "agent.json");
    writeFileSync(file, exported.out);

    const imported = await cli(withKeys(["agents", "import", file, "--name", "Portable copy"]));
    expect(imported.code, imported.err).toBe(0);
    const [, id, entityId] = /^imported (agt_\w+) \(entity (ent_\w+)\) as "Portable copy"\n$/.exec(imported.out) ?? [];
    expect(id).toBeDefined();
    const copy = await admin.agents.get(id);
    expect(copy).toMatchObject({ id, entityId, name: "Portable copy" });
    expect(copy.config.tools).toEqual(document.agent.config.tools);
    expect((await admin.agents.goals(id)).goals).toMatchObject([{ description: "Travel light", priority: 5 }]);
    expect((await admin.agents.memories(id)).memories).toMatchObject([{ key: "home", value: "Lyon" }]);

    writeFileSync(file, JSON.stringify({ ...document, version: 2, notes: [{ path: "../escape.md", content: "x" }] }));
    const refused = await cli(withKeys(["agents", "import", file]));
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("validation_error");
    expect(refused.err).toContain("- document.version:");
    expect(refused.err).toContain("- document.notes.0.path:");
    const missing = await cli(withKeys(["agents", "export"]));
    expect(missing.code).toBe(2);
  });

  it("token and link make credentials the gateway accepts", async () => {
    const token = await cli(withKeys(["token", world.personId, "--expires-in", "10m"]));
    expect(token.code).toBe(0);
    const payload = await verify(token.out.trim(), gateway.vars.JWT_SECRET, "HS256");
    expect(payload.sub).toBe(world.personId);
    expect(Number(payload.exp) - Number(payload.iat)).toBe(600);
    const link = await cli(withKeys(["link"]));
    const url = new URL(link.out.trim());
    expect(url.origin).toBe(gateway.baseUrl);
    const fragment = new URLSearchParams(url.hash.slice(1));
    expect(fragment.get("publicKey")).toBe(gateway.vars.GATEWAY_PUBLIC_KEY);
    expect((await verify(fragment.get("token") as string, gateway.vars.JWT_SECRET, "HS256")).sub).toBe(world.personId);
  });

  it("fails loudly, saying what to do", async () => {
    const down = await cli(withKeys(["spaces"]), { env: { SWITCHBOARD_URL: "http://127.0.0.1:9" } });
    expect(down.code).toBe(1);
    expect(down.err).toContain("network_error");
    expect(down.err).toContain("npm run dev");
    const wrongKeys = temporaryFolder("switchboard-keys-");
    writeFileSync(join(wrongKeys, "dev.vars"), "GATEWAY_SECRET_KEY=not-the-key\n");
    const refused = await cli(["agents", "--dev-vars", join(wrongKeys, "dev.vars")]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/unauthorized[\s\S]*Restart `npm run dev`/);
    const noKeys = await cli(["agents"]);
    expect(noKeys.code).toBe(1);
    expect(noKeys.err).toContain("GATEWAY_SECRET_KEY is needed");
    const unknown = await cli(withKeys(["fly"]));
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('Unknown command "fly"');
    const noDemo = await cli(withKeys(["say", "hi"]), { env: { SWITCHBOARD_STATE_DIR: temporaryFolder("switchboard-empty-") } });
    expect(noDemo.code).toBe(1);
    expect(noDemo.err).toContain("npm run dev");
  });

  it("dead-letters lists the deliveries that gave up; dead-letters redeliver delivers one again, once", async () => {
    const listening = await receiver(200);
    try {
      const seeded = await subscriptionDeadLetter(listening.url);
      const listed = await cli(withKeys(["dead-letters", seeded.agentId]));
      expect(listed.code, listed.err).toBe(0);
      expect(listed.out).toMatch(/^id\s+status\s+type\s+to\s+attempts\s+deadAt\s+error$/m);
      expect(listed.out).toMatch(new RegExp(`^${seeded.id}\\s+dead\\s+run\\.completed\\s+${seeded.subscriptionId}\\s+8\\s+\\S+\\s+HTTP 503$`, "m"));
      const delivered = agentEvent(seeded.agentId, "webhook.delivered", (data) => data.webhookId === seeded.webhookId);
      const redelivered = await cli(withKeys(["dead-letters", "redeliver", seeded.id]));
      expect(redelivered.code, redelivered.err).toBe(0);
      expect(redelivered.out).toBe(`${seeded.id}: redelivering to ${listening.url} (webhook-id ${seeded.webhookId}; watch it with \`switchboard dead-letters\`)\n`);
      await delivered;
      expect((await cli(withKeys(["dead-letters", seeded.agentId, "--json"]))).out).toContain('"status": "delivered"');
      expect(listening.pushes.map((push) => push.headers["webhook-id"])).toEqual([seeded.webhookId]);
      const again = await cli(withKeys(["dead-letters", "redeliver", seeded.id]));
      expect(again.out).toContain("already delivered");
      expect(listening.pushes).toHaveLength(1);

      const missingId = await cli(withKeys(["dead-letters", "redeliver"]));
      expect(missingId.code).toBe(2);
      expect(missingId.err).toContain("dead-letters redeliver needs the dead letter's id");
      const unknown = await cli(withKeys(["dead-letters", "redeliver", `dlt_${"0".repeat(32)}`]));
      expect(unknown.code).toBe(1);
      expect(unknown.err).toMatch(/not_found: Dead letter "dlt_0+" not found/);
      const none = await cli(withKeys(["dead-letters", world.agentId]));
      expect(none.out).toContain(`No dead letters for ${world.agentId}`);
    } finally {
      await listening.close();
    }
  });

  it("the installed bin runs on plain Node (the built file)", () => {
    const result = spawnSync(process.execPath, ["cli/bin/switchboard.mjs", "spaces", "--url", gateway.baseUrl, "--dev-vars", gateway.envFile, "--json"], {
      cwd: join(import.meta.dirname, "..", ".."),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).map((space: { id: string }) => space.id)).toContain(world.spaceId);
    const help = spawnSync(process.execPath, ["cli/bin/switchboard.mjs", "--help"], { cwd: join(import.meta.dirname, "..", ".."), encoding: "utf8", timeout: 30_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("switchboard watch");
  });
});
