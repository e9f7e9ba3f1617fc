/**
 * An approved call runs once. A gateway tool behind an approval is journaled
 * as dispatched before its request leaves; a restart that finds it dispatched
 * without an outcome does not send it again (at most once after a yes), and
 * tells the model. Killed before it was dispatched, it is sent once.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { memberHeaders } from "../support/api";
import { agentObject, settledRuns, waitUntil } from "../support/agents";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

type Card = { toolCallId: string; kind?: string; approves?: string; runId: string };
type Seen = { headers: Record<string, string> };

const transfer = (url: string) => ({
  name: "transfer",
  description: "Move money",
  executionType: "gateway",
  visible: false,
  timeout: 20_000,
  inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
  execution: { url, method: "POST" },
  approval: { required: true, timeout: 20_000 },
});

async function approvalCard(world: Awaited<ReturnType<typeof toolWorld>>): Promise<Card> {
  const event = await world.spaceStream.waitFor((entry) => entry.type === "space.message" && (entry.data.parts as Card[] | undefined)?.[0]?.kind === "approval");
  return (event.data.parts as Card[])[0];
}

const received = async (id: string): Promise<Seen[]> => (await (await fetch(`http://recorded.test/${id}`)).json()) as Seen[];

describe("an approved call and a restart", () => {
  it("killed while the approved request is in flight: the continuation does not send it again, and the model is told", async () => {
    const id = `approved-${crypto.randomUUID()}`;
    const world = await toolWorld([transfer(`http://api.test/hang-once/${id}`)], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 5 } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const card = await approvalCard(world);
    expect((await submitResult(card.runId, card.toolCallId, { approved: true }, await memberHeaders(world.person))).status).toBe(200);
    // The upstream has the request (it never answers the first one): the worst moment to die.
    await waitUntil(async () => (await received(id)).length === 1, 10_000, "the approved request reached the upstream");
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(agentObject(world.agent.id))).toBe(true);

    const [run] = await settledRuns(world.agent.id);
    const call = run.toolCalls.find((entry) => entry.toolName === "transfer");
    expect(call).toMatchObject({ toolCallId: card.approves, status: "failed", error: expect.stringContaining("was not run again, so it ran at most once") });
    expect(call?.error).toContain(`idempotency-key ${card.approves}`);
    const requests = await received(id);
    expect(requests).toHaveLength(1);
    expect(requests[0].headers["idempotency-key"]).toBe(card.approves);
    world.close();
  });

  it("killed right after the yes: the call is sent exactly once, whichever side of the send the kill fell on", async () => {
    const id = `approved-${crypto.randomUUID()}`;
    const world = await toolWorld([transfer(`http://hooks.test/ok/${id}`)], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 7 } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const card = await approvalCard(world);
    expect((await submitResult(card.runId, card.toolCallId, { approved: true }, await memberHeaders(world.person))).status).toBe(200);
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(world.agent.id));

    const [run] = await settledRuns(world.agent.id);
    expect(run.status).toBe("completed");
    const requests = (await (await fetch(`http://hooks.test/recorded/${id}`)).json()) as Seen[];
    expect(requests).toHaveLength(1);
    expect(requests[0].headers["idempotency-key"]).toBe(card.approves);
    world.close();
  });
});
