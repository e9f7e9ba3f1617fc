import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/agents/system-prompt";

const base = {
  agent: { agentId: "agt_1", entityId: "ent_1", name: "a" },
  spaces: [],
  activeSpaceId: undefined,
  goals: [],
  memories: [],
  plans: [],
  events: [],
  now: new Date("2026-11-22T10:00:00Z"),
};

describe("provider instructions in the system prompt", () => {
  it("each provider's instructions get their own heading, before the inbox", () => {
    const prompt = buildSystemPrompt({
      ...base,
      providerInstructions: [
        { provider: "github", kind: "mcp", text: "Use search_code before get_file." },
        { provider: "pets", kind: "openapi", text: "Pet ids are UUIDs." },
      ],
    });
    expect(prompt).toContain("## Tool providers\n### github (mcp)\nUse search_code before get_file.\n### pets (openapi)\nPet ids are UUIDs.");
    expect(prompt.indexOf("## Tool providers")).toBeLessThan(prompt.indexOf("## Inbox this cycle"));
  });

  it("no section without instructions", () => {
    expect(buildSystemPrompt(base)).not.toContain("Tool providers");
  });

  it("a task from another agent says where the answer goes", () => {
    const prompt = buildSystemPrompt({
      ...base,
      events: [
        {
          id: "evt_task_call_1",
          receivedAt: "2026-11-22T10:00:00Z",
          attempts: 0,
          event: {
            type: "agent_task",
            toolCallId: "call_1",
            toolName: "team__researcher",
            fromAgentId: "agt_0",
            fromEntityId: "ent_0",
            fromName: "lead",
            task: "Find the capital of Peru",
            depth: 1,
          },
        },
      ],
    });
    expect(prompt).toContain(
      'agent_task from agent "lead" (ent_0, callId call_1): "Find the capital of Peru". Work on it; your final answer (the text of your last step) goes back to "lead" when this cycle ends.',
    );
  });
});
