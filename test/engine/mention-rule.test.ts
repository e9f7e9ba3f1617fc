/**
 * One rule for mentions, for a person's message (`POST …/messages`) and an
 * agent's (`send_message`): everyone mentioned is a member of the space. A
 * refusal names the mention and posts nothing: a 400 for the route, a tool
 * error for the model. A member agent may be named by its agent id on both.
 */
import { describe, expect, it } from "vitest";
import { createHuman, createSpace, postMessage, secret } from "../support/api";
import { createAgent, scriptedConfig, settledRuns, waitForRuns } from "../support/agents";
import { expectErrorEnvelope } from "../support/error-envelope";

type Listed = { messages: { id: string; entityId: string; text?: string; mentions?: string[] }[] };

async function messagesOf(spaceId: string) {
  return (await secret<Listed>(`/api/spaces/${spaceId}/messages?limit=200`)).body.messages;
}

describe("mentions follow one rule", () => {
  it("the route refuses a non-member's mention with 400 naming it, and posts nothing", async () => {
    const ada = await createHuman("Ada");
    const outsider = await createHuman("Olu");
    const spaceId = await createSpace([ada]);
    const listener = await createAgent(scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }]));
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: listener.entityId } });
    await settledRuns(listener.id);
    const before = (await messagesOf(spaceId)).length;
    const refused = await secret(`/api/spaces/${spaceId}/messages`, { body: { text: "hi", entityId: ada, mentions: [listener.entityId, outsider] } });
    expect(refused.status).toBe(400);
    expectErrorEnvelope(refused.body, "validation_error");
    expect(refused.body.error.message).toContain(outsider);
    expect(refused.body.error.message).not.toContain(listener.entityId);
    expect(await messagesOf(spaceId)).toHaveLength(before);
    // A member agent named by its agent id is stored as its entity id.
    const posted = await postMessage(spaceId, ada, "hello", [listener.id]);
    expect((await messagesOf(spaceId)).find((message) => message.id === posted.id)?.mentions).toEqual([listener.entityId]);
  });

  it("send_message with a non-member's mention is a tool error naming it, posts nothing and wakes nobody", async () => {
    const ada = await createHuman("Ada");
    const outsider = await createHuman("Olu");
    const spaceId = await createSpace([ada]);
    const listener = await createAgent(scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }]));
    const talker = await createAgent(
      scriptedConfig([
        {
          toolCalls: [
            { name: "enter_space", args: { spaceId } },
            { name: "send_message", args: { text: "psst", mentions: [listener.entityId, outsider] } },
          ],
        },
        // Corrected: the member agent, by its agent id.
        {
          toolCalls: [
            { name: "send_message", args: { text: "ping listener", mentions: [listener.id] } },
            { name: "skip", args: {} },
          ],
        },
      ]),
    );
    for (const member of [listener, talker]) await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: member.entityId } });
    await settledRuns(listener.id);
    await secret(`/api/agents/${talker.id}/inbox`, { body: { type: "external", data: { go: true } } });
    const [run] = await waitForRuns(talker.id, 1);
    expect(run.status).toBe("completed");
    const sends = run.toolCalls.filter((entry) => entry.toolName === "send_message");
    expect(sends[0]).toMatchObject({ status: "failed", error: expect.stringContaining(`not members of this space: ${outsider}`) });
    expect(sends[0].error).not.toContain(listener.entityId);
    expect(sends[1]).toMatchObject({ status: "completed" });
    const texts = (await messagesOf(spaceId)).filter((message) => message.entityId === talker.entityId);
    expect(texts.map((message) => message.text)).toEqual(["ping listener"]);
    expect(texts[0].mentions).toEqual([listener.entityId]);
    // Only the corrected message woke the listener (wakes are in its inbox before send_message returns).
    const listenerRuns = await settledRuns(listener.id);
    expect(listenerRuns.flatMap((entry) => entry.trigger.map((event) => event.text))).toEqual(["ping listener"]);
  });
});
