/**
 * Headers a config sets (gateway tools, OpenAPI providers, MCP servers): a
 * header the gateway owns (the hop count) is refused at save and replaced at
 * send, and names and values that could never be sent are refused at save
 * with their path; filled values are checked again at send.
 */
import { describe, expect, it } from "vitest";
import { runGatewayTool } from "../../src/tools/gateway/execute-gateway-tool";
import { operationsOf } from "../../src/tools/openapi/openapi-operations";
import { runOpenApiOperation } from "../../src/tools/openapi/run-openapi-operation";
import { secret } from "../support/api";
import { expectErrorEnvelope } from "../support/error-envelope";
import { minimalAgentConfig } from "../support/minimal-agent-config";

type Problems = { status: number; paths: string[]; messages: string[] };

const schema = { type: "object", properties: {} };

/** The same headers in every place a config carries them: a gateway tool, an OpenAPI provider, an MCP server. */
function configWithHeaders(headers: Record<string, string>) {
  return {
    ...minimalAgentConfig,
    tools: [{ name: "fetcher", description: "d", executionType: "gateway", inputSchema: schema, execution: { url: "https://api.example.com/items", headers } }],
    providers: [{ type: "openapi", name: "pets", spec: { url: "https://api.example.com/openapi.json" }, headers }],
    mcp: { servers: [{ name: "remote", url: "https://mcp.example.com/mcp", headers }] },
  };
}
const places = ["config.tools.0.execution.headers", "config.providers.0.headers", "config.mcp.servers.0.headers"];

async function save(config: unknown): Promise<Problems> {
  const { status, body } = await secret("/api/agents", { body: { config } });
  if (status === 201) return { status, paths: [], messages: [] };
  expectErrorEnvelope(body, "validation_error");
  const details = body.error.details ?? [];
  return { status, paths: details.map((detail) => detail.path), messages: details.map((detail) => detail.message) };
}

describe("at save: headers the gateway owns", () => {
  it.each(["x-switchboard-hop", "X-Switchboard-Hop", "X-SWITCHBOARD-HOP"])("refuses %s in every place a config sets headers, naming the path", async (name) => {
    const problems = await save(configWithHeaders({ [name]: "0" }));
    expect(problems.status).toBe(400);
    expect(problems.paths.toSorted()).toEqual(places.map((place) => `${place}.${name}`).toSorted());
    for (const message of problems.messages) expect(message).toContain("set by the gateway itself");
  });

  it("refuses it on PUT too, and leaves the stored config as it was", async () => {
    const created = await secret<{ id: string }>("/api/agents", { body: { config: configWithHeaders({ "x-trace": "1" }) } });
    expect(created.status).toBe(201);
    const replaced = await secret(`/api/agents/${created.body.id}`, { method: "PUT", body: { config: configWithHeaders({ "x-switchboard-hop": "0" }) } });
    expect(replaced.status).toBe(400);
    const stored = await secret<{ config: { tools: { execution: { headers: Record<string, string> } }[] } }>(`/api/agents/${created.body.id}`);
    expect(stored.body.config.tools[0].execution.headers).toEqual({ "x-trace": "1" });
  });
});

describe("at save: names and values that could never be sent", () => {
  it.each([
    ["a value with CR LF", "X-Foo", "a\r\nX-Admin: 1", "line break"],
    ["a value with a bare LF", "X-Foo", "a\nb", "line break"],
    ["a value with a bare CR", "X-Foo", "a\rb", "line break"],
    ["a value with NUL", "X-Foo", "a\0b", "NUL"],
    ["a value with another control character", "X-Foo", "a\u0001b", "control characters"],
    ["a value with DEL", "X-Foo", "a\u007fb", "control characters"],
    ["a non-ASCII value", "X-Foo", "Bearer caf\u00e9", "ASCII"],
    ["a secret reference with a line break around it", "Authorization", "Bearer ${env.TOOL_API_TOKEN}\r\nX-Admin: 1", "line break"],
    ["a name with a space", "X Foo", "v", "not a valid HTTP header name"],
    ["a name with a colon", "X-Foo:", "v", "not a valid HTTP header name"],
    ["an empty name", "", "v", "not a valid HTTP header name"],
    ["a non-ASCII name", "X-Caf\u00e9", "v", "not a valid HTTP header name"],
    ["a name with a line break", "X-Foo\r\nX-Admin", "v", "not a valid HTTP header name"],
  ])("refuses %s, naming the path", async (_case, name, value, message) => {
    const problems = await save(configWithHeaders({ [name]: value }));
    expect(problems.status).toBe(400);
    expect(problems.paths.toSorted()).toEqual(places.map((place) => `${place}.${name}`).toSorted());
    for (const text of problems.messages) expect(text).toContain(message);
  });

  it("accepts ordinary headers: secrets, placeholders, tabs and every token character", async () => {
    const headers = { Authorization: "Bearer ${env.TOOL_API_TOKEN}", "X-Odd!#$%&'*+-.^_`|~Name": "a\tb c", accept: "application/json; q=0.9" };
    expect(await save(configWithHeaders(headers))).toEqual({ status: 201, paths: [], messages: [] });
  });
});

describe("at send: the gateway's own headers win; filled values are checked again", () => {
  const gatewayHeaders = { "idempotency-key": "call_from_gateway", "x-switchboard-hop": "4" };
  const send = (headers: Record<string, string>, secrets: Record<string, unknown> = {}) =>
    runGatewayTool({ execution: { url: "http://api.test/echo", headers }, args: {}, env: secrets, timeoutMs: 5_000, maxResponseBytes: 100_000, extraHeaders: gatewayHeaders });

  it("a stored gateway tool config that sets the hop (saved before the rule) cannot lower it", async () => {
    for (const name of ["x-switchboard-hop", "X-Switchboard-Hop"]) {
      const answer = await send({ [name]: "0", "x-trace": "t" });
      expect(answer).toMatchObject({ ok: true, value: { headers: { "x-switchboard-hop": "4", "x-trace": "t" } } });
    }
  });

  it("a configured idempotency-key still wins over the call's id (the tool's API may want keys of its own)", async () => {
    const answer = await send({ "Idempotency-Key": "order-7" });
    expect(answer).toMatchObject({ ok: true, value: { headers: { "idempotency-key": "order-7", "x-switchboard-hop": "4" } } });
  });

  it("an OpenAPI operation whose document declares the hop as a header parameter cannot lower it, nor can the provider's headers", async () => {
    const document = {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: { "/items": { get: { operationId: "list", parameters: [{ name: "x-switchboard-hop", in: "header", schema: { type: "string" } }] } } },
    };
    const [operation] = operationsOf(document, { name: "p" }).operations;
    for (const configured of [undefined, { "X-Switchboard-Hop": "1" }]) {
      const answer = await runOpenApiOperation(operation, {
        baseUrl: "http://api.test/echo",
        args: { "x-switchboard-hop": "0" },
        headers: configured,
        env: {},
        timeoutMs: 5_000,
        maxResponseBytes: 100_000,
        extraHeaders: gatewayHeaders,
      });
      expect(answer).toMatchObject({ ok: true, value: { headers: { "x-switchboard-hop": "4" } } });
    }
  });

  it.each([
    ["a line break", "tok\r\nX-Admin: 1", 'The secret "LEAKY" contains a line break'],
    ["a NUL", "tok\0", 'The secret "LEAKY" contains a line break'],
    ["a control character", "tok\u0001", 'Header "Authorization" cannot be sent: A header value cannot contain control characters'],
    ["a non-ASCII character", "t\u00f6k", 'Header "Authorization" cannot be sent: A header value must be ASCII'],
  ])("a secret with %s is refused with a clear error for the model, never sent", async (_case, value, error) => {
    const answer = await send({ Authorization: "Bearer ${env.LEAKY}" }, { LEAKY: value });
    expect(answer).toMatchObject({ ok: false, kind: "validation", error: expect.stringContaining(error) });
  });
});
