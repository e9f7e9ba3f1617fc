/** The `spaces` built-ins through an agent: read_messages pages back by offset and limit; leave_space ends posting there. */
import { describe, expect, it } from "vitest";
import { waitForRuns } from "../../support/agents";
import { enter, skip, toolWorld } from "../../support/tool-world";

describe("read_messages and leave_space", () => {
  it("read_messages gives the newest `limit` after skipping `offset`; after leave_space, send_message has no space", async () => {
    const world = await toolWorld([], (spaceId) => [
      { toolCalls: [enter(spaceId)] },
      { toolCalls: [{ name: "send_message", args: { text: "one" } }] },
      { toolCalls: [{ name: "send_message", args: { text: "two" } }] },
      { toolCalls: [{ name: "send_message", args: { text: "three" } }] },
      {
        toolCalls: [
          { name: "read_messages", args: { limit: 1 } },
          { name: "read_messages", args: { offset: 1, limit: 2 } },
          { name: "read_messages", args: { offset: 3 } },
        ],
      },
      { toolCalls: [{ name: "leave_space", args: {} }] },
      {
        toolCalls: [
          { name: "send_message", args: { text: "after leaving" } },
          { name: "leave_space", args: {} },
        ],
      },
      { toolCalls: [{ name: "read_messages", args: {} }, { name: "read_messages", args: { spaceId } }, skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const texts = (result: unknown) => (result as { messages: { text?: string }[] }).messages.map((message) => message.text);
    const reads = run.toolCalls.filter((call) => call.toolName === "read_messages");
    expect(texts(reads[0].result)).toEqual(["three"]);
    expect(texts(reads[1].result)).toEqual(["one", "two"]);
    expect(texts(reads[2].result)).toEqual([]);
    const [left, leftAgain] = run.toolCalls.filter((call) => call.toolName === "leave_space");
    expect(left).toMatchObject({ status: "completed", result: { left: world.spaceId } });
    expect(leftAgain).toMatchObject({ status: "failed" });
    const sent = run.toolCalls.filter((call) => call.toolName === "send_message");
    expect(sent.map((call) => call.status)).toEqual(["completed", "completed", "completed", "failed"]);
    expect(JSON.stringify(sent[3].result)).toContain("enter_space");
    // Without an active space read_messages needs a spaceId; with one it still reads (the agent is still a member).
    expect(reads[3]).toMatchObject({ status: "failed" });
    expect(texts(reads[4].result)).toEqual(["one", "two", "three"]);
  });
});
