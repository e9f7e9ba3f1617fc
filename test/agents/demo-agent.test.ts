import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { demoAgentConfig } from "../../scripts/seed-demo.mjs";
import { createHuman, createSpace, secret } from "../support/api";
import { createAgent, waitForRuns } from "../support/agents";

describe("the demo agent (scripts/seed-demo.mjs)", () => {
  it("is a valid config that tells the time and keeps notes while it greets", async () => {
    const person = await createHuman("Demo person");
    const spaceId = await createSpace([person]);
    const config = (demoAgentConfig as (spaceId: string) => { builtins: string[] })(spaceId);
    expect(config.builtins).toEqual(expect.arrayContaining(["time", "notes"]));
    const agent = await createAgent(config);
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { event: "demo_started" } } });
    const [run] = await waitForRuns(agent.id, 1);
    expect(run.toolCalls.map((call) => [call.toolName, call.status])).toEqual([
      ["enter_space", "completed"],
      ["current_time", "completed"],
      ["notes_append", "completed"],
      ["send_message", "completed"],
      ["skip", "completed"],
    ]);
    expect(await (await env.FILES.get(`agents/${agent.id}/notes/visits.md`))?.text()).toContain("Visits to the demo space");
  });
});
