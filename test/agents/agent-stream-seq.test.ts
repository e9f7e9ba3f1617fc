import { abortAllDurableObjects } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { createAgent, scriptedConfig, waitForRuns } from "../support/agents";
import { openSse } from "../support/stream-client";

describe("the agent stream's seq", () => {
  it("keeps growing across a restart of the agent object: afterSeq never replays other events under old numbers", async () => {
    const agent = await createAgent(scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }, { toolCalls: [{ name: "skip", args: {} }] }]));
    const headers = { "x-secret-key": env.GATEWAY_SECRET_KEY };
    const before = await openSse(`/api/agents/${agent.id}/stream`, headers);
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { n: 1 } } });
    await before.collector.waitForType("agent.cycle.finished");
    const lastBefore = Math.max(...before.collector.events.map((event) => event.seq));
    before.close();

    await abortAllDurableObjects();
    const after = await openSse(`/api/agents/${agent.id}/stream?afterSeq=${lastBefore}`, headers);
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { n: 2 } } });
    await after.collector.waitForType("agent.cycle.finished");
    await waitForRuns(agent.id, 2);
    const seqs = after.collector.events.map((event) => event.seq);
    expect(seqs.length).toBeGreaterThan(0);
    expect(Math.min(...seqs)).toBeGreaterThan(lastBefore);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    after.close();
  });
});
