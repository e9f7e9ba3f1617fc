/**
 * With ALLOW_PRIVATE_URLS = "false", a config that names a loopback or
 * private IPv4 address in an IPv6 spelling (IPv4-translated, local-use
 * NAT64, Teredo…) is refused when it is saved, through the route, like the
 * plain IPv4 address; and the same URL is refused again at send.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app";
import type { AppEnv } from "../../src/env";
import { runGatewayTool } from "../../src/tools/gateway/execute-gateway-tool";
import { secretHeaders } from "../support/api";
import { readErrorEnvelope } from "../support/error-envelope";
import { minimalAgentConfig } from "../support/minimal-agent-config";

const strictEnv: AppEnv = { ...env, ALLOW_PRIVATE_URLS: "false" };
const app = createApp();

/** POST /api/agents as this deployment (ALLOW_PRIVATE_URLS = "false") answers it. */
async function saveStrict(config: unknown): Promise<Response> {
  const context = createExecutionContext();
  const request = new Request("http://gateway.test/api/agents", {
    method: "POST",
    headers: { ...secretHeaders, "content-type": "application/json" },
    body: JSON.stringify({ config }),
  });
  const response = await app.fetch(request, strictEnv, context);
  await waitOnExecutionContext(context);
  return response;
}

const gatewayTool = (url: string) => ({
  ...minimalAgentConfig,
  tools: [{ name: "fetcher", description: "d", executionType: "gateway", inputSchema: { type: "object", properties: {} }, execution: { url } }],
});

describe('a gateway tool\'s URL in an IPv6 spelling of a private address, ALLOW_PRIVATE_URLS = "false"', () => {
  it.each([
    "http://[::ffff:0:127.0.0.1]/items",
    "http://[0:0:0:0:FFFF:0:7F00:1]/items",
    "http://[64:ff9b:1::7f00:1]:8080/items",
    "http://[64:FF9B:1::10.0.0.1]/items",
    "http://[2001::80ff:fffe]/items",
    "http://[2001:0000:0000:0000:0000:0000:80FF:FFFE]/items",
  ])("refuses %s at save, naming the path", async (url) => {
    const response = await saveStrict(gatewayTool(url));
    expect(response.status).toBe(400);
    const body = await readErrorEnvelope(response, "validation_error");
    expect(body.error.details).toEqual([{ path: "config.tools.0.execution.url", message: expect.stringContaining('ALLOW_PRIVATE_URLS = "false"') }]);
  });

  it("accepts a public address in the same spellings' families", async () => {
    expect((await saveStrict(gatewayTool("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/items"))).status).toBe(201);
  });

  it("refuses the same URL at send when the config was stored before (a tool error, nothing fetched)", async () => {
    let fetched = 0;
    const answer = await runGatewayTool({
      execution: { url: "http://[2001::80ff:fffe]/items" },
      args: {},
      env: { ALLOW_PRIVATE_URLS: "false" },
      timeoutMs: 1_000,
      maxResponseBytes: 1_000,
      fetch: async () => {
        fetched += 1;
        return Response.json({});
      },
    });
    expect(answer).toMatchObject({ ok: false, kind: "permission", error: expect.stringContaining("loopback, private or link-local") });
    expect(fetched).toBe(0);
  });
});
