/**
 * What the agent object must hear when the agent routes change an agent:
 * a replaced config is reloaded (and a scripted model starts its turns over);
 * a deleted agent's object forgets everything.
 */
import type { AppEnv } from "../env";
import { agentStub } from "./agent-stub";

export const agentLifecycle = {
  async configReplaced(env: AppEnv, agentId: string): Promise<void> {
    await agentStub(env, agentId).configReplaced();
  },
  async deleted(env: AppEnv, agentId: string): Promise<void> {
    await agentStub(env, agentId).destroy();
  },
};
