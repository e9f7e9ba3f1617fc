import { describe, expect, it } from "vitest";
import { createHttpTools } from "../../../src/tools/builtins/http-tools";
import { htmlToMarkdown } from "../../../src/tools/http/html-to-markdown";
import { sendOutboundRequest } from "../../../src/tools/http/outbound-request";
import { waitForRuns } from "../../support/agents";
import { callTool, catalogueAgent, defaultLimits, errorOf, okValue, toolContext } from "../../support/catalogue";

const http = createHttpTools(toolContext({ hop: 2 }));

describe("http_request", () => {
  it("sends method, headers and a JSON body; answers JSON as json, with status and headers", async () => {
    const answer = okValue<{ status: number; json: { method: string; headers: Record<string, string>; body: string } }>(
      await callTool(http, "http_request", { url: "http://api.test/echo/things", method: "POST", headers: { "X-Custom": "yes" }, body: { a: 1 } }, "model-call-7"),
    );
    expect(answer.status).toBe(200);
    expect(answer.json.method).toBe("POST");
    expect(JSON.parse(answer.json.body)).toEqual({ a: 1 });
    expect(answer.json.headers["content-type"]).toBe("application/json");
    expect(answer.json.headers["x-custom"]).toBe("yes");
    // One hop further than the cycle, and the call's id to recognise a write done again.
    expect(answer.json.headers["x-switchboard-hop"]).toBe("3");
    expect(answer.json.headers["idempotency-key"]).toMatch(/^call_/);
  });

  it("answers text as text, an error status as an answer (not a failure), other types as base64", async () => {
    expect(okValue(await callTool(http, "http_request", { url: "http://pages.test/plain" }))).toMatchObject({ status: 200, text: "just text\nline two" });
    expect(okValue(await callTool(http, "http_request", { url: "http://api.test/status/503" }))).toMatchObject({ status: 503, json: { error: "upstream says no" } });
    expect(okValue(await callTool(http, "http_request", { url: "http://pages.test/binary" }))).toMatchObject({ base64: "iVBORwECAw==", bytes: 7 });
    expect(okValue(await callTool(http, "http_request", { url: "http://pages.test/article", method: "HEAD" }))).not.toHaveProperty("text");
  });

  it("follows redirects of GET, checking each hop by the URL policy", async () => {
    expect(okValue(await callTool(http, "http_request", { url: "http://pages.test/redirect" }))).toMatchObject({ status: 200, url: "http://pages.test/article" });
    expect(errorOf(await callTool(http, "http_request", { url: "http://pages.test/loop" }))).toContain("Too many redirects");
    const refused = await sendOutboundRequest({
      url: "http://pages.test/to-private",
      method: "GET",
      timeoutMs: 5_000,
      maxBytes: 1_000,
      maxRedirects: 5,
      env: { ALLOW_PRIVATE_URLS: "false" },
    });
    expect(refused).toMatchObject({ ok: false, error: expect.stringContaining("Cannot call http://127.0.0.1:9/secret") });
    const direct = await sendOutboundRequest({
      url: "http://localhost:8787/api/agents",
      method: "GET",
      timeoutMs: 5_000,
      maxBytes: 1_000,
      maxRedirects: 5,
      env: { ALLOW_PRIVATE_URLS: "false" },
    });
    expect(direct).toMatchObject({ ok: false, error: expect.stringContaining("ALLOW_PRIVATE_URLS") });
    expect(errorOf(await callTool(http, "http_request", { url: "file:///etc/passwd" }))).toContain("http(s)");
  });

  it("http_get and http_post are http_request with the method set, answering the catalogue's body beside json and text", async () => {
    const got = okValue<{ status: number; body: { method: string; headers: Record<string, string> }; json: unknown }>(
      await callTool(http, "http_get", { url: "http://api.test/echo/items", headers: { "X-Custom": "get" } }),
    );
    expect(got).toMatchObject({ status: 200, body: { method: "GET", headers: { "x-custom": "get" } } });
    expect(got.body).toEqual(got.json);
    const posted = okValue<{ body: { method: string; body: string; headers: Record<string, string> } }>(
      await callTool(http, "http_post", { url: "http://api.test/echo/items", body: { a: 1 } }, "model-call-8"),
    );
    expect(posted.body).toMatchObject({ method: "POST", headers: { "content-type": "application/json", "idempotency-key": expect.stringMatching(/^call_/) } });
    expect(JSON.parse(posted.body.body)).toEqual({ a: 1 });
    expect(okValue(await callTool(http, "http_get", { url: "http://pages.test/plain" }))).toMatchObject({ body: "just text\nline two", text: "just text\nline two" });
    // The same outbound rules: URL policy, reserved headers.
    expect(errorOf(await callTool(http, "http_get", { url: "file:///etc/passwd" }))).toContain("http(s)");
    expect(errorOf(await callTool(http, "http_post", { url: "http://api.test/echo/x", headers: { host: "elsewhere" } }))).toContain("cannot be set");
  });

  it("is bounded: a hang times out, a 10 MB answer is cut at the limit, reserved headers are refused", async () => {
    expect(errorOf(await callTool(http, "http_request", { url: "http://api.test/hang", timeoutMs: 200 }))).toBe("The request timed out after 200ms");
    const small = createHttpTools(toolContext({ config: { limits: { ...defaultLimits, toolResponseMaxBytes: 4_000 } } }));
    const big = okValue<{ truncated: boolean; bytes: number; text: string }>(await callTool(small, "http_request", { url: "http://api.test/big" }));
    expect(big).toMatchObject({ truncated: true, bytes: 4_000 });
    expect(big.text).toHaveLength(4_000);
    expect(errorOf(await callTool(http, "http_request", { url: "http://api.test/echo", headers: { Host: "evil.test" } }))).toContain('"Host" cannot be set');
    expect(errorOf(await callTool(http, "http_request", { url: "http://api.test/echo", headers: { "x-switchboard-hop": "0" } }))).toContain("cannot be set");
    expect(errorOf(await callTool(http, "http_request", { url: "http://api.test/echo", body: "x" }))).toContain("A GET request has no body");
  });
});

describe("fetch_page", () => {
  it("returns a page's readable markdown and title; scripts, styles and templates are dropped", async () => {
    const page = okValue<{ title: string; content: string; url: string; status: number }>(await callTool(http, "fetch_page", { url: "http://pages.test/redirect" }));
    expect(page.url).toBe("http://pages.test/article");
    expect(page.title).toBe("The Switchboard & friends");
    expect(page.content).toContain("# Switchboard — a gateway");
    expect(page.content).toContain("Agents **meet** people in _spaces_. Read [the intro](http://pages.test/docs/intro) & more.");
    expect(page.content).toContain("- First item\n- Second item");
    expect(page.content).toContain("```\nconst x = 1;\n  indented();\n```");
    expect(page.content).toContain("| Name | Role |");
    expect(page.content).toContain("| Ada | engineer |");
    expect(page.content).toContain("![The logo](http://pages.test/logo.png)");
    expect(page.content).toContain("Café é ☺ <tag>");
    for (const dropped of ["alert", "color: red", "console.log", "hidden template", "Enable JavaScript"]) expect(page.content).not.toContain(dropped);
  });

  it("text format drops the markup; maxChars cuts; plain text passes; other types and 404 are errors", async () => {
    const text = okValue<{ content: string }>(await callTool(http, "fetch_page", { url: "http://pages.test/article", format: "text" }));
    expect(text.content).toContain("Switchboard — a gateway");
    expect(text.content).not.toMatch(/\]\(|^# /m);
    expect(okValue(await callTool(http, "fetch_page", { url: "http://pages.test/article", maxChars: 100 }))).toMatchObject({ truncated: true, content: expect.any(String) });
    expect(okValue<{ content: string }>(await callTool(http, "fetch_page", { url: "http://pages.test/article", maxChars: 100 })).content.length).toBe(100);
    expect(okValue(await callTool(http, "fetch_page", { url: "http://pages.test/plain" }))).toMatchObject({ content: "just text\nline two" });
    expect(errorOf(await callTool(http, "fetch_page", { url: "http://pages.test/binary" }))).toContain("is not a page");
    expect(errorOf(await callTool(http, "fetch_page", { url: "http://pages.test/missing" }))).toBe("HTTP 404 from pages.test");
  });

  it("survives HTML without end tags and with void elements written as self-closed", async () => {
    const page = await htmlToMarkdown("<p>one<p>two<br/>three<ul><li>a<li>b</ul><hr/><img src='x.png' alt='pic'/><a href='javascript:alert(1)'>js</a>", "http://x.test/");
    expect(page.text).toContain("one");
    expect(page.text).toContain("two\nthree");
    expect(page.text).toContain("- a");
    expect(page.text).toContain("![pic](http://x.test/x.png)");
    expect(page.text).not.toContain("javascript:");
  });

  it("runs inside a cycle like any built-in (an agent with the http group)", async () => {
    const world = await catalogueAgent({ builtins: ["spaces", "http"] }, () => [
      {
        toolCalls: [
          { name: "fetch_page", args: { url: "http://pages.test/article" } },
          { name: "skip", args: {} },
        ],
      },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls[0]).toMatchObject({ toolName: "fetch_page", status: "completed", result: { title: "The Switchboard & friends" } });
  });
});
