/**
 * A person connects an account from a card, in a real headless Chromium
 * against a real `npm run dev`, on the demo's own servers (what a reader
 * gets by hand): Demo notes, an MCP server that takes only the bearer
 * tokens of a local authorization server (oidc-provider). An agent's call
 * of `notes__whoami` acts as the person who asked: the card asks them to
 * connect; the Connect button opens the authorization server's log-in and
 * consent pages in a new tab; once they are through, the call that waited
 * completes with what the server says about that person, and the agent goes
 * on. Then the token the gateway holds is read from its sealed row (opened
 * with the gateway's own key) and looked for everywhere else: every file of
 * the dev server's state (D1, the objects' storage), its console, the run
 * records, the space's messages, the agent's export, and every frame the
 * page received. It is in none. Screenshots go to SWITCHBOARD_SCREENSHOTS.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signToken } from "../../client/src/index";
import { pageLink } from "../../cli/src/commands";
import { demoNotesServer, notesTexts } from "../../scripts/seed-demo.mjs";
import { tokenCipherFor } from "../../src/accounts/token-cipher";
import { launchChromium } from "./chromium";
import { admin, devLog, gateway, memberClient, spaceEvent } from "./gateway";
import { queryLocalD1 } from "./local-d1";

const shots = process.env.SWITCHBOARD_SCREENSHOTS ?? join(tmpdir(), "switchboard-connect-account");
mkdirSync(shots, { recursive: true });

let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
const frames: string[] = [];
const world = { personId: "", spaceId: "", agentId: "", notesUrl: "" };

beforeAll(async () => {
  // The demo agent is pointed at Demo notes by `npm run dev`: the same server, for an agent of this test's own.
  const demo = await admin.agents.get(gateway.demo.agentId);
  const notes = (demo.config.mcp?.servers ?? []).find((server) => server.name === "notes");
  expect(notes?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  world.notesUrl = notes?.url ?? "";
  const person = await admin.entities.create({ type: "human", name: "Robin" });
  const space = await admin.spaces.create({ name: "Robin's notes room", memberIds: [person.id] });
  const agent = await admin.agents.create({
    agent: { name: "Notes helper" },
    model: {
      provider: "scripted",
      turns: [
        {
          toolCalls: [
            { name: "enter_space", args: { spaceId: space.id } },
            { name: "send_message", args: { text: notesTexts.ask } },
            { name: "notes__whoami", args: {} },
          ],
        },
        {
          toolCalls: [
            { name: "send_message", args: { text: notesTexts.done } },
            { name: "skip", args: {} },
          ],
        },
      ],
    },
    mcp: { servers: [demoNotesServer(world.notesUrl)] },
  });
  await admin.spaces.addMember(space.id, agent.entityId);
  Object.assign(world, { personId: person.id, spaceId: space.id, agentId: agent.id });

  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("websocket", (socket) => socket.on("framereceived", (frame) => frames.push(String(frame.payload))));
  const token = await signToken(person.id, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" });
  await page.goto(pageLink(gateway.baseUrl, gateway.vars.GATEWAY_PUBLIC_KEY, token, space.id));
  await page.locator('#connection[data-status="open"]').waitFor({ timeout: 20_000 });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
});

const shoot = (target: Page, name: string) => target.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

/** Every file under `directory`, as text (binary files too: a token in a SQLite page is plain bytes). */
function everyFile(directory: string): { path: string; text: string }[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return everyFile(path);
    return [{ path, text: readFileSync(path).toString("latin1") }];
  });
}

describe("connecting an account from a card", () => {
  it("the card asks the person; Connect opens the sign-in and consent pages; the call that waited completes as that person", async () => {
    const client = await memberClient(world.personId);
    await client.messages.send(world.spaceId, { text: "notes" });
    const card = page.locator('.tool-card[data-tool-name="notes__whoami"]');
    const connect = card.getByRole("button", { name: "Connect Demo notes" });
    await connect.waitFor({ timeout: 30_000 });
    await expect(card.locator(".badge").textContent()).resolves.toBe("connect your account");
    await expect(card.textContent()).resolves.toContain("The agent needs your Demo notes account to go on.");
    // The scopes the server's own challenge asks for, not every scope it supports.
    await expect(card.locator(".account-scopes").textContent()).resolves.toBe("It asks for: notes:read");
    await shoot(page, "1-card-asks");

    const [signIn] = await Promise.all([context.waitForEvent("page"), connect.click()]);
    await signIn.locator('input[name="login"]').waitFor({ timeout: 20_000 });
    await shoot(signIn, "2-sign-in");
    await signIn.locator('input[name="login"]').fill("robin");
    await signIn.locator('input[name="password"]').fill("any password");
    await signIn.locator('button[type="submit"]').click();
    const consent = signIn.locator('button[type="submit"]');
    await signIn
      .getByText(/Authorize|consent|Continue/i)
      .first()
      .waitFor({ timeout: 20_000 });
    await shoot(signIn, "3-consent");
    await consent.click();
    await signIn.getByRole("heading", { name: "Connected Demo notes" }).waitFor({ timeout: 20_000 });
    expect(new URL(signIn.url()).origin).toBe(new URL(gateway.baseUrl).origin);
    await shoot(signIn, "4-connected");

    // Back on the space: the card that waited shows what Demo notes says about Robin, and the agent goes on.
    await page.locator('.tool-card[data-tool-name="notes__whoami"][data-status="complete"]').waitFor({ timeout: 30_000 });
    await expect(card.textContent()).resolves.toContain("You are signed in to Demo notes as robin.");
    await spaceEvent(world.spaceId, "space.message", (event) => event.data.text === notesTexts.done, 30_000);
    await shoot(page, "5-call-completed");
    const runs = await admin.agents.runs(world.agentId);
    const calls = (runs.runs[0]?.toolCalls ?? []) as { toolName: string }[];
    const call = calls.find((entry) => entry.toolName === "notes__whoami");
    expect(call).toMatchObject({ status: "completed", result: { text: "You are signed in to Demo notes as robin." } });
    expect(pageErrors).toEqual([]);
  }, 150_000);

  it("the token is nowhere but its sealed row: not in the server's files, its console, the records, the messages, the export or the page's frames", async () => {
    const [row] = await queryLocalD1<{ sealed_tokens: string }>(
      `SELECT sealed_tokens FROM account_connections WHERE entity_id = '${world.personId}' AND connection_key = '${world.notesUrl}'`,
      "read the sealed connection",
    );
    expect(row?.sealed_tokens).toBeTruthy();
    const cipher = await tokenCipherFor({ ACCOUNTS_KEYS: gateway.vars.ACCOUNTS_KEYS });
    const opened = await cipher.open(row.sealed_tokens, { entityId: world.personId, connectionKey: world.notesUrl });
    if (!opened.ok) throw new Error(opened.message);
    const secrets = [opened.tokens.accessToken, ...(opened.tokens.refreshToken ? [opened.tokens.refreshToken] : [])];
    expect(opened.tokens.accessToken.length).toBeGreaterThan(20);

    const runs = await admin.agents.runs(world.agentId);
    const messages = await admin.messages.all(world.spaceId);
    const exported = await admin.exportAgent(world.agentId);
    const places: { where: string; text: string }[] = [
      ...everyFile(gateway.stateDir).map((file) => ({ where: file.path, text: file.text })),
      { where: "the dev console", text: devLog() },
      { where: "the run records", text: JSON.stringify(runs) },
      { where: "the space's messages", text: JSON.stringify(messages) },
      { where: "the agent's export", text: JSON.stringify(exported) },
      { where: "the page's frames", text: frames.join("\n") },
    ];
    expect(places.length).toBeGreaterThan(6);
    // The check can see a token: the sealed row's text is among the files, and it is found there.
    expect(places.some((place) => place.text.includes(row.sealed_tokens.slice(0, 40)))).toBe(true);
    const leaks = places.filter((place) => secrets.some((secret) => place.text.includes(secret))).map((place) => place.where);
    expect(leaks).toEqual([]);
  }, 120_000);
});
