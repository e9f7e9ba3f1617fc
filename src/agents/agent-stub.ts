/** The AgentDO of an agent, addressed by the agent id. */
import type { AppEnv } from "../env";

export function agentStub(env: AppEnv, agentId: string) {
  return env.AGENT.get(env.AGENT.idFromName(agentId));
}
