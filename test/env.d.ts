import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      /** A secret configs may name (`${env.TOOL_API_TOKEN}` in a header), set in vitest.config.ts. */
      TOOL_API_TOKEN: string;
      /** The client secret of tools that act as their agent (`${env.AGENT_CLIENT_SECRET}`), set in vitest.config.ts. */
      AGENT_CLIENT_SECRET: string;
    }
  }
}
