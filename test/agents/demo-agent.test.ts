import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { demoAgentConfig, demoReplies, demoTexts } from "../../scripts/seed-demo.mjs";
import { callJson, createHuman, createSpace, memberHeaders, postMessage, secret } from "../support/api";
import { createAgent, settledRuns, waitForRuns, waitUntil } from "../support/agents";

type PendingCall = { toolCallId: string; toolName: string; runId: string; status: string };

/** The demo agent's open `ask_feedback` call, once its card waits for the person. */
async function waitingFeedback(agentId: string, answered: Set<string>): Promise<PendingCall> {
  let found: PendingCall | undefined;
  await waitUntil(
    async () => {
      const { body } = await secret<{ pendingToolCalls: PendingCall[] }>(`/api/agents/${agentId}/pending-tool-calls`);
      found = body.pendingToolCalls.find((call) => call.toolName === "ask_feedback" && call.status === "waiting" && !answered.has(call.toolCallId));
      return found !== undefined;
    },
    10_000,
    "the feedback card",
  );
  answered.add((found as PendingCall).toolCallId);
  return found as PendingCall;
}

describe("the demo agent (scripts/seed-demo.mjs)", () => {
  it("is a valid config that tells the time and keeps notes while it greets", async () => {
    const person = await createHuman("Demo person");
    const spaceId = await createSpace([person]);
    const config = (demoAgentConfig as (spaceId: string) => { builtins: string[] })(spaceId);
    expect(config.builtins).toEqual(expect.arrayContaining(["time", "notes"]));
    const agent = await createAgent(config);
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { event: "demo_started" } } });
    const [run] = await waitForRuns(agent.id, 1);
    expect(run.toolCalls.map((call) => [call.toolName, call.status])).toEqual([
      ["enter_space", "completed"],
      ["current_time", "completed"],
      ["notes_append", "completed"],
      ["send_message", "completed"],
      ["skip", "completed"],
    ]);
    expect(await (await env.FILES.get(`agents/${agent.id}/notes/visits.md`))?.text()).toContain("Visits to the demo space");
  });

  const sentTexts = (run: { toolCalls: { toolName: string; args: unknown }[] }) =>
    run.toolCalls.filter((call) => call.toolName === "send_message").map((call) => (call.args as { text: string }).text);

  it('asks for its form again whenever someone says "form", then goes on with its script; words that merely contain it do not', async () => {
    const person = await createHuman("Demo person");
    const spaceId = await createSpace([person]);
    const agent = await createAgent(demoAgentConfig(spaceId));
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    await secret(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { event: "demo_started" } } });
    const [greeting] = await waitForRuns(agent.id, 1);
    expect(sentTexts(greeting)).toEqual([demoTexts.greeting]);
    const answered = new Set<string>();
    const answer = async (call: PendingCall) => {
      const sent = await callJson(`/api/runs/${call.runId}/tool-results`, {
        headers: await memberHeaders(person),
        body: { callId: call.toolCallId, result: { rating: 5, favourite: "Tool cards" } },
      });
      expect(sent.status).toBe(200);
    };

    // The script as it was: a first message gets the question, the answer the thanks.
    await postMessage(spaceId, person, "Hello!");
    await answer(await waitingFeedback(agent.id, answered));
    const [, first] = await waitForRuns(agent.id, 2);
    expect(sentTexts(first)).toEqual([demoTexts.ask, demoTexts.thanks]);

    // "form", in any case and with punctuation around it: the same question again, and the thanks.
    await postMessage(spaceId, person, "Could I have the Form again, please?");
    const again = await waitingFeedback(agent.id, answered);
    await answer(again);
    const [, , second] = await waitForRuns(agent.id, 3);
    expect(sentTexts(second)).toEqual([demoTexts.ask, demoTexts.thanks]);
    expect(second.toolCalls.find((call) => call.toolName === "ask_feedback")).toMatchObject({ toolCallId: again.toolCallId, status: "completed" });

    // "platform" is not "form": the script goes on from after the thanks.
    await postMessage(spaceId, person, "Tell me about the platform");
    const runs = await settledRuns(agent.id);
    expect(runs).toHaveLength(4);
    expect(runs[3].toolCalls.map((call) => call.toolName)).not.toContain("ask_feedback");
    expect(sentTexts(runs[3])).toEqual([demoReplies[0]]);
  });
});

describe("a scripted model's jumps", () => {
  it("are checked when the agent is saved: a turn that does not exist, or no words to match, is a 400 naming the jump", async () => {
    const config = (jumps: unknown) => ({ agent: { name: "Jumper" }, model: { provider: "scripted", turns: [{ text: "one" }, { text: "two" }], jumps } });
    const missing = await secret<{ error: { code: string; message: string } }>("/api/agents", { body: { config: config([{ whenMessageSays: "again", toTurn: 2 }]) } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("jumps.0.toTurn");
    const wordless = await secret<{ error: { code: string; message: string } }>("/api/agents", { body: { config: config([{ whenMessageSays: "?!", toTurn: 1 }]) } });
    expect(wordless.status).toBe(400);
    expect(wordless.body.error.message).toContain("jumps.0.whenMessageSays");
    expect((await secret("/api/agents", { body: { config: config([{ whenMessageSays: "again", toTurn: 1 }]) } })).status).toBe(201);
  });
});
