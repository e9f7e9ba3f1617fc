/** `router__handoff-to` (config `router.destinations`): the agent hands the conversation in its active space to another agent and its cycle ends. */
import { describe, expect, it } from "vitest";
import { createHuman, createSpace, secret } from "../support/api";
import { createAgent, type ScriptedTurn, scriptedConfig, settledRuns, waitForRuns } from "../support/agents";
import { enter, skip } from "../support/tool-world";

const handoff = (args: Record<string, unknown>) => ({ name: "router__handoff-to", args });

async function team(routerTurns: (spaceId: string) => ScriptedTurn[], destinations: (specialist: { id: string }) => unknown[]) {
  const person = await createHuman("Pat");
  const spaceId = await createSpace([person]);
  const specialist = await createAgent({ ...scriptedConfig([{ toolCalls: [skip] }]), agent: { name: "Billing" } });
  const routerDestinations = destinations(specialist);
  const router = await createAgent({ ...scriptedConfig(routerTurns(spaceId)), agent: { name: "Front desk" }, router: { destinations: routerDestinations } });
  for (const entityId of [specialist.entityId, router.entityId]) await secret(`/api/spaces/${spaceId}/members`, { body: { entityId } });
  return { person, spaceId, specialist, router };
}

describe("router__handoff-to", () => {
  it("hands the active space's conversation to a destination: a message that mentions it wakes it, and the cycle ends", async () => {
    const world = await team(
      (spaceId) => [
        { toolCalls: [enter(spaceId)] },
        { toolCalls: [handoff({ agent: "billing", message: "Pat asks about an invoice" })] },
        // Never reached: the handoff ends the cycle.
        { toolCalls: [{ name: "send_message", args: { text: "still here" } }] },
      ],
      (specialist) => [{ agentId: specialist.id, name: "billing", description: "Invoices and refunds" }],
    );
    await secret(`/api/agents/${world.router.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(world.router.id, 1);
    const call = run.toolCalls.find((entry) => entry.toolName === "router__handoff-to");
    expect(call).toMatchObject({ status: "completed", result: { handedTo: { agentId: world.specialist.id, name: "billing" }, spaceId: world.spaceId } });
    expect(run.steps).toHaveLength(2);
    const [woken] = await waitForRuns(world.specialist.id, 1);
    expect(woken.trigger).toMatchObject([{ type: "space_message", spaceId: world.spaceId }]);
    const { body } = await secret<{ messages: { entityId: string; text?: string; mentions?: string[] }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    const routerEntity = (await secret<{ entityId: string }>(`/api/agents/${world.router.id}`)).body.entityId;
    const handed = body.messages.filter((message) => message.entityId === routerEntity);
    expect(handed).toHaveLength(1);
    expect(handed[0].text).toContain("Pat asks about an invoice");
    expect(handed[0].mentions).toHaveLength(1);
    await settledRuns(world.router.id);
  });

  it("an agent that is not a destination, or a call outside a space, is refused and hands nothing", async () => {
    let destination = "";
    const world = await team(
      (spaceId) => [{ toolCalls: [handoff({ agent: destination })] }, { toolCalls: [enter(spaceId)] }, { toolCalls: [handoff({ agent: "agt_nobody" })] }, { toolCalls: [skip] }],
      (specialist) => {
        destination = specialist.id;
        return [specialist.id];
      },
    );
    await secret(`/api/agents/${world.router.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(world.router.id, 1);
    const calls = run.toolCalls.filter((entry) => entry.toolName === "router__handoff-to");
    expect(calls.map((entry) => entry.status)).toEqual(["failed", "failed"]);
    expect(calls[0].error).toContain("not in a space");
    expect(calls[1].error).toContain(`"agt_nobody" is not one of your destinations: ${world.specialist.id}`);
    expect(await settledRuns(world.specialist.id)).toEqual([]);
  });

  it("a destination that is not an agent is refused when the config is saved", async () => {
    const refused = await secret<{ error: { details: { path: string; message: string }[] } }>("/api/agents", {
      body: { config: { ...scriptedConfig([]), router: { destinations: ["agt_missing"] } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ path: "config.router.destinations.0", message: 'There is no agent "agt_missing"' }]);
  });
});
