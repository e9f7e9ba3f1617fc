/**
 * `npm run dev` as the README promises it: it records its URL for the CLI,
 * prints the page's sign-in link and the CLI's commands (each line of its
 * start-up once), serves the page and the API reference from the same Worker
 * (API routes untouched), and prints a failed run's error in its console.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { admin, devLog, devLogLine, gateway } from "./gateway";

describe("npm run dev", () => {
  it("records its URL and prints the sign-in link and the CLI commands", () => {
    const recorded = JSON.parse(readFileSync(join(gateway.stateDir, "switchboard-dev.json"), "utf8"));
    expect(recorded.baseUrl).toBe(gateway.baseUrl);
    const log = devLog();
    expect(log).toContain(`${gateway.baseUrl}/#publicKey=${gateway.vars.GATEWAY_PUBLIC_KEY}&token=`);
    expect(log).toContain("npx switchboard watch");
    expect(log).toContain(`${gateway.baseUrl}/reference/`);
  });

  it("prints each line of its start-up once: the migrations in one line, then wrangler, the banner and the demo", () => {
    const lines = devLog().split("\n");
    // The start-up: up to the end of the demo's sign-in block (later lines are requests, reloads, failed runs).
    const link = lines.findIndex((line) => line.includes("/#publicKey="));
    const end = lines.findIndex((line, index) => index > link && line.startsWith("└"));
    expect(link).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(link);
    const startup = lines.slice(0, end + 1);
    const count = (part: string) => startup.filter((line) => line.includes(part)).length;
    const migrations = readdirSync(join(import.meta.dirname, "..", "..", "migrations")).filter((name) => name.endsWith(".sql"));
    expect(migrations.length).toBeGreaterThan(0);
    const once = [
      // The keys file: created, or (the node tests give it the examples' extra secrets first) completed.
      "GATEWAY_SECRET_KEY, GATEWAY_PUBLIC_KEY, JWT_SECRET, WEBHOOK_SECRET",
      "[dev] Applying D1 migrations to the local database",
      `[dev] Applied ${migrations.length} D1 migrations to the local database: `,
      ...migrations,
      "⛅️ wrangler",
      "Your Worker has access to the following bindings:",
      `Ready on ${gateway.baseUrl}`,
      "┌ Switchboard is running",
      `│ Operator console: ${gateway.baseUrl}/console`,
      "[dev] Seeding demo data",
      "[demo] Created the demo person, space and agent.",
      "/#publicKey=",
      "npx switchboard watch",
    ];
    expect(Object.fromEntries(once.map((part) => [part, count(part)]))).toEqual(Object.fromEntries(once.map((part) => [part, 1])));
  });

  it("serves the page and the API reference as static assets, and API routes still reach the Worker", async () => {
    const page = await fetch(`${gateway.baseUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain('<script type="module" src="/main.js">');
    const reference = await fetch(`${gateway.baseUrl}/reference/`);
    expect(await reference.text()).toContain("swagger-ui-bundle.js");
    expect((await fetch(`${gateway.baseUrl}/reference/swagger-ui-bundle.js`)).status).toBe(200);
    const health = await fetch(`${gateway.baseUrl}/health`);
    expect(await health.json()).toMatchObject({ ok: true });
    const openapi = await fetch(`${gateway.baseUrl}/openapi.json`);
    expect((await openapi.json()).openapi).toMatch(/^3\.1/);
    const missing = await fetch(`${gateway.baseUrl}/api/nothing-here`, { headers: { "x-secret-key": gateway.vars.GATEWAY_SECRET_KEY } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "route_not_found" } });
  });

  it("prints a failed run in its console, with the error and where to look", async () => {
    const agent = await admin.agents.create({ agent: { name: "Needs a key" }, model: { provider: "anthropic", name: "claude-sonnet-4-5" } });
    await admin.agents.pushInbox(agent.id, { hello: true });
    const line = await devLogLine("the failed run", (candidate) => candidate.includes(`${agent.id}): run run_`) && candidate.includes("failed"));
    expect(line).toContain("Needs a key");
    expect(line).toContain("ANTHROPIC_API_KEY");
    expect(devLog()).toContain(`npx switchboard runs ${agent.id}`);
  });
});

describe("a failed run where people look", () => {
  it("a run that fails for a missing API key is announced in the agent's spaces, with the error", async () => {
    const keyless = await admin.agents.create({ agent: { name: "Keyless" }, model: { provider: "anthropic", name: "claude-sonnet-4-5" } });
    const person = await admin.entities.create({ type: "human", name: "Kim" });
    const space = await admin.spaces.create({ name: "Keyless room", memberIds: [person.id, keyless.id] });
    const subscription = admin.subscribe(space.id, { afterSeq: 0 });
    try {
      const announced = new Promise<string>((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error("no agent.cycle.finished reached the space within 20 s")), 20_000);
        subscription.on("event", (event) => {
          if (event.type !== "agent.cycle.finished") return;
          clearTimeout(deadline);
          resolve(`${event.data.status}: ${event.data.error ?? ""}`);
        });
      });
      await admin.messages.send(space.id, { text: "hello", entityId: person.id });
      expect(await announced).toMatch(/^failed: .*ANTHROPIC_API_KEY/);
    } finally {
      subscription.close();
    }
  });
});
