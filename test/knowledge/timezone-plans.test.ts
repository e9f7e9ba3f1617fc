import { describe, expect, it } from "vitest";
import { nextRunAt } from "../../src/knowledge/plan-schedule";
import { secret } from "../support/api";
import { createAgent, scriptedConfig, waitForRuns } from "../support/agents";

describe("plans with a time zone", () => {
  it("set_plans takes a timezone; the next run is computed in it, and an unknown zone is a tool error", async () => {
    const standup = { name: "standup", instruction: "Post the standup", cron: "0 9 * * 1-5", timezone: "Europe/Paris" };
    const agent = await createAgent(
      scriptedConfig([
        {
          toolCalls: [
            { name: "set_plans", args: { plans: [standup] } },
            { name: "set_plans", args: { plans: [{ ...standup, name: "bad", timezone: "Mars/Base" }] } },
            { name: "skip", args: {} },
          ],
        },
      ]),
    );
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(agent.id, 1);
    const [good, bad] = run.toolCalls.filter((call) => call.toolName === "set_plans");
    expect(good.status).toBe("completed");
    expect(bad).toMatchObject({ status: "failed", error: expect.stringContaining("Unknown time zone") });
    const { body } = await secret<{ plans: { name: string; timezone: string; nextRunAt: string }[] }>(`/api/agents/${agent.id}/plans`);
    expect(body.plans).toHaveLength(1);
    const expected = nextRunAt({ cron: standup.cron, timezone: standup.timezone }, Date.parse(run.trigger[0].receivedAt as string));
    expect(body.plans[0]).toMatchObject({ name: "standup", timezone: "Europe/Paris" });
    expect(Math.abs(Date.parse(body.plans[0].nextRunAt) - (expected ?? 0))).toBeLessThan(60_000);
    expect(new Date(body.plans[0].nextRunAt).toLocaleString("en-GB", { timeZone: "Europe/Paris", hour: "2-digit", minute: "2-digit" })).toBe("09:00");
  });
});
