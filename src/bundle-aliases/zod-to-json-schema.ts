/**
 * What `zod-to-json-schema` is in the Worker bundle (`[alias]` in
 * wrangler.toml; the same alias in vitest.config.ts). The MCP SDK calls it
 * only to describe a zod 3 schema; a zod 4 schema it describes with zod's
 * own `toJSONSchema`. The gateway has no zod 3 schema (see zod-v3.ts in this
 * folder), so this is never reached; if it is, it says why.
 */
export function zodToJsonSchema(): never {
  throw new Error("zod-to-json-schema is not bundled in the Worker: it describes zod 3 schemas only, and the gateway writes its schemas with zod 4");
}
