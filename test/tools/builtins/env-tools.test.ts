/** The `env` group: the agent's own variables, in its object's storage, across cycles; never the gateway's env or secrets. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AgentDO } from "../../../src/agents/agent-do";
import { AgentVariables, maxVariables } from "../../../src/agents/agent-variables";
import { waitForRuns } from "../../support/agents";
import { catalogueAgent } from "../../support/catalogue";

describe("get_env and set_env", () => {
  it("keep the agent's variables across cycles, answer the previous value, and never read the gateway's env", async () => {
    const world = await catalogueAgent({ builtins: ["spaces", "env"] }, () => [
      {
        toolCalls: [
          { name: "set_env", args: { key: "LAST_REPORT", value: "r-1" } },
          { name: "get_env", args: { key: "GATEWAY_SECRET_KEY" } },
          { name: "set_env", args: { key: "1bad", value: "x" } },
        ],
      },
      {
        toolCalls: [
          { name: "set_env", args: { key: "LAST_REPORT", value: "r-2" } },
          { name: "skip", args: {} },
        ],
      },
      {
        toolCalls: [
          { name: "get_env", args: { key: "LAST_REPORT" } },
          { name: "get_env", args: { key: "NEVER_SET" } },
          { name: "skip", args: {} },
        ],
      },
    ]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1);
    expect(first.toolCalls.map((call) => [call.toolName, call.status, call.result])).toEqual([
      ["set_env", "completed", { key: "LAST_REPORT", previous: null }],
      ["get_env", "completed", { key: "GATEWAY_SECRET_KEY", value: null }],
      ["set_env", "failed", expect.anything()],
      ["set_env", "completed", { key: "LAST_REPORT", previous: "r-1" }],
      ["skip", "completed", expect.anything()],
    ]);
    expect(env.GATEWAY_SECRET_KEY).toBeTruthy();
    await world.wake();
    const second = (await waitForRuns(world.agent.id, 2)).find((run) => run.id !== first.id);
    expect(second?.toolCalls.slice(0, 2).map((call) => call.result)).toEqual([
      { key: "LAST_REPORT", value: "r-2" },
      { key: "NEVER_SET", value: null },
    ]);
  });

  it("a set done again after a restart (same call) answers as the first time; past the most variables a new key is refused", async () => {
    const stub = env.AGENT.getByName(`variables-${crypto.randomUUID()}`);
    const answers = await runInDurableObject(stub, async (_instance: AgentDO, state) => {
      const variables = new AgentVariables(state.storage.sql);
      const first = variables.set("k", "one", "call_1");
      const second = variables.set("k", "two", "call_2");
      const again = variables.set("k", "two", "call_2");
      for (let index = 1; index < maxVariables; index += 1) variables.set(`k${index}`, "v", `call_k${index}`);
      return { first, second, again, value: variables.get("k"), over: variables.set("one_more", "v", "call_x"), existing: variables.set("k1", "w", "call_y") };
    });
    expect(answers).toMatchObject({
      first: { ok: true, previous: null },
      second: { ok: true, previous: "one" },
      again: { ok: true, previous: "one" },
      value: "two",
      over: { ok: false },
      existing: { ok: true, previous: "v" },
    });
  });
});
