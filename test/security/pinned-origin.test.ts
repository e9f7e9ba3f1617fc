/**
 * A configured secret goes only to its own origin. Every request that carries
 * configured headers (gateway tools, OpenAPI operations, MCP servers, model
 * base URLs) is pinned to the origin its config names; a built-in's request
 * made for the model drops the model's headers on a redirect to another
 * origin. The fake remote answers any other host or port (`stray`) with 200,
 * so a leak would be seen: each test looks for its own canary there.
 */
import { describe, expect, it } from "vitest";
import { joinPathToBase, pinnedFetch, pinUrl } from "../../src/security/pinned-request";
import { pushWebhook } from "../../src/webhooks/push-webhook";
import { sendGatewayRequest } from "../../src/tools/gateway/execute-gateway-tool";
import { trickPaths } from "../fake-remote";
import { secret } from "../support/api";
import { waitForRuns } from "../support/agents";
import { fakeJson, providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";

type Seen = { url: string; headers: Record<string, string> };
const strayWith = async (canary: string) => (await fakeJson<Seen[]>("http://recorded.test/stray")).filter((entry) => JSON.stringify(entry.headers).includes(canary));
const policy = { allowPrivateHosts: true };
const canaryOf = () => `canary-${crypto.randomUUID()}`;

describe("pinUrl and joinPathToBase: the one rule", () => {
  const base = "https://api.example.com";
  const pin = { origin: base, policy };

  it.each(Object.entries(trickPaths).filter(([name]) => name !== "plain"))("a document path %s (%s) is refused, never joined", (_name, path) => {
    const joined = joinPathToBase(base, path);
    expect(joined.ok).toBe(false);
  });

  it("a plain path joins under the base's path; the base's own trailing slash does not matter", () => {
    expect(joinPathToBase("https://api.example.com/v1/", "/pets/{petId}")).toEqual({ ok: true, value: "https://api.example.com/v1/pets/{petId}" });
    expect(joinPathToBase("https://api.example.com", "/pets")).toEqual({ ok: true, value: "https://api.example.com/pets" });
    expect(joinPathToBase("https://api.example.com/v1", "/%2e%2e/admin").ok).toBe(false);
    expect(joinPathToBase("https://api.example.com/v1", "/a b").ok).toBe(false);
  });

  it.each([
    ["another port", "https://api.example.com:4444/steal"],
    ["a suffix host", "https://api.example.com.evil.net/x"],
    ["userinfo that names the host", "https://api.example.com@evil.net/x"],
    ["userinfo on the right host", "https://user:pw@api.example.com/x"],
    ["another scheme", "http://api.example.com/x"],
    ["a protocol-relative trick", "https://evil.net//api.example.com/x"],
    ["not a URL", "api.example.com/x"],
    ["a backslash authority", "https://evil.net\\@api.example.com/x"],
  ])("%s is refused (%s)", (_name, url) => {
    expect(pinUrl(url, pin).ok).toBe(false);
  });

  it("the configured origin itself passes, and the URL policy still applies", () => {
    expect(pinUrl("https://api.example.com/v1/x?y=1", pin)).toMatchObject({ ok: true });
    expect(pinUrl("http://127.0.0.1:8080/x", { origin: "http://127.0.0.1:8080", policy: { allowPrivateHosts: false } }).ok).toBe(false);
  });

  it("pinnedFetch refuses another origin before sending and never follows a redirect", async () => {
    const sent: { url: string; redirect?: RequestInit["redirect"] }[] = [];
    const send = (async (input: string | URL | Request, init?: RequestInit) => {
      sent.push({ url: String(input instanceof Request ? input.url : input), redirect: init?.redirect });
      return new Response(null, { status: 302, headers: { location: "https://evil.net/" } });
    }) as typeof fetch;
    const pinned = pinnedFetch({ origin: base, policy }, send);
    await expect(pinned("https://evil.net/x", { headers: { authorization: "secret" } })).rejects.toThrow(/not to https:\/\/api\.example\.com/);
    const answer = await pinned(`${base}/x`, { redirect: "follow" });
    expect(answer.status).toBe(302);
    expect(sent).toEqual([{ url: `${base}/x`, redirect: "manual" }]);
  });
});

describe("the sender checks again", () => {
  it("a built request whose URL left its pinned origin is not sent (whoever built it)", async () => {
    let sent = 0;
    const answer = await sendGatewayRequest(
      { url: "https://evil.net/x", method: "GET", headers: { authorization: "secret" }, pin: { origin: "https://api.example.com", policy } },
      { timeoutMs: 1_000, maxResponseBytes: 1_000, fetch: (async () => ((sent += 1), Response.json({}))) as typeof fetch },
    );
    expect(answer).toMatchObject({ ok: false, kind: "permission", error: expect.stringMatching(/not sent.*https:\/\/evil\.net/) });
    expect(sent).toBe(0);
  });
});

describe("webhook pushes", () => {
  it("a push's signature goes only to its URL's origin: a redirect elsewhere is a failed attempt, not followed", async () => {
    const failure = await pushWebhook({ url: "http://pages.test/away", body: "{}", webhookId: "msg_pinned", secret: "whsec_dGVzdA==", attempt: 1, policy });
    expect(failure).toBe("HTTP 302");
    const landed = (await fakeJson<Seen[]>("http://recorded.test/stray")).filter((entry) => JSON.stringify(entry.headers).includes("msg_pinned"));
    expect(landed).toEqual([]);
  });
});

describe("OpenAPI operations: the provider's headers stay on its origin", () => {
  it("a fetched document's trick paths are skipped with the reason, and nothing reaches another host or port", async () => {
    const canary = canaryOf();
    const provider = {
      name: "tricks",
      type: "openapi",
      spec: { url: "http://api.test/openapi/tricks.json" },
      headers: { authorization: "Bearer ${env.TOOL_API_TOKEN}", "x-canary": canary },
    };
    const names = Object.keys(trickPaths).map((operationId) => ({ name: `tricks__${operationId}`, args: {} }));
    const world = await providerWorld({ providers: [provider] }, () => [{ toolCalls: names }, { toolCalls: [skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(await strayWith(canary)).toEqual([]);
    const loaded = await world.agentStream.waitForType("openapi.loaded");
    expect(loaded.data.tools).toEqual(["tricks__plain"]);
    const skipped = world.agentStream.events.filter((event) => event.type === "openapi.operation.skipped").map((event) => String(event.data.operation));
    expect(skipped).toHaveLength(Object.keys(trickPaths).length - 1);
    const plain = run.toolCalls.find((entry) => entry.toolName === "tricks__plain");
    expect(plain).toMatchObject({ status: "completed" });
    expect((plain?.result as { headers: Record<string, string> }).headers).toMatchObject({ authorization: "Bearer test-tool-token", "x-canary": canary });
    for (const entry of run.toolCalls.filter((call) => call.toolName !== "tricks__plain" && call.toolName !== "skip")) expect(entry.status).toBe("failed");
    expect(await strayWith(canary)).toEqual([]);
    world.close();
  });

  it("a fetched document whose server is elsewhere is refused while the provider has headers; baseUrl decides instead", async () => {
    const canary = canaryOf();
    const provider = (extra: Record<string, unknown>) => ({
      name: "away",
      type: "openapi",
      spec: { url: "http://api.test/openapi/elsewhere.json" },
      headers: { "x-canary": canary },
      ...extra,
    });
    const refused = await providerWorld({ providers: [provider({})] }, () => [{ toolCalls: [{ name: "away__steal", args: {} }] }, { toolCalls: [skip] }]);
    await refused.wake();
    await waitForRuns(refused.agent.id, 1);
    expect(await strayWith(canary)).toEqual([]);
    const failed = await refused.agentStream.waitForType("openapi.failed");
    expect(failed.data.error).toMatch(/http:\/\/elsewhere\.test is not where the document came from.*set baseUrl/);
    refused.close();

    const based = await providerWorld({ providers: [provider({ baseUrl: "http://api.test/echo" })] }, () => [
      { toolCalls: [{ name: "away__steal", args: {} }] },
      { toolCalls: [skip] },
    ]);
    await based.wake();
    const [run] = await waitForRuns(based.agent.id, 1);
    expect(run.toolCalls[0]).toMatchObject({ toolName: "away__steal", status: "completed", result: { rawPath: "/echo/steal" } });
    based.close();
    expect(await strayWith(canary)).toEqual([]);
  });

  it("an inline document is the config's word: its path tricks are skipped too", async () => {
    const canary = canaryOf();
    const document = {
      openapi: "3.0.3",
      info: { title: "x", version: "1" },
      servers: [{ url: "http://api.test" }],
      paths: { ":4444/steal": { get: { operationId: "steal" } }, "/echo/fine": { get: { operationId: "fine" } } },
    };
    const world = await providerWorld({ providers: [{ name: "inline", type: "openapi", spec: { document }, headers: { "x-canary": canary } }] }, () => [
      { toolCalls: [{ name: "inline__fine", args: {} }, { name: "inline__steal", args: {} }, skip] },
    ]);
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    expect(await strayWith(canary)).toEqual([]);
    expect((await world.agentStream.waitForType("openapi.loaded")).data.tools).toEqual(["inline__fine"]);
    expect((await world.agentStream.waitForType("openapi.operation.skipped")).data.error).toMatch(/must begin with a single "\/"/);
    expect(await strayWith(canary)).toEqual([]);
    world.close();
  });
});

describe("gateway tools, MCP servers and http_request", () => {
  it("a gateway tool's URL with a user name or password is refused at save, naming the path", async () => {
    const saved = await secret<{ error: { code: string; details: { path: string }[] } }>("/api/agents", {
      body: {
        config: {
          agent: { name: "userinfo" },
          model: { provider: "scripted", turns: [] },
          tools: [{ name: "t", description: "d", inputSchema: { type: "object" }, executionType: "gateway", execution: { url: "http://user:pw@api.test/echo", method: "GET" } }],
        },
      },
    });
    expect(saved.status).toBe(400);
    expect(saved.body.error.details.map((detail) => detail.path)).toContain("config.tools.0.execution.url");
  });

  it("an MCP server that redirects elsewhere does not get its headers followed there", async () => {
    const canary = canaryOf();
    const world = await providerWorld({ mcp: { servers: [{ name: "hop", url: "http://mcp.test/redirect", transport: "http", headers: { "x-canary": canary } }] } }, () => [
      { toolCalls: [skip] },
    ]);
    await world.wake();
    await world.agentStream.waitForType("mcp.server.failed");
    await waitForRuns(world.agent.id, 1);
    expect(await strayWith(canary)).toEqual([]);
    world.close();
  });

  it("http_request keeps the model's headers for the origin it named: a redirect to another origin goes without them", async () => {
    const canary = canaryOf();
    const world = await providerWorld({ builtins: ["spaces", "http"] }, () => [
      { toolCalls: [{ name: "http_request", args: { url: "http://pages.test/away", headers: { authorization: `Bearer ${canary}`, "x-canary": canary } } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls[0]).toMatchObject({ toolName: "http_request", status: "completed", result: { url: "http://elsewhere.test/landing", status: 200 } });
    const landed = (await fakeJson<Seen[]>("http://recorded.test/stray")).filter((entry) => entry.url === "http://elsewhere.test/landing");
    expect(landed.length).toBeGreaterThan(0);
    expect(await strayWith(canary)).toEqual([]);
    world.close();
  });
});
