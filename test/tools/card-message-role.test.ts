/**
 * `display.messageRole: "assistant"`: a tool's card is stored and published
 * as an `assistant` message, as the display-tools design stores it; without
 * it, as a `tool` message. Everything that reads a card goes by its part, so
 * the card's updates, its answer, its approval (and that approval's escalated
 * copy) and other agents reading the space work the same either way.
 */
import { describe, expect, it } from "vitest";
import { createHuman, createSpace, memberHeaders, secret } from "../support/api";
import { createAgent, scriptedConfig, waitForRuns } from "../support/agents";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

type Part = { type: string; toolCallId: string; toolName: string; runId: string; status: string; kind?: string; args?: unknown; result?: unknown; escalatedFrom?: string };
type Message = { id: string; role: string; entityId: string; parts?: Part[] };

const assistantRole = { messageRole: "assistant" };
const lookup = { name: "lookup", executionType: "gateway", inputSchema: { type: "object" }, execution: { url: "http://api.test/echo" }, display: assistantRole };
const plainLookup = { ...lookup, name: "plain_lookup", display: undefined };
const ask = {
  name: "ask",
  executionType: "space",
  timeout: 20_000,
  inputSchema: { type: "object", properties: { question: { type: "string" } } },
  display: assistantRole,
};

async function messagesOf(spaceId: string): Promise<Message[]> {
  return (await secret<{ messages: Message[] }>(`/api/spaces/${spaceId}/messages?afterSeq=0`)).body.messages;
}

const cardOf = (messages: Message[], toolName: string, kind?: string) =>
  messages.find((message) => message.parts?.some((part) => part.type === "tool_call" && part.toolName === toolName && part.kind === kind));

describe('display.messageRole: "assistant"', () => {
  it("a gateway tool's and a space tool's cards are assistant messages that complete; another agent reads their input and output; without it, a tool message", async () => {
    const world = await toolWorld([lookup, plainLookup, ask], (spaceId) => [
      { toolCalls: [enter(spaceId)] },
      {
        toolCalls: [
          { name: "lookup", args: { q: "weather" } },
          { name: "plain_lookup", args: { q: "tides" } },
        ],
      },
      { toolCalls: [{ name: "ask", args: { question: "Umbrella?" } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    // The space tool's card arrives published as an assistant message, and is answered as any card is.
    const published = await world.spaceStream.waitFor((event) => event.type === "space.message" && JSON.stringify(event.data.parts ?? []).includes('"toolName":"ask"'), 10_000);
    expect(published.data.role).toBe("assistant");
    const asked = (published.data.parts as Part[])[0];
    expect(asked.status).toBe("requires_action");
    expect((await submitResult(asked.runId, asked.toolCallId, { answer: "Yes, bring one" })).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1, 15_000);
    expect(run.status).toBe("completed");

    const messages = await messagesOf(world.spaceId);
    const lookupCard = cardOf(messages, "lookup");
    const askCard = cardOf(messages, "ask");
    expect(lookupCard).toMatchObject({ role: "assistant", entityId: world.agent.entityId, parts: [{ type: "tool_call", status: "complete", args: { q: "weather" } }] });
    expect(lookupCard?.parts?.[0].result).toBeDefined();
    expect(askCard).toMatchObject({ role: "assistant", parts: [{ type: "tool_call", status: "complete", args: { question: "Umbrella?" }, result: { answer: "Yes, bring one" } }] });
    expect(cardOf(messages, "plain_lookup")).toMatchObject({ role: "tool", parts: [{ status: "complete", args: { q: "tides" } }] });
    // Each card was published once (as it was posted), then updated, with its role kept.
    const updates = world.spaceStream.ofType("space.message.updated").filter((event) => event.data.id === askCard?.id);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((event) => event.data.role === "assistant")).toBe(true);

    // Another agent reading the space sees each card's input and output, whatever its role.
    const reader = await createAgent(scriptedConfig([{ toolCalls: [{ name: "read_messages", args: { spaceId: world.spaceId } }] }, { toolCalls: [skip] }]));
    await secret(`/api/spaces/${world.spaceId}/members`, { body: { entityId: reader.entityId } });
    await secret(`/api/agents/${reader.id}/inbox`, { body: { type: "external", data: {} } });
    const [readRun] = await waitForRuns(reader.id, 1);
    const read = readRun.toolCalls.find((entry) => entry.toolName === "read_messages")?.result as { messages: { role: string; tools?: Record<string, unknown>[] }[] };
    const seen: Record<string, unknown>[] = read.messages
      .flatMap((message) => (message.tools ?? []).map((tool): Record<string, unknown> => ({ role: message.role, ...tool })))
      .sort((a, b) => String(a.toolName).localeCompare(String(b.toolName)));
    expect(seen).toEqual([
      { role: "assistant", toolName: "ask", status: "complete", args: { question: "Umbrella?" }, result: { answer: "Yes, bring one" } },
      { role: "assistant", toolName: "lookup", status: "complete", args: { q: "weather" }, result: lookupCard?.parts?.[0].result },
      expect.objectContaining({ role: "tool", toolName: "plain_lookup", status: "complete", args: { q: "tides" } }),
    ]);
    world.close();
  });

  it("the tool's approval card, and that card's escalated copy, are assistant messages too, answered as any approval", async () => {
    const boss = await createHuman("Boss");
    const bossRoom = await createSpace([boss], "Escalations");
    const transfer = {
      name: "transfer",
      executionType: "internal",
      visible: true,
      inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
      display: assistantRole,
      approval: { required: true, timeout: 400, onTimeout: "escalate", escalateTo: { spaceId: bossRoom }, answeredBy: { entities: [boss] } },
    };
    const world = await toolWorld([transfer], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "transfer", args: { amount: 9 } }] }, { toolCalls: [skip] }]);
    await secret(`/api/spaces/${bossRoom}/members`, { body: { entityId: world.agent.entityId } });
    await world.wake();
    const approval = await world.spaceStream.waitFor((event) => event.type === "space.message" && JSON.stringify(event.data.parts ?? []).includes('"kind":"approval"'), 10_000);
    expect(approval.data.role).toBe("assistant");
    // Nobody answers in time: the approval moves to the boss's room (its copy is posted before the old card says where it went), keeping its role.
    await world.spaceStream.waitFor(
      (event) =>
        event.type === "space.message.updated" &&
        ((event.data.parts as { kind?: string; escalatedTo?: string }[] | undefined) ?? []).some((entry) => entry.kind === "approval" && entry.escalatedTo === bossRoom),
      10_000,
    );
    const moved = cardOf(await messagesOf(bossRoom), "transfer", "approval");
    expect(moved).toMatchObject({ role: "assistant", parts: [{ status: "requires_action", escalatedFrom: world.spaceId, args: { amount: 9 } }] });
    const part = moved?.parts?.[0] as Part;
    expect((await submitResult(part.runId, part.toolCallId, { approved: true }, await memberHeaders(boss))).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1, 15_000);
    expect(run.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({ status: "completed" });
    // The tool's own card (it runs once approved) is an assistant message as well, and completed.
    expect(cardOf(await messagesOf(world.spaceId), "transfer")).toMatchObject({ role: "assistant", parts: [{ status: "complete", args: { amount: 9 } }] });
    world.close();
  });

  it("any other role is refused when the config is saved", async () => {
    const refused = await secret<{ error: { details: { path: string }[] } }>("/api/agents", {
      body: { config: scriptedConfig([], { tools: [{ ...lookup, display: { messageRole: "user" } }] }) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.map((detail) => detail.path)).toEqual(["config.tools.0.display.messageRole"]);
  });
});
