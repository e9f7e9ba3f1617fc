/**
 * The Agent2Agent face of a real `npm run dev`, driven by the A2A SDK's own
 * client over the network, as another agent platform would: the card found
 * under the agent's endpoint, a task that completes with the agent's reply,
 * and a task whose `space` tool waits on the caller (`input-required`),
 * answered over A2A, then `completed`; a person's JWT as bearer; the same
 * message sent again answers with the one task it made.
 */
import { SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { describe, expect, it } from "vitest";
import { signToken } from "../../client/src/index";
import { admin, gateway } from "./gateway";

function send(text: string, ids: { contextId?: string; taskId?: string } = {}) {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...ids } });
}

const answer = (data: unknown, taskId: string) => SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ data }], taskId } });

const textOf = (task: Task) => task.artifacts.flatMap((artifact) => artifact.parts.map((part) => (part.content?.$case === "text" ? part.content.value : ""))).join("");

/** The SDK's client for an agent, from its card, with `authorization` on every request. */
async function clientFor(agentId: string, authorization: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    request.headers.set("authorization", authorization);
    return fetch(request);
  };
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
  return factory.createFromUrl(`${gateway.baseUrl}/a2a/agents/${agentId}/`);
}

describe("A2A against npm run dev", () => {
  it("a person's client sends a message and gets the agent's reply as a completed task", async () => {
    const person = await admin.entities.create({ type: "human", name: "Remy" });
    const agent = await admin.agents.create({
      agent: { name: "Answerer", description: "Answers in one line" },
      model: { provider: "scripted", turns: [{ text: "Forty-two." }] },
      a2a: { enabled: true, people: [person.id] },
    });
    const client = await clientFor(agent.id, `Bearer ${await signToken(person.id, { secret: gateway.vars.JWT_SECRET, expiresIn: "1h" })}`);
    const card = await client.getAgentCard();
    expect(card.name).toBe("Answerer");
    const task = (await client.sendMessage(send("What is the answer?"))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task)).toBe("Forty-two.");
  }, 60_000);

  it("a space tool that waits on the caller is input-required, and answered over A2A the task completes", async () => {
    const agent = await admin.agents.create({
      agent: { name: "Outfitter" },
      model: { provider: "scripted", turns: [{ text: "Hello." }] },
      a2a: { enabled: true },
    });
    const client = await clientFor(agent.id, `Bearer ${gateway.vars.GATEWAY_SECRET_KEY}`);
    const opening = (await client.sendMessage(send("Hi"))) as Task;
    expect(opening.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The script names the conversation's space, which the first exchange made.
    await admin.agents.update(agent.id, {
      agent: { name: "Outfitter" },
      model: {
        provider: "scripted",
        turns: [
          {
            toolCalls: [
              { name: "enter_space", args: { spaceId: opening.contextId } },
              { name: "pick_size", args: { item: "shirt" } },
            ],
          },
          { text: "Size noted." },
        ],
      },
      a2a: { enabled: true },
      tools: [
        {
          name: "pick_size",
          description: "The caller picks a size",
          executionType: "space",
          timeout: 30_000,
          inputSchema: { type: "object", properties: { item: { type: "string" } } },
          resultSchema: { type: "object", properties: { size: { enum: ["S", "M", "L"] } }, required: ["size"] },
        },
      ],
    });
    const waiting = (await client.sendMessage(send("I need a shirt", { contextId: opening.contextId }))) as Task;
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await client.sendMessage(answer({ size: "M" }, waiting.id))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done)).toBe("Size noted.");
  }, 60_000);

  it("the same message sent again (a client retrying) answers with the task it made: one run, one message in the conversation", async () => {
    const agent = await admin.agents.create({
      agent: { name: "Once" },
      model: { provider: "scripted", turns: [{ text: "Only once." }, { text: "A second run." }] },
      a2a: { enabled: true },
    });
    const client = await clientFor(agent.id, `Bearer ${gateway.vars.GATEWAY_SECRET_KEY}`);
    const request = send("Say it once");
    const first = (await client.sendMessage(request)) as Task;
    const again = (await client.sendMessage(request)) as Task;
    expect(again.id).toBe(first.id);
    expect(again.contextId).toBe(first.contextId);
    expect(textOf(again)).toBe("Only once.");
    const { runs } = await admin.agents.runs(agent.id);
    expect(runs.map((run) => run.id)).toEqual([first.id]);
    const messages = await admin.messages.list(first.contextId);
    expect(messages.messages.filter((message) => message.text === "Say it once")).toHaveLength(1);
  }, 60_000);
});
