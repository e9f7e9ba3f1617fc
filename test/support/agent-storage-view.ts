/** Reads an agent's consciousness from inside its object (tests only: no route shows what the model will remember). */
import { runInDurableObject } from "cloudflare:test";
import type { ModelMessage } from "ai";
import { z } from "zod";
import type { AgentDO } from "../../src/agents/agent-do";
import { AgentStorage } from "../../src/agents/agent-storage";
import { agentObject } from "./agents";

export async function consciousnessOf(agentId: string): Promise<ModelMessage[]> {
  return runInDurableObject(
    agentObject(agentId),
    async (_instance: AgentDO, state) => new AgentStorage(state.storage).read("consciousness", z.array(z.custom<ModelMessage>())) ?? [],
  );
}
