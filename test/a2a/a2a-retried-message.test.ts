/**
 * A message the A2A face took, sent again with the same `messageId` (a
 * caller that never heard the answer and retries): it answers with the task
 * the first one made, through a restart of every object in between, when
 * the first request died before writing its task down (its run is found by
 * its trigger), and when both come at once; nothing is posted twice and no
 * second run starts.
 * The same `messageId` with other content is refused; a message refused
 * before anything was done may come again, mended. An answer to a waiting
 * task sent again is given once (it never answers the next call). What the
 * face kept goes with its agent.
 */
import { SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import { abortAllDurableObjects } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { secret, secretHeaders } from "../support/api";
import { a2aClient, a2aRpc } from "../support/a2a-client";
import { createAgent, type ScriptedTurn, scriptedConfig, settledRuns } from "../support/agents";
import { enter } from "../support/tool-world";

const a2a = { a2a: { enabled: true } };

type RpcTask = { id: string; contextId: string; status: { state: string } };
type RpcAnswer = { result?: { task?: RpcTask }; error?: { code: number; message: string } };

const sendMessage = (agentId: string, message: Record<string, unknown>, configuration?: Record<string, unknown>) =>
  a2aRpc(agentId, secretHeaders, { jsonrpc: "2.0", id: crypto.randomUUID(), method: "SendMessage", params: { message, ...(configuration && { configuration }) } }).then(
    (answer) => answer.body as RpcAnswer,
  );

function taskOf(answer: RpcAnswer): RpcTask {
  expect(answer.error).toBeUndefined();
  expect(answer.result?.task).toBeDefined();
  return answer.result?.task as RpcTask;
}

/** The conversation's messages that are not the agent's. */
async function callerMessages(contextId: string, agentEntityId: string) {
  const { body } = await secret<{ messages: { entityId: string; text?: string }[] }>(`/api/spaces/${contextId}/messages?afterSeq=0`);
  return body.messages.filter((message) => message.entityId !== agentEntityId);
}

const pick = {
  name: "pick_size",
  description: "A person picks a size",
  executionType: "space",
  timeout: 20_000,
  inputSchema: { type: "object", properties: { item: { type: "string" } } },
  resultSchema: { type: "object", properties: { size: { enum: ["S", "M", "L"] } }, required: ["size"] },
};

/** An agent with its conversation made (the script needs the conversation's id). */
async function agentInConversation(next: (contextId: string) => ScriptedTurn[]) {
  const agent = await createAgent({ ...scriptedConfig([{ text: "Hello." }]), ...a2a, tools: [pick] });
  const opening = taskOf(await sendMessage(agent.id, { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "Hi" }] }));
  const put = await secret(`/api/agents/${agent.id}`, { method: "PUT", body: { config: { ...scriptedConfig(next(opening.contextId)), ...a2a, tools: [pick] } } });
  expect(put.status).toBe(200);
  return { agent, contextId: opening.contextId };
}

describe("a message sent again to the A2A face", () => {
  it("answers with the task it made, after every object was aborted and through the SDK's client too: one message in the conversation, one run, one push config", async () => {
    const agent = await createAgent({ ...scriptedConfig([{ text: "The answer is 42." }, { text: "A second run." }]), ...a2a });
    const message = { messageId: `m-${crypto.randomUUID()}`, role: "ROLE_USER", parts: [{ text: "What is the answer?" }] };
    const push = { taskPushNotificationConfig: { url: `http://hooks.test/ok/${crypto.randomUUID()}`, token: "retry-token" } };
    const first = taskOf(await sendMessage(agent.id, message, push));
    expect(first.status.state).toBe("TASK_STATE_COMPLETED");
    // The object restarts between the two (a deploy, a crash): what the face kept is in D1.
    await abortAllDurableObjects();
    const again = taskOf(await sendMessage(agent.id, message, push));
    expect(again).toMatchObject({ id: first.id, contextId: first.contextId, status: { state: "TASK_STATE_COMPLETED" } });
    const client = await a2aClient(agent.id, secretHeaders);
    const viaSdk = (await client.sendMessage(SendMessageRequest.fromJSON({ message }))) as Task;
    expect(viaSdk.id).toBe(first.id);
    expect(viaSdk.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // As if the first request had died after posting, before it wrote the task down: the run that took the message is found by its trigger.
    const taskOfRow = () =>
      env.DB.prepare("SELECT task_id FROM a2a_messages WHERE agent_id = ? AND message_id = ?").bind(agent.id, message.messageId).first<{ task_id: string | null }>();
    expect((await taskOfRow())?.task_id).toBe(first.id);
    await env.DB.prepare("UPDATE a2a_messages SET task_id = NULL WHERE agent_id = ? AND message_id = ?").bind(agent.id, message.messageId).run();
    expect(taskOf(await sendMessage(agent.id, message)).id).toBe(first.id);
    expect((await taskOfRow())?.task_id).toBe(first.id);
    expect((await callerMessages(first.contextId, agent.entityId)).map((posted) => posted.text)).toEqual(["What is the answer?"]);
    expect((await settledRuns(agent.id)).map((run) => run.id)).toEqual([first.id]);
    const listed = await a2aRpc(agent.id, secretHeaders, { jsonrpc: "2.0", id: 1, method: "ListTaskPushNotificationConfigs", params: { taskId: first.id } });
    expect((listed.body.result as { configs: unknown[] }).configs).toHaveLength(1);
  });

  it("sent twice at once: both answer the one task it made, and one run takes it", async () => {
    const agent = await createAgent({ ...scriptedConfig([{ text: "Once." }, { text: "Twice." }]), ...a2a });
    const message = { messageId: `m-${crypto.randomUUID()}`, role: "ROLE_USER", parts: [{ text: "Only once, please" }] };
    const [one, two] = (await Promise.all([sendMessage(agent.id, message), sendMessage(agent.id, message)])).map(taskOf);
    expect(two.id).toBe(one.id);
    expect(two.contextId).toBe(one.contextId);
    expect((await callerMessages(one.contextId, agent.entityId)).map((posted) => posted.text)).toEqual(["Only once, please"]);
    const runs = await settledRuns(agent.id);
    expect(runs.map((run) => run.id)).toEqual([one.id]);
    // Posted once, into one conversation: the run took one message (two posts at once would both be in its trigger).
    expect(runs[0].trigger.filter((event) => event.type === "space_message")).toHaveLength(1);
  });

  it("the same messageId with other content is refused (-32602) and posts nothing; a message refused before anything was done may come again, mended", async () => {
    const agent = await createAgent({ ...scriptedConfig([{ text: "Noted." }, { text: "Noted again." }]), ...a2a });
    const messageId = `m-${crypto.randomUUID()}`;
    const first = taskOf(await sendMessage(agent.id, { messageId, role: "ROLE_USER", parts: [{ text: "Blue" }] }));
    const other = await sendMessage(agent.id, { messageId, role: "ROLE_USER", parts: [{ text: "Green" }] });
    expect(other.error).toMatchObject({ code: -32602, message: expect.stringMatching(/messageId: ".*" was already used for a different message/) });
    const elsewhere = await sendMessage(agent.id, { messageId, role: "ROLE_USER", parts: [{ text: "Blue" }], contextId: first.contextId });
    expect(elsewhere.error?.code).toBe(-32602);
    expect((await callerMessages(first.contextId, agent.entityId)).map((posted) => posted.text)).toEqual(["Blue"]);
    expect(await settledRuns(agent.id)).toHaveLength(1);

    const refusedId = `m-${crypto.randomUUID()}`;
    const refused = await sendMessage(agent.id, { messageId: refusedId, role: "ROLE_USER", parts: [{ text: "Red" }], contextId: "spc_not_a_conversation" });
    expect(refused.error?.code).toBe(-32602);
    const mended = taskOf(await sendMessage(agent.id, { messageId: refusedId, role: "ROLE_USER", parts: [{ text: "Red" }], contextId: first.contextId }));
    expect(mended.status.state).toBe("TASK_STATE_COMPLETED");

    // What the face kept goes with its agent.
    const kept = () => env.DB.prepare("SELECT count(*) AS kept FROM a2a_messages WHERE agent_id = ?").bind(agent.id).first<{ kept: number }>();
    expect((await kept())?.kept).toBe(2);
    expect((await secret(`/api/agents/${agent.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await kept())?.kept).toBe(0);
  });

  it("an answer to a waiting task sent again is given once: it does not answer the next call; an answer refused may come again, mended", async () => {
    const { agent, contextId } = await agentInConversation((spaceId) => [
      { toolCalls: [enter(spaceId), { name: "pick_size", args: { item: "shirt" } }] },
      { toolCalls: [{ name: "pick_size", args: { item: "hat" } }] },
      { text: "Sizes noted." },
    ]);
    const waiting = taskOf(await sendMessage(agent.id, { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "A shirt and a hat" }], contextId }));
    expect(waiting.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const answerId = `a-${crypto.randomUUID()}`;
    const unfit = await sendMessage(agent.id, { messageId: answerId, role: "ROLE_USER", parts: [{ data: { size: "XXL" } }], taskId: waiting.id });
    expect(unfit.error?.code).toBe(-32602);
    const answer = { messageId: answerId, role: "ROLE_USER", parts: [{ data: { size: "M" } }], taskId: waiting.id };
    const next = taskOf(await sendMessage(agent.id, answer));
    expect(next.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    // Sent again while the task waits on its second call: the same task, the second call still waiting.
    const again = taskOf(await sendMessage(agent.id, answer));
    expect(again).toMatchObject({ id: waiting.id, status: { state: "TASK_STATE_INPUT_REQUIRED" } });
    const done = taskOf(await sendMessage(agent.id, { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ data: { size: "L" } }], taskId: waiting.id }));
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    const runs = await settledRuns(agent.id);
    const run = runs.find((entry) => entry.id === waiting.id);
    expect(run?.toolCalls.filter((call) => call.toolName === "pick_size").map((call) => call.result)).toEqual([{ size: "M" }, { size: "L" }]);
  });
});
