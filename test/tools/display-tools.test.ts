/**
 * Display tools across spaces: `displayTool` calls to several target spaces in
 * one run, `targetSpaceId` gone from every event and record once stripped, and
 * other agents reading a space see a tool message's input and output (not a
 * minimal one's).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createHuman, createSpace, secret } from "../support/api";
import { createAgent, scriptedConfig, settledRuns, waitForRuns } from "../support/agents";
import { openSse } from "../support/stream-client";
import { skip } from "../support/tool-world";

const secretHeaders = { "x-secret-key": env.GATEWAY_SECRET_KEY };
const chart = {
  name: "showChart",
  description: "Show a chart",
  executionType: "internal",
  displayTool: true,
  inputSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
  display: { customUI: "Chart" },
};
const askFinance = {
  name: "askFinance",
  description: "Ask finance to approve an amount",
  executionType: "external",
  isAsync: true,
  displayTool: true,
  inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
};
const secretNote = { ...chart, name: "secretNote", display: { mode: "minimal" } };

type Message = { id: string; role: string; parts?: { type: string; toolName?: string; args?: unknown; result?: unknown }[] };

async function messagesOf(spaceId: string): Promise<Message[]> {
  return (await secret<{ messages: Message[] }>(`/api/spaces/${spaceId}/messages?afterSeq=0`)).body.messages;
}

describe("display tools across spaces", () => {
  it("one run shows its calls in several target spaces, and targetSpaceId is in no event and no record once stripped", async () => {
    const person = await createHuman("Husam");
    const design = await createSpace([person], "Design");
    const finance = await createSpace([person], "Finance");
    const agent = await createAgent({
      agent: { name: "Campaigner" },
      model: {
        provider: "scripted",
        turns: [
          { toolCalls: [{ name: "showChart", args: { title: "Banner draft", targetSpaceId: design } }] },
          {
            toolCalls: [
              { name: "askFinance", args: { amount: 50_000, targetSpaceId: finance } },
              { name: "showChart", args: { title: "Budget", targetSpaceId: finance } },
            ],
          },
          { toolCalls: [skip] },
        ],
      },
      tools: [chart, askFinance],
    });
    for (const spaceId of [design, finance]) await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    const designStream = await openSse(`/api/spaces/${design}/stream`, secretHeaders);
    const financeStream = await openSse(`/api/spaces/${finance}/stream`, secretHeaders);
    const agentStream = await openSse(`/api/agents/${agent.id}/stream`, secretHeaders);
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { go: true } } });
    const [run] = await waitForRuns(agent.id, 1);
    await designStream.collector.waitFor((event) => event.type === "space.message.updated");
    await financeStream.collector.waitFor((event) => event.type === "space.message.updated");

    // Each space got its own cards, with the arguments the tool ran with.
    const designCards = (await messagesOf(design)).filter((message) => message.role === "tool");
    const financeCards = (await messagesOf(finance)).filter((message) => message.role === "tool");
    expect(designCards.map((message) => message.parts?.[0])).toMatchObject([{ toolName: "showChart", args: { title: "Banner draft" } }]);
    expect(financeCards.map((message) => message.parts?.[0]).sort((a, b) => String(a?.toolName).localeCompare(String(b?.toolName)))).toMatchObject([
      { toolName: "askFinance", args: { amount: 50_000 } },
      { toolName: "showChart", args: { title: "Budget" } },
    ]);
    expect(designStream.collector.events.every((event) => event.spaceId === undefined || event.spaceId === design)).toBe(true);

    // Nowhere after the strip: the spaces' streams and messages, the pending call, the results, the pending event.
    const pending = await secret(`/api/agents/${agent.id}/pending-tool-calls`);
    const everything = [
      designStream.collector.events,
      financeStream.collector.events,
      await messagesOf(design),
      await messagesOf(finance),
      pending.body,
      run.toolCalls.map((entry) => entry.result),
      agentStream.collector.ofType("tool.pending"),
    ];
    for (const part of everything) expect(JSON.stringify(part)).not.toContain("targetSpaceId");
    expect(JSON.stringify(pending.body)).toContain("askFinance");
    // The model's own record of its calls keeps what it wrote: the run record and the agent stream's tool.requested.
    expect(run.toolCalls.find((entry) => entry.toolName === "askFinance")?.args).toEqual({ amount: 50_000, targetSpaceId: finance });
    expect(agentStream.collector.ofType("tool.requested").some((event) => JSON.stringify(event.data.args).includes(design))).toBe(true);
  });

  it("another agent reading the space sees a tool message's input and output, but not a minimal one's", async () => {
    const person = await createHuman("Pat");
    const spaceId = await createSpace([person]);
    const shower = await createAgent({
      ...scriptedConfig([
        {
          toolCalls: [
            { name: "showChart", args: { title: "Q4 revenue", targetSpaceId: spaceId } },
            { name: "secretNote", args: { title: "salaries", targetSpaceId: spaceId } },
            skip,
          ],
        },
      ]),
      tools: [chart, secretNote],
    });
    const reader = await createAgent(scriptedConfig([{ toolCalls: [{ name: "read_messages", args: { spaceId } }] }, { toolCalls: [skip] }]));
    for (const entityId of [shower.entityId, reader.entityId]) await secret(`/api/spaces/${spaceId}/members`, { body: { entityId } });
    await secret(`/api/agents/${shower.id}/inbox`, { body: { type: "external", data: {} } });
    await settledRuns(shower.id);
    await secret(`/api/agents/${reader.id}/inbox`, { body: { type: "external", data: {} } });
    const [run] = await waitForRuns(reader.id, 1);
    const read = run.toolCalls.find((entry) => entry.toolName === "read_messages")?.result as { messages: { role: string; tools?: Record<string, unknown>[] }[] };
    const tools = read.messages.flatMap((message) => message.tools ?? []);
    expect(tools).toEqual([
      { toolName: "showChart", status: "complete", args: { title: "Q4 revenue" }, result: { success: true, args: { title: "Q4 revenue" } } },
      { toolName: "secretNote", status: "complete" },
    ]);
    expect(JSON.stringify(read)).not.toContain("salaries");
  });
});
