/**
 * A traced agent's built-ins that call out send their call's span as
 * `traceparent`, like every other request a call makes: `http_request` (a
 * `traceparent` or `tracestate` the model set never replaces it),
 * `fetch_page` and `web_search`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type RunRecord, waitForRuns } from "../../support/agents";
import { catalogueAgent } from "../../support/catalogue";
import type { ScriptedTurn } from "../../support/agents";
import { callSpan, spanTraceparent } from "./exported-spans";

const Echo = z.object({ headers: z.record(z.string(), z.string()) });
const Recorded = z.array(z.object({ headers: z.record(z.string(), z.string()), body: z.string() }));
const tavily = { provider: "tavily", apiKey: "${env.TOOL_API_TOKEN}", baseURL: "http://tavily.test" };

/** One run of an agent with the http and search groups that makes `calls` in one step; each call completed. */
async function runCalls(calls: NonNullable<ScriptedTurn["toolCalls"]>): Promise<(name: string) => RunRecord["toolCalls"][number]> {
  const world = await catalogueAgent({ builtins: ["http", "search"], webSearch: tavily }, () => [{ toolCalls: calls }, { text: "done" }]);
  await world.wake();
  const [run] = await waitForRuns(world.agent.id, 1);
  return (name) => {
    const found = run.toolCalls.find((entry) => entry.toolName === name);
    expect(found?.status, name).toBe("completed");
    return found as NonNullable<typeof found>;
  };
}

describe("the built-ins' requests in a traced agent", () => {
  it("http_request carries its call span's traceparent; a traceparent or tracestate the model set never replaces it", async () => {
    const forged = "00-11111111111111111111111111111111-2222222222222222-01";
    const call = await runCalls([
      { name: "http_request", args: { url: "http://api.test/echo/traced", headers: { Traceparent: forged, tracestate: "vendor=forged", "X-Kept": "yes" } } },
    ]);
    const request = call("http_request");
    const sent = Echo.parse((request.result as { json: unknown }).json).headers;
    expect(sent.traceparent).toBe(spanTraceparent(await callSpan("http_request", request.toolCallId)));
    // The model's other headers go as it set them; its tracestate belonged to the trace it named, not the gateway's.
    expect(sent["x-kept"]).toBe("yes");
    expect(sent).not.toHaveProperty("tracestate");
  });

  it("fetch_page and web_search carry their call span's traceparent", async () => {
    const query = `traced search ${crypto.randomUUID()}`;
    const call = await runCalls([
      { name: "fetch_page", args: { url: "http://api.test/echo/page" } },
      { name: "web_search", args: { query } },
    ]);
    const page = call("fetch_page");
    // The echo answers JSON, which fetch_page passes on as text: the headers it was sent.
    const pageSent = Echo.parse(JSON.parse((page.result as { content: string }).content)).headers;
    expect(pageSent.traceparent).toBe(spanTraceparent(await callSpan("fetch_page", page.toolCallId)));

    const search = call("web_search");
    const searches = Recorded.parse(await (await fetch("http://recorded.test/tavily")).json()).filter((entry) => entry.body.includes(query));
    expect(searches).toHaveLength(1);
    expect(searches[0].headers.traceparent).toBe(spanTraceparent(await callSpan("web_search", search.toolCallId)));
  });
});
