/**
 * What the agent object must hear when the agent routes change an agent:
 * a replaced config is reloaded (and a scripted model starts its turns over);
 * a deleted agent's object forgets everything; an imported agent's plans get
 * their deadlines.
 */
import type { AppEnv } from "../env";
import type { PlanSchedule } from "../knowledge/knowledge-context";
import { agentStub } from "./agent-stub";

export const agentLifecycle = {
  /** A new agent whose config asks for warmup connects its MCP servers now. */
  async created(env: AppEnv, agentId: string): Promise<void> {
    await agentStub(env, agentId).warmup();
  },
  async configReplaced(env: AppEnv, agentId: string): Promise<void> {
    await agentStub(env, agentId).configReplaced();
  },
  async plansImported(env: AppEnv, agentId: string, plans: PlanSchedule[]): Promise<void> {
    await agentStub(env, agentId).plansImported(plans);
  },
  async deleted(env: AppEnv, agentId: string): Promise<void> {
    await agentStub(env, agentId).destroy();
  },
};
