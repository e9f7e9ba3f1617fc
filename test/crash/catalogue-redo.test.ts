import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { agentObject, waitForRuns, waitUntil } from "../support/agents";
import { catalogueAgent } from "../support/catalogue";

type Recorded = { headers: Record<string, string> };

async function recorded(id: string): Promise<Recorded[]> {
  return (await (await fetch(`http://hooks.test/recorded/${id}`)).json()) as Recorded[];
}

describe("built-ins done again after a crash", () => {
  it("a batch cut off mid-way is done again under the same ids: its note is appended once, its request carries the same key", async () => {
    const hookId = `hang-${crypto.randomUUID()}`;
    const charge = {
      name: "charge",
      description: "Charge",
      executionType: "gateway",
      visible: false,
      inputSchema: { type: "object" },
      execution: { url: `http://api.test/hang-once/${hookId}`, method: "POST" },
    };
    const world = await catalogueAgent({ builtins: ["spaces", "notes", "reports"], tools: [charge], limits: { toolTimeout: 20_000 } }, () => [
      {
        toolCalls: [
          {
            name: "batch",
            args: {
              calls: [
                { tool: "notes_append", args: { path: "ledger.md", entry: "- charged 5" } },
                { tool: "charge", args: { amount: 5 } },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: "skip", args: {} }] },
    ]);
    await world.wake();
    await waitUntil(async () => (await recorded(hookId)).length === 1, 5_000, "the first request");
    await waitUntil(async () => (await env.FILES.head(`agents/${world.agent.id}/notes/ledger.md`)) !== null, 5_000, "the note");
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(world.agent.id));
    const [run] = await waitForRuns(world.agent.id, 1, 15_000);
    expect(run.status).toBe("completed");
    const batch = run.toolCalls.find((call) => call.toolName === "batch");
    expect(batch?.result).toMatchObject({
      results: [
        { tool: "notes_append", ok: true },
        { tool: "charge", ok: true, result: { ok: true, attempt: 2 } },
      ],
    });
    const requests = await recorded(hookId);
    expect(requests.map((request) => request.headers["idempotency-key"])).toEqual([`${batch?.toolCallId}_1`, `${batch?.toolCallId}_1`]);
    expect(await (await env.FILES.get(`agents/${world.agent.id}/notes/ledger.md`))?.text()).toBe("- charged 5\n");
  });
});
