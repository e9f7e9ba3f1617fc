/**
 * Nothing a model, a config or an upstream document supplies can hold the
 * isolate: each trick goes through the real tools and routes and must come
 * back (answered or refused) within the test's timeout. On the JavaScript
 * engine's backtracking expressions each of these took from minutes to
 * longer than the universe has, with the whole gateway (its health check
 * included) frozen meanwhile. Where a bound is a budget, the budget is what
 * is asserted, never a time.
 */
import { describe, expect, it } from "vitest";
import { createFileTools } from "../../src/tools/builtins/file-tools";
import { createDataTools } from "../../src/tools/builtins/data-tools";
import { createHttpTools } from "../../src/tools/builtins/http-tools";
import { maxQuerySteps } from "../../src/tools/builtins/json-query";
import { maxCsvCells } from "../../src/tools/builtins/csv";
import { headOf } from "../../src/tools/engine/limit-output";
import { secret } from "../support/api";
import { waitForRuns } from "../support/agents";
import { callTool, errorOf, okValue, toolContext } from "../support/catalogue";
import { providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";
import { evilPattern, evilSubject } from "../fake-worst-case";

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });
/** The patterns that backtrack exponentially on the JavaScript engine (and a few that are only quadratic there). */
const evilPatterns = ["(a+)+$", "(a|a)*$", "(a|aa)*$", "^(a?){30}a{30}$", "(\\w+\\s?)*$", "(.*a){20}!x"];
type Grep = { matches: { line: number; offset: number; text: string }[]; totalMatches: number; truncated: boolean; stoppedAt?: { line: number; offset: number }; note?: string };

describe("model-supplied patterns run on the linear-time engine", () => {
  it("read_output greps a stored output with each exponential pattern and answers; a backreference is refused", async () => {
    const limits = { toolResponseMaxBytes: 2_000 };
    const lines = {
      name: "lines",
      description: "lines",
      executionType: "gateway",
      visible: false,
      inputSchema: { type: "object" },
      execution: { url: "http://evil.test/lines/5000" },
    };
    const world = await providerWorld({ tools: [lines], limits }, () => [{ toolCalls: [call("lines"), skip] }]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1);
    const handle = (first.toolCalls[0].result as { handle: string }).handle;
    expect(handle).toMatch(/^out_/);

    await secret(`/api/agents/${world.agent.id}`, {
      method: "PUT",
      body: {
        config: {
          agent: { name: "Provided" },
          model: {
            provider: "scripted",
            turns: [
              {
                toolCalls: [...evilPatterns.map((grep) => call("read_output", { handle, grep, regex: true })), call("read_output", { handle, grep: "(a)\\1", regex: true }), skip],
              },
            ],
          },
          tools: [lines],
          limits,
        },
      },
    });
    await world.wake();
    const [, second] = await waitForRuns(world.agent.id, 2, 20_000);
    const greps = second.toolCalls.filter((entry) => entry.toolName === "read_output");
    expect(greps).toHaveLength(evilPatterns.length + 1);
    // Each line is `"aaa…a!",` or JSON punctuation: `(a+)+$` matches none, `(a|a)*$` (an empty match at the end) every one.
    for (const [index, pattern] of evilPatterns.entries()) {
      const result = greps[index].result as Grep;
      expect([pattern, result.stoppedAt, typeof result.totalMatches]).toEqual([pattern, undefined, "number"]);
    }
    expect((greps[0].result as Grep).totalMatches).toBe(0);
    expect((greps[1].result as Grep).totalMatches).toBe((first.toolCalls[0].result as { lines: number }).lines);
    expect(greps.at(-1)).toMatchObject({ status: "failed", error: expect.stringContaining("Backreferences are not supported") });
    world.close();
  });

  it("grep_files runs an exponential pattern over 5 MB of files and stops at its budget, saying where", async () => {
    const folder = `t${crypto.randomUUID().slice(0, 8)}/logs`;
    const files = createFileTools(toolContext({ config: { files: { prefixes: [folder], maxFileBytes: 2_000_000 } } }));
    const line = evilSubject(1_999);
    for (const name of ["a", "b", "c"])
      okValue(await callTool(files, "write_file", { path: `${folder}/${name}.log`, content: Array.from({ length: 800 }, () => line).join("\n") }));
    for (const pattern of ["(a+)+$", "(a|aa)*$"]) {
      const result = okValue<{ matches: unknown[]; filesSearched: number; truncated?: boolean; stoppedAt?: { path: string; line: number } }>(
        await callTool(files, "grep_files", { pattern, regex: true, maxMatches: 1_000 }),
      );
      // No line matches the first (every file searched, within the budget); every line matches the second (an empty match at the end).
      if (pattern === "(a+)+$") expect([result.filesSearched, result.matches, result.truncated, result.stoppedAt]).toEqual([3, [], undefined, undefined]);
      else expect([result.filesSearched, result.matches.length, result.truncated]).toEqual([2, 1_000, true]);
    }
    // A pattern whose automaton has a new state at every character: the one call's budget runs out before 4.8 MB is searched.
    const costly = okValue<{ truncated?: boolean; stoppedAt?: { path: string; line: number }; note?: string }>(
      await callTool(files, "grep_files", { pattern: "[a-z]{0,1000}[a-z]{0,1000}!x", regex: true }),
    );
    expect(costly).toMatchObject({
      truncated: true,
      stoppedAt: { path: expect.stringContaining(folder), line: expect.any(Number) },
      note: expect.stringContaining("stopped early"),
    });
    expect(errorOf(await callTool(files, "grep_files", { pattern: "(?<=a)b", regex: true }))).toContain("Lookbehind");
  });
});

describe("schemas from configs, MCP servers and OpenAPI documents", () => {
  it("a config tool's evil pattern is accepted and checked on the linear engine; a lookahead, a fan-out of $refs are refused at save naming the path", async () => {
    const tool = (schema: Record<string, unknown>) => ({
      name: "lookup",
      description: "x",
      executionType: "gateway",
      visible: false,
      inputSchema: schema,
      execution: { url: "http://api.test/echo/lookup" },
    });
    const refuse = async (schema: Record<string, unknown>, path: unknown, message: string) => {
      const response = await secret<{ error: { code: string; details: { path: string; message: string }[] } }>("/api/agents", {
        body: { config: { agent: { name: "Schemer" }, model: { provider: "scripted", turns: [] }, tools: [tool(schema)] } },
      });
      expect(response.status).toBe(400);
      expect(response.body.error.details[0]).toMatchObject({ path, message: expect.stringContaining(message) });
    };
    await refuse({ type: "object", properties: { q: { type: "string", pattern: "(?=a)a" } } }, "config.tools.0.inputSchema.properties.q.pattern", "Lookahead");
    await refuse({ type: "object", patternProperties: { "(a)\\1": {} } }, "config.tools.0.inputSchema.patternProperties.(a)\\1", "Backreferences");
    // A $ref may land under any keyword: what it lands on is checked as well.
    await refuse(
      { type: "object", "x-hidden": { type: "string", pattern: "(?<!a)b" }, properties: { q: { $ref: "#/x-hidden" } } },
      "config.tools.0.inputSchema.x-hidden.pattern",
      "Lookbehind",
    );
    const definitions: Record<string, unknown> = { d30: { type: "string" } };
    for (let level = 0; level < 30; level += 1) definitions[`d${level}`] = { allOf: [{ $ref: `#/$defs/d${level + 1}` }, { $ref: `#/$defs/d${level + 1}` }] };
    await refuse(
      { type: "object", properties: { q: { $ref: "#/$defs/d0" } }, $defs: definitions },
      expect.stringMatching(/^config\.tools\.0\.inputSchema\.\$defs\.d\d+/),
      "validation would take too long",
    );

    const world = await providerWorld({ tools: [tool({ type: "object", properties: { q: { type: "string", pattern: evilPattern, format: "url" } }, required: ["q"] })] }, () => [
      { toolCalls: [call("lookup", { q: evilSubject(10_000) }), call("lookup", { q: `http://${evilSubject(30)}` }), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1, 20_000);
    const [subject, url] = run.toolCalls;
    expect(subject).toMatchObject({
      status: "failed",
      failureKind: "validation",
      error: expect.stringContaining(`/q: must be a valid url and match the pattern ${JSON.stringify(evilPattern)}`),
    });
    expect(url).toMatchObject({ status: "failed", failureKind: "validation" });
    world.close();
  });

  it("an MCP server's evil pattern is checked on the linear engine; its lookbehind and fan-out tools are skipped and reported; its evil outputSchema fails the call", async () => {
    const world = await providerWorld({ mcp: { servers: [{ name: "evil", url: "http://evil.test/mcp" }] } }, () => [
      { toolCalls: [call("evil__match", { text: evilSubject(10_000) }), call("evil__match", { text: "a".repeat(10_000) }), call("evil__shaped"), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1, 20_000);
    const connected = await world.agentStream.waitForType("mcp.server.connected");
    expect(connected.data).toMatchObject({ server: "evil", tools: ["evil__match", "evil__shaped"] });
    const skipped = world.agentStream.events.filter((event) => event.type === "mcp.tool.skipped").map((event) => event.data);
    expect(skipped).toEqual(
      expect.arrayContaining([
        { server: "evil", tool: "behind", error: expect.stringContaining("inputSchema.properties.text.pattern: Not a regular expression this gateway runs: Lookbehind") },
        { server: "evil", tool: "fanout", error: expect.stringContaining("validation would take too long") },
      ]),
    );
    const [bad, good, shaped] = run.toolCalls;
    expect(bad).toMatchObject({ status: "failed", failureKind: "validation", error: expect.stringContaining(`must match the pattern ${JSON.stringify(evilPattern)}`) });
    expect(good.status).toBe("completed");
    expect(shaped).toMatchObject({ status: "failed", error: expect.stringContaining("must match the pattern") });
    world.close();
  });

  it("an OpenAPI operation's evil pattern is checked on the linear engine; one with a lookahead, and one with a 200,000-character path, are skipped and reported", async () => {
    const world = await providerWorld({ providers: [{ name: "evil", type: "openapi", spec: { url: "http://evil.test/openapi.json" } }] }, () => [
      { toolCalls: [call("evil__find", { q: evilSubject(10_000) }), call("evil__find", { q: "aaaa" }), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1, 20_000);
    await world.agentStream.waitForType("openapi.loaded");
    const skipped = world.agentStream.events.filter((event) => event.type === "openapi.operation.skipped").map((event) => event.data);
    expect(skipped).toEqual([
      { provider: "evil", operation: expect.stringContaining("peek"), error: expect.stringContaining("Lookahead") },
      { provider: "evil", operation: expect.stringMatching(/^\/\{+…$/), error: "the path is longer than 2048 characters" },
    ]);
    const [bad, good] = run.toolCalls;
    expect(bad).toMatchObject({ status: "failed", failureKind: "validation", error: expect.stringContaining("/q: must match the pattern") });
    expect(good.result).toMatchObject({ query: { q: "aaaa" } });
    world.close();
  });
});

describe("data and pages", () => {
  it("json_query stops an expression whose work multiplies past its step budget, and answers the same expression on small data", async () => {
    const data = createDataTools(toolContext());
    const cubic = "map(&map(&map(&@, $), $), @)";
    const large = Array.from({ length: 1_000 }, (_, index) => index);
    expect(errorOf(await callTool(data, "json_query", { expression: cubic, data: large }))).toContain(`more than ${maxQuerySteps} steps`);
    const small = okValue<{ result: number[][][] }>(await callTool(data, "json_query", { expression: cubic, data: [1, 2] }));
    expect(small.result).toEqual([
      [
        [1, 2],
        [1, 2],
      ],
      [
        [1, 2],
        [1, 2],
      ],
    ]);
  });

  it("the head of a large output keeps a long run of replacement characters and drops only the character the cut split", () => {
    const text = `a${"\uFFFD".repeat(500_000)}b${"é".repeat(10)}`;
    const bytes = 1 + 3 * 500_000 + 1 + 2 * 3 + 1;
    const head = headOf(text, bytes);
    expect(head.length).toBe(1 + 500_000 + 1 + 3);
    expect(head.endsWith("ééé")).toBe(true);
  });

  it("csv_to_json and json_to_csv refuse a rows × columns blow-up instead of building it", async () => {
    const data = createDataTools(toolContext());
    const header = Array.from({ length: 200_000 }, () => "c").join(",");
    const csv = `${header}\n${"\n".repeat(600_000)}`;
    expect(errorOf(await callTool(data, "csv_to_json", { csv }))).toContain(`more than ${maxCsvCells} cells`);
    const rows = Array.from({ length: 3_000 }, (_, index) => ({ [`k${index}`]: index }));
    expect(errorOf(await callTool(data, "json_to_csv", { rows }))).toContain("3000 rows × 3000 columns");
    expect(okValue<{ rowCount: number }>(await callTool(data, "csv_to_json", { csv: "a,b\n1,2\n" })).rowCount).toBe(1);
  });

  it("fetch_page turns pathological pages (unclosed <pre> of spaces, empty-link and bracket floods) into text in linear passes", async () => {
    const http = createHttpTools(toolContext());
    const spaces = okValue<{ content: string; characters: number }>(await callTool(http, "fetch_page", { url: "http://evil.test/page/spaces/2000000" }));
    expect(spaces.characters).toBeGreaterThan(2_000_000);
    const links = okValue<{ content: string; characters: number }>(await callTool(http, "fetch_page", { url: "http://evil.test/page/links/1000000" }));
    expect(links.characters).toBe(3_000_000);
    const brackets = okValue<{ content: string; characters: number }>(await callTool(http, "fetch_page", { url: "http://evil.test/page/brackets/3000000", format: "text" }));
    expect(brackets.characters).toBe(3_000_000);
  });
});
