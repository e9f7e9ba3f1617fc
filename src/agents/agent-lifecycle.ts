/**
 * Hooks the agent routes call when an agent's config is replaced or the agent
 * is deleted. The agent object (AgentDO) subscribes here once it exists.
 */
import type { AppEnv } from "../env";

export const agentLifecycle = {
  async configReplaced(_env: AppEnv, _agentId: string): Promise<void> {},
  async deleted(_env: AppEnv, _agentId: string): Promise<void> {},
};
