/**
 * Switchboard: wires the Worker (Hono app) and exports the Durable Objects.
 */
import { createApp } from "./api/app";
import type { AppEnv } from "./env";

export { SpaceDO } from "./spaces/space-do";
export { AgentDO } from "./agents/agent-do";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<AppEnv>;
