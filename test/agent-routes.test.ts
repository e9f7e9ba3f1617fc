import { describe, expect, it } from "vitest";
import { callJson, createHuman, memberHeaders, secret } from "./support/api";
import { createAgent, scriptedConfig } from "./support/agents";

type ErrorBody = { error: { code: string; message: string } };

describe("agent activity routes answer bad input in the envelope", () => {
  it("unknown runs and agents are 404; bad queries and inbox bodies are 400; tokens are 403", async () => {
    const agent = await createAgent(scriptedConfig([]));
    const cases: { path: string; options?: Parameters<typeof secret>[1]; status: number; code: string }[] = [
      { path: "/api/runs/run_unknown", status: 404, code: "not_found" },
      { path: "/api/agents/agt_unknown/runs", status: 404, code: "not_found" },
      { path: "/api/agents/agt_unknown/goals", status: 404, code: "not_found" },
      { path: "/api/agents/agt_unknown/pending-tool-calls", status: 404, code: "not_found" },
      { path: "/api/agents/agt_unknown/inbox", options: { body: { type: "external", data: {} } }, status: 404, code: "not_found" },
      { path: `/api/agents/${agent.id}/runs?limit=0`, status: 400, code: "validation_error" },
      { path: `/api/agents/${agent.id}/pending-tool-calls?status=finished`, status: 400, code: "validation_error" },
      { path: `/api/agents/${agent.id}/inbox`, options: { body: { type: "space_message", data: {} } }, status: 400, code: "validation_error" },
      { path: `/api/agents/${agent.id}/inbox`, options: { body: { data: {} } }, status: 400, code: "validation_error" },
    ];
    for (const entry of cases) {
      const answer = await secret<ErrorBody>(entry.path, entry.options);
      expect([entry.path, answer.status, answer.body.error.code]).toEqual([entry.path, entry.status, entry.code]);
    }
    const person = await createHuman();
    for (const path of ["/api/runs/run_unknown", `/api/agents/${agent.id}/runs`, "/api/stats"]) {
      const answer = await callJson<ErrorBody>(path, { headers: await memberHeaders(person) });
      expect([path, answer.status, answer.body.error.code]).toEqual([path, 403, "forbidden"]);
    }
  });

  it("an external inbox push is accepted with 202 and its event id", async () => {
    const agent = await createAgent(scriptedConfig([]));
    const answer = await secret<{ eventId: string }>(`/api/agents/${agent.id}/inbox`, { body: { type: "external", data: { n: 1 } } });
    expect(answer.status).toBe(202);
    expect(answer.body.eventId).toMatch(/^evt_/);
  });
});
