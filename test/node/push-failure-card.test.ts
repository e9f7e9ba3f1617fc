/**
 * A pushed call whose webhook keeps failing, on the live page in a real
 * headless Chromium against a real `npm run dev`: the card says the push
 * failed, why, and that it is tried again; the run record has the note. The
 * receiver is a local server that answers 503 to everything. A screenshot
 * goes to SWITCHBOARD_SCREENSHOTS (default: a folder in the system's tmp).
 */
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { signToken } from "../../client/src/index";
import { pageLink } from "../../cli/src/commands";
import { launchChromium } from "./chromium";
import { admin, gateway, spaceEvent } from "./gateway";

const shots = process.env.SWITCHBOARD_SCREENSHOTS ?? join(tmpdir(), "switchboard-push-failure");
mkdirSync(shots, { recursive: true });

let browser: Browser;
let receiver: Server;
let pushes = 0;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  receiver = createServer((request, response) => {
    pushes += 1;
    request.resume();
    response.writeHead(503).end("down for maintenance");
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe("a failed push on the page", () => {
  it("the card says the push to its webhook failed and why, and the run record notes it", async () => {
    const address = receiver.address();
    if (typeof address !== "object" || address === null) throw new Error("the receiver has no address");
    const person = await admin.entities.create({ type: "human", name: "Noor" });
    const agent = await admin.agents.create({ agent: { name: "Dispatcher" }, model: { provider: "scripted", turns: [] } });
    const space = await admin.spaces.create({ name: "Dispatch", memberIds: [person.id, agent.id] });
    await admin.agents.update(agent.id, {
      agent: { name: "Dispatcher" },
      model: {
        provider: "scripted",
        turns: [
          {
            toolCalls: [
              { name: "enter_space", args: { spaceId: space.id } },
              { name: "confirm_pickup", args: { parcel: "P-17" } },
            ],
          },
          { toolCalls: [{ name: "skip", args: {} }] },
        ],
      },
      tools: [
        {
          name: "confirm_pickup",
          description: "Ask the depot to confirm a pickup",
          executionType: "space",
          timeout: 120_000,
          inputSchema: { type: "object", properties: { parcel: { type: "string" } } },
          execution: { webhook: `http://127.0.0.1:${address.port}/depot` },
        },
      ],
    });

    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    onTestFinished(() => context.close());
    const page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    const token = await signToken(person.id, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" });
    await page.goto(pageLink(gateway.baseUrl, gateway.vars.GATEWAY_PUBLIC_KEY, token, space.id));
    await page.locator('#connection[data-status="open"]').waitFor({ timeout: 20_000 });

    await admin.agents.pushInbox(agent.id, { go: true });
    const card = page.locator('.tool-card[data-tool-name="confirm_pickup"]');
    const note = card.locator(".card-notes .note-push-failed");
    await note.waitFor({ timeout: 20_000 });
    expect(await note.textContent()).toMatch(/^Pushing this call to its webhook failed \(attempt \d+, .+\): HTTP 503\. Trying again\.$/);
    expect(await card.getAttribute("data-status")).toBe("requires_action");
    await card.screenshot({ path: join(shots, "push-failed-card.png") });
    expect(pushes).toBeGreaterThan(0);

    // The run record says it too, with the call's id.
    const toolCallId = (await card.getAttribute("data-tool-call-id")) ?? "";
    const started = await spaceEvent(space.id, "agent.cycle.started", (event) => event.data.agentEntityId === agent.entityId);
    const run = await admin.runs.get(started.data.runId);
    expect(run.notes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "push_failed", message: expect.stringContaining(`call ${toolCallId} (confirm_pickup) to its webhook failed on attempt 1: HTTP 503`) }),
      ]),
    );

    // Answered, the call needs no push any more: the retries stop with it.
    await admin.submitToolResult(started.data.runId, toolCallId, { confirmed: true });
    await card.locator(".badge", { hasText: "complete" }).waitFor({ timeout: 20_000 });
    expect(pageErrors).toEqual([]);
  });
});
