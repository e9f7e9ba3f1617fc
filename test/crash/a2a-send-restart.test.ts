/**
 * A remote A2A agent as a tool provider (test/fake-a2a.ts, a conforming
 * remote that tells a message sent again by its `messageId`), and the agent
 * object aborted at the worst moment of a call: the remote took the message
 * and made its task, its answer never came back, so neither the pending call
 * nor the journal's mark was written. The continued run sends the very same
 * request again (same message id, same push URL), the remote answers with
 * the task it made, and the call completes once; its timeout counts from
 * the first send.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { agentObject, waitForRuns, waitUntil } from "../support/agents";
import { fakeJson, providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";

type SendMessageCall = {
  method: string;
  messageId?: string;
  taskId?: string;
  params?: { message?: { parts?: { text?: string }[] } };
  receivedAt?: number;
  repeated?: boolean;
};
type Push = { taskId: string; url: string; body: string };
type PendingRow = { toolCallId: string; status: string; expiresAt: string | null };

async function pendingCalls(agentId: string): Promise<PendingRow[]> {
  return (await secret<{ pendingToolCalls: PendingRow[] }>(`/api/agents/${agentId}/pending-tool-calls`)).body.pendingToolCalls;
}

describe("a restart between a remote agent's SendMessage and its pending call", () => {
  it("sends the same message again, the remote answers with its one task, and the call completes once", async () => {
    const key = `hold-${crypto.randomUUID()}`;
    const timeout = 30_000;
    const world = await providerWorld({ providers: [{ name: "helper", type: "a2a", url: "http://a2a.test/main/card.json", timeout }] }, () => [
      { toolCalls: [{ name: "helper__slow", args: { message: key } }] },
      { toolCalls: [skip] },
    ]);
    const sendsOf = async () =>
      (await fakeJson<SendMessageCall[]>("http://a2a.test/calls")).filter((call) => call.method === "SendMessage" && call.params?.message?.parts?.[0]?.text === key);
    await world.wake();
    let sends: SendMessageCall[] = [];
    await waitUntil(async () => (sends = await sendsOf()).length === 1 && sends[0].taskId !== undefined, 10_000, "the remote took the message");
    const [first] = sends;
    // The remote made its task; its answer is held back. The object dies now: nothing of the call is written but its journal row.
    await abortAllDurableObjects();
    expect(await pendingCalls(world.agent.id)).toEqual([]);
    expect(await runDurableObjectAlarm(agentObject(world.agent.id))).toBe(true);

    await waitUntil(async () => (sends = await sendsOf()).length === 2, 10_000, "the message sent again");
    const again = sends[1];
    expect(again).toMatchObject({ repeated: true, messageId: first.messageId, taskId: first.taskId });
    // The very same request: the message, and the push URL (its signed expiry) with it.
    expect(again.params).toEqual(first.params);
    await waitUntil(async () => (await pendingCalls(world.agent.id)).length === 1, 10_000, "the pending call");
    const [row] = await pendingCalls(world.agent.id);
    expect(row.toolCallId).toBe(first.messageId);
    // Its timeout counts from the first send (made before the remote got it), not from the second.
    expect(Date.parse(row.expiresAt ?? "") - timeout).toBeLessThanOrEqual(first.receivedAt ?? 0);

    await fetch(`http://a2a.test/release/${key}`, { method: "POST" });
    let pushes: Push[] = [];
    await waitUntil(async () => {
      pushes = await fakeJson<Push[]>(`http://a2a.test/pushes/${first.taskId}`);
      return pushes.some((push) => push.body.includes("TASK_STATE_COMPLETED"));
    });
    for (const push of pushes) await exports.default.fetch(new Request(push.url, { method: "POST", body: push.body, headers: { "content-type": "application/a2a+json" } }));
    const [run] = await waitForRuns(world.agent.id, 1, 15_000);
    expect(run.status).toBe("completed");
    expect(run.toolCalls.filter((call) => call.toolName === "helper__slow")).toMatchObject([
      { toolCallId: first.messageId, status: "completed", result: { text: `done: ${key}`, taskId: first.taskId } },
    ]);
    expect(await pendingCalls(world.agent.id)).toMatchObject([{ toolCallId: first.messageId, status: "resolved" }]);
    // One task at the remote: two sends of one message.
    const all = await sendsOf();
    expect(all.map((call) => [call.messageId, call.taskId])).toEqual([
      [first.messageId, first.taskId],
      [first.messageId, first.taskId],
    ]);
    world.close();
  });
});
