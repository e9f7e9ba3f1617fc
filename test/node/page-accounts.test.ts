/**
 * Connected accounts in a real headless Chromium against a real `npm run
 * dev`: on the live page a person opens "Connected accounts" from the
 * spaces panel (at 360 and 390 px too), sees the empty state or their own
 * connections (never another person's, never a token), and revokes one
 * after saying yes to the question (Cancel revokes nothing); in the console
 * an operator sees everyone's, filters by entity (an agent by its agent id
 * too) and revokes one. axe-core finds nothing serious on any of these. The
 * connections are stored straight into the dev server's D1 (no route
 * creates one). Screenshots go to SWITCHBOARD_SCREENSHOTS (default: a
 * folder in the system's tmp).
 */
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signToken } from "../../client/src/index";
import { pageLink } from "../../cli/src/commands";
import { type SeededConnection, seedConnection } from "./account-connections";
import { launchChromium } from "./chromium";
import { admin, gateway } from "./gateway";
import { overflow, seriousViolations } from "./page-checks";

const shots = process.env.SWITCHBOARD_SCREENSHOTS ?? join(tmpdir(), "switchboard-page-accounts");
mkdirSync(shots, { recursive: true });

const emptyText = "No connected accounts. When an agent's tool needs one of your accounts, a card asks you to connect it.";

let browser: Browser;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];
const people = { dana: { id: "", spaceId: "" }, eli: { id: "", spaceId: "" }, fay: { id: "", spaceId: "" } };
const agent = { id: "", entityId: "" };
const seeded: SeededConnection[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  for (const [key, name] of [
    ["dana", "Dana"],
    ["eli", "Eli"],
    ["fay", "Fay"],
  ] as const) {
    const person = await admin.entities.create({ type: "human", name });
    const space = await admin.spaces.create({ name: `${name}'s room`, memberIds: [person.id] });
    people[key] = { id: person.id, spaceId: space.id };
  }
  const created = await admin.agents.create({ agent: { name: "Calendar agent" }, model: { provider: "scripted", turns: [] } });
  Object.assign(agent, { id: created.id, entityId: created.entityId });
  seeded.push(
    await seedConnection(people.eli.id, "https://mcp.issues.example.test/a/rather/long/path/to/the/mcp/endpoint", ["issues:read", "issues:write"]),
    await seedConnection(people.eli.id, "code-host", ["repo"]),
    await seedConnection(people.fay.id, "code-host", ["repo", "read:user"]),
    await seedConnection(agent.entityId, "calendar", ["calendar.events"]),
  );
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  expect(pageErrors).toEqual([]);
});

async function newPage(width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 780 } });
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(`${width}px: ${error.message}`));
  return page;
}

const shoot = (page: Page, name: string) => page.screenshot({ path: join(shots, `${name}.png`) });

/** The person's page, on their space, then on "Connected accounts" (through the Spaces toggle on a narrow screen), once the list is read. */
async function accountsPage(person: { id: string; spaceId: string }, width: number): Promise<Page> {
  const page = await newPage(width);
  const token = await signToken(person.id, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" });
  await page.goto(pageLink(gateway.baseUrl, gateway.vars.GATEWAY_PUBLIC_KEY, token, person.spaceId));
  await page.locator('#connection[data-status="open"]').waitFor({ timeout: 20_000 });
  const toggle = page.getByRole("button", { name: "Spaces" });
  if (await toggle.isVisible()) await toggle.click();
  await page.getByRole("button", { name: "Connected accounts" }).click();
  await page.locator('.connections-list[data-ready="true"]').waitFor();
  return page;
}

const tokens = () => seeded.flatMap((connection) => [connection.accessToken]);

describe("connected accounts on the live page", () => {
  it("at 360 and 390 px: reached from the spaces panel, the empty state says how one gets connected, nothing wider than the screen", async () => {
    for (const width of [360, 390]) {
      const page = await accountsPage(people.dana, width);
      expect(await page.getByRole("heading", { name: "Connected accounts" }).isVisible()).toBe(true);
      expect(await page.locator(".connections li").allTextContents()).toEqual([emptyText]);
      // The panel folded away when the view was chosen; the entry shows which view is open.
      expect(await page.locator("#spaces-nav").isVisible()).toBe(false);
      expect(await page.locator("#accounts-link").getAttribute("aria-current")).toBe("page");
      expect(await overflow(page)).toEqual({ wider: [], scrollsSideways: false });
      expect(await seriousViolations(page)).toEqual([]);
      await shoot(page, `accounts-empty-${width}`);
      // The entry, in the open panel.
      await page.getByRole("button", { name: "Spaces" }).click();
      expect(await page.locator("#accounts-link").isVisible()).toBe(true);
      expect(await overflow(page)).toEqual({ wider: [], scrollsSideways: false });
      expect(await seriousViolations(page)).toEqual([]);
      await shoot(page, `accounts-spaces-open-${width}`);
      // And back to the space: its stream opens again, the live status shows, and the header still reads well.
      await page.locator("#spaces-nav .space-link", { hasText: "Dana's room" }).click();
      await page.locator('#connection[data-status="open"]').waitFor({ timeout: 20_000 });
      expect(await page.locator("#connection").isVisible()).toBe(true);
      expect(await page.locator("#accounts-link").getAttribute("aria-current")).toBeNull();
      expect(await seriousViolations(page)).toEqual([]);
      await page.context().close();
    }
  });

  it("lists the person's own connections and no token; Revoke asks first, Cancel keeps it, Revoke erases it and shows it revoked", async () => {
    const page = await accountsPage(people.eli, 390);
    const rows = page.locator(".connections li.account-connection");
    expect(await rows.evaluateAll((items) => items.map((item) => [item.getAttribute("data-connection-key"), item.getAttribute("data-state")]))).toEqual([
      ["code-host", "connected"],
      [seeded[0].connectionKey, "connected"],
    ]);
    const codeHost = page.locator('li.account-connection[data-connection-key="code-host"]');
    expect(await codeHost.locator(".connection-facts").innerText()).toMatch(/Scopes\s+repo\s+Issuer\s+http:\/\/127\.0\.0\.1:9\/issuer\s+Connected\s+.+\s+Expires\s+.+/);
    expect(await page.locator(".connection-facts dt", { hasText: "Whose" }).count()).toBe(0);
    const html = await page.content();
    for (const token of tokens()) expect(html).not.toContain(token);
    expect(html).not.toContain(people.fay.id);
    expect(await overflow(page)).toEqual({ wider: [], scrollsSideways: false });
    expect(await seriousViolations(page)).toEqual([]);
    await shoot(page, "accounts-390");

    await codeHost.getByRole("button", { name: "Revoke code-host" }).click();
    expect(await codeHost.locator(".confirm-question").textContent()).toBe("Revoke code-host? Tools that act as you there stop working until the account is connected again.");
    expect(await codeHost.getByRole("button", { name: "Cancel" }).evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shoot(page, "accounts-390-confirm");
    await codeHost.getByRole("button", { name: "Cancel" }).click();
    expect(await codeHost.locator(".confirm-question").count()).toBe(0);
    const eli = await admin.accounts.list({ entityId: people.eli.id });
    expect(eli.connections.map((connection) => connection.revokedAt)).toEqual([null, null]);

    await codeHost.getByRole("button", { name: "Revoke code-host" }).click();
    await codeHost.locator(".confirm-revoke").click();
    await page.locator('li.account-connection[data-connection-key="code-host"][data-state="revoked"]').waitFor();
    expect(await page.locator(".connections-status").textContent()).toBe("Revoked code-host. Its tokens are erased.");
    const revokedRow = page.locator('li.account-connection[data-connection-key="code-host"]');
    expect(await revokedRow.locator(".connection-facts").innerText()).toMatch(/Revoked\s+\S/);
    expect(await revokedRow.getByRole("button").count()).toBe(0);
    const after = await admin.accounts.list({ entityId: people.eli.id });
    expect(after.connections.map((connection) => [connection.connectionKey, connection.revokedAt === null])).toEqual([
      ["code-host", false],
      [seeded[0].connectionKey, true],
    ]);
    // Fay's connection to the same service is hers, untouched.
    expect((await admin.accounts.list({ entityId: people.fay.id })).connections[0].revokedAt).toBeNull();
    expect(await seriousViolations(page)).toEqual([]);
    await shoot(page, "accounts-390-revoked");
    await page.context().close();
  });
});

describe("the console's Connections", () => {
  it("shows everyone's, filters to one entity (an agent by its agent id too), and revokes one with its entity named; never a token", async () => {
    const page = await newPage(1280);
    await page.goto(`${gateway.baseUrl}/console`);
    await page.fill("#secretKey", gateway.vars.GATEWAY_SECRET_KEY);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator('#console-main[data-ready="true"]').waitFor();
    await page.getByRole("link", { name: "Connections" }).click();
    await page.waitForFunction(() => location.hash === "#connections" && document.getElementById("console-main")?.dataset.ready === "true");
    for (const [entityId, key] of [
      [people.eli.id, "code-host"],
      [people.fay.id, "code-host"],
      [agent.entityId, "calendar"],
    ])
      expect(await page.locator(`li.account-connection[data-entity-id="${entityId}"][data-connection-key="${key}"]`).count()).toBe(1);
    for (const token of tokens()) expect(await page.content()).not.toContain(token);

    await page.fill("#connections-entity", people.fay.id);
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForFunction((hash) => location.hash === hash && document.getElementById("console-main")?.dataset.ready === "true", `#connections/${people.fay.id}`);
    expect(await page.locator("li.account-connection").evaluateAll((items) => items.map((item) => item.getAttribute("data-entity-id")))).toEqual([people.fay.id]);
    const fays = page.locator("li.account-connection");
    expect(await fays.locator(".connection-facts").innerText()).toMatch(new RegExp(`Whose\\s+${people.fay.id}\\s+Scopes\\s+repo read:user`));
    expect(await seriousViolations(page)).toEqual([]);
    await shoot(page, "console-connections-fay");

    await fays.getByRole("button", { name: "Revoke code-host" }).click();
    expect(await fays.locator(".confirm-question").textContent()).toContain(`Tools that act as ${people.fay.id} there stop working`);
    await fays.locator(".confirm-revoke").click();
    await page.locator('li.account-connection[data-state="revoked"]').waitFor();
    expect(await page.locator(".connections-status").textContent()).toBe(`Revoked code-host for ${people.fay.id}. Its tokens are erased.`);
    expect((await admin.accounts.list({ entityId: people.fay.id })).connections[0].revokedAt).not.toBeNull();

    await page.evaluate((hash) => (location.hash = hash), `#connections/${agent.id}`);
    await page.waitForFunction((hash) => location.hash === hash && document.getElementById("console-main")?.dataset.ready === "true", `#connections/${agent.id}`);
    expect(
      await page.locator("li.account-connection").evaluateAll((items) => items.map((item) => [item.getAttribute("data-entity-id"), item.getAttribute("data-connection-key")])),
    ).toEqual([[agent.entityId, "calendar"]]);
    expect(await page.inputValue("#connections-entity")).toBe(agent.entityId);
    await page.evaluate(() => (location.hash = "#connections/agt_nobody"));
    await page.waitForFunction(() => location.hash === "#connections/agt_nobody" && document.getElementById("console-main")?.dataset.ready === "true");
    expect(await page.locator("#console-main .problems").first().textContent()).toMatch(/^No agent agt_nobody: /);
    await page.context().close();
  });
});
