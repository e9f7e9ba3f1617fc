/**
 * The `env` group: `get_env` and `set_env`, the catalogue's environment
 * variables, as the agent's own variables kept in its object's storage
 * (`agents/agent-variables.ts`). They never read or write the gateway's
 * secrets or its env: an agent sees only what it (or an earlier cycle of it)
 * set.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import type { JournalAccess, RuntimeAccess } from "../engine/tool-context";
import { failed, succeeded } from "../engine/tool-outcome";

const VariableKey = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/, "A name of letters, digits, _ . and -, starting with a letter or _ (at most 128)")
  .describe("The variable's name, e.g. LAST_REPORT_ID");

const schemas = {
  get: zodSchema(z.object({ key: VariableKey })),
  set: zodSchema(
    z.object({
      key: VariableKey,
      value: z
        .string()
        .max(4_096)
        .refine((value) => new TextEncoder().encode(value).length <= 4_096, "At most 4096 bytes")
        .describe("At most 4096 bytes"),
    }),
  ),
};

export function createEnvTools(context: RuntimeAccess & JournalAccess) {
  const variables = context.toolRuntime.variables;
  return {
    get_env: tool({
      description: "Read one of your variables (kept across cycles; only yours). value is null when it is not set.",
      inputSchema: schemas.get,
      execute: async ({ key }) => succeeded({ key, value: variables.get(key) }),
    }),

    set_env: tool({
      description: "Set one of your variables (kept across cycles; only yours). Returns the value it had before (null if none).",
      inputSchema: schemas.set,
      execute: async ({ key, value }, { toolCallId }) => {
        const set = variables.set(key, value, context.callIds.idFor(toolCallId));
        return set.ok ? succeeded({ key, previous: set.previous }) : failed(set.error);
      },
    }),
  };
}
