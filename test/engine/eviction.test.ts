import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { agentObject, createAgent, listRuns, waitForRuns, waitUntil } from "../support/agents";
import { createHuman, createSpace } from "../support/api";
import { submitResult } from "../support/tool-world";

describe("restarts in the middle of a wait", () => {
  it("the waiting run is interrupted, its events run again, the timeout still fires from the alarm, and a late result reaches the inbox", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const agent = await createAgent({
      agent: { name: "Waiter" },
      model: {
        provider: "scripted",
        turns: [{ toolCalls: [{ name: "fetchData", args: { query: "slow" } }] }, { toolCalls: [{ name: "skip", args: {} }] }, { toolCalls: [{ name: "skip", args: {} }] }],
      },
      tools: [
        {
          name: "fetchData",
          description: "Ask the external service",
          executionType: "external",
          visible: false,
          timeout: 1_500,
          inputSchema: { type: "object", properties: { query: { type: "string" } } },
        },
      ],
    });
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { job: "survive" } } });

    // Wait until the cycle is blocked on the external call.
    let call: { toolCallId: string; runId: string; status: string } | undefined;
    await waitUntil(async () => {
      const { body } = await secret<{ pendingToolCalls: { toolCallId: string; runId: string; status: string }[] }>(`/api/agents/${agent.id}/pending-tool-calls`);
      call = body.pendingToolCalls[0];
      return call?.status === "waiting";
    });
    if (!call) throw new Error("no pending call");

    // The object dies mid-wait (a crash or a deploy): in-memory waiters and timers are gone.
    await abortAllDurableObjects();
    await agentObject(agent.id).inspect();

    const interrupted = await secret<{ status: string }>(`/api/runs/${call.runId}`);
    expect(interrupted.body.status).toBe("interrupted");
    const runs = await waitForRuns(agent.id, 2);
    const retried = runs.find((run) => run.id !== call?.runId);
    expect(retried?.status).toBe("completed");
    expect(retried?.trigger).toMatchObject([{ type: "external", data: { job: "survive" } }]);

    // The stored deadline flips the orphaned wait to pending even though its timer died.
    await waitUntil(async () => {
      const { body } = await secret<{ pendingToolCalls: { toolCallId: string; status: string }[] }>(`/api/agents/${agent.id}/pending-tool-calls?status=pending`);
      return body.pendingToolCalls.some((entry) => entry.toolCallId === call?.toolCallId);
    }, 8_000, "the timeout backstop");

    expect((await submitResult(call.runId, call.toolCallId, { finally: true })).status).toBe(200);
    const all = await waitForRuns(agent.id, 3);
    const last = all.at(-1);
    expect(last?.trigger).toMatchObject([{ type: "tool_result", toolCallId: call.toolCallId, result: { finally: true } }]);
    expect((await listRuns(agent.id)).filter((run) => run.status === "interrupted")).toHaveLength(1);
  });
});
