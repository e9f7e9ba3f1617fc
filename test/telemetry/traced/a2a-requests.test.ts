/**
 * A traced agent's call of a remote A2A agent's skill sends its span as
 * `traceparent` on the requests it makes (`SendMessage`, and `GetTask` while
 * the cycle waits on the task), unless the provider's config sets one.
 */
import { describe, expect, it } from "vitest";
import { waitForRuns } from "../../support/agents";
import { fakeJson, providerWorld } from "../../support/provider-world";
import { skip } from "../../support/tool-world";
import { callSpan, spanTraceparent } from "./exported-spans";

type RpcCall = { method: string; taskId?: string; headers: Record<string, string> };

describe("a remote A2A agent's skill, traced", () => {
  it("SendMessage and the GetTask looks of the waiting cycle carry the call's span; a traceparent the provider configures is kept instead", async () => {
    const key = `traced-${crypto.randomUUID()}`;
    const configured = "00-33333333333333333333333333333333-4444444444444444-01";
    const world = await providerWorld(
      {
        providers: [
          { name: "helper", type: "a2a", url: "http://a2a.test/nopush/card.json", timeout: 30_000 },
          { name: "fixed", type: "a2a", url: "http://a2a.test/nopush/card.json", headers: { traceparent: configured } },
        ],
      },
      () => [
        {
          toolCalls: [
            { name: "helper__slow", args: { message: key } },
            { name: "fixed__echo", args: { message: key } },
          ],
        },
        { toolCalls: [skip] },
      ],
    );
    await world.wake();
    // Looked at once as it starts; finished after, so the cycle's next look sees it done.
    const started = await world.agentStream.waitForType("a2a.task.started");
    await fetch(`http://a2a.test/release/${key}`, { method: "POST" });
    const [run] = await waitForRuns(world.agent.id, 1, 20_000);
    const slow = run.toolCalls.find((entry) => entry.toolName === "helper__slow");
    expect(slow?.status).toBe("completed");
    const expected = spanTraceparent(await callSpan("helper__slow", slow?.toolCallId ?? ""));

    const calls = await fakeJson<RpcCall[]>("http://a2a.test/calls");
    const traced = calls.filter((entry) => entry.headers.traceparent === expected);
    expect(traced.filter((entry) => entry.method === "SendMessage")).toHaveLength(1);
    const looks = calls.filter((entry) => entry.method === "GetTask" && entry.taskId === started.data.remoteTaskId);
    expect(looks.length).toBeGreaterThanOrEqual(2);
    expect(looks.every((entry) => entry.headers.traceparent === expected)).toBe(true);

    // The provider that sets its own: that one goes, as for a gateway tool.
    expect(run.toolCalls.find((entry) => entry.toolName === "fixed__echo")?.status).toBe("completed");
    expect(calls.filter((entry) => entry.method === "SendMessage" && entry.headers.traceparent === configured)).toHaveLength(1);
  });
});
