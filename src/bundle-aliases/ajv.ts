/**
 * What `ajv` is in the Worker bundle (`[alias]` in wrangler.toml; the same
 * alias in vitest.config.ts). ajv compiles validators with `new Function`,
 * which Workers refuse, so the real one could never run here. The MCP SDK
 * imports it only to build its default validator; every client the gateway
 * makes is given `McpSchemaValidator` (tools/mcp/mcp-schema-validator.ts),
 * so this constructor is never reached. If it is, it says why.
 */
export default class Ajv {
  constructor() {
    throw new Error(
      "ajv is not bundled in the Worker (Workers forbid its code generation): give the MCP client `jsonSchemaValidator: new McpSchemaValidator()` (tools/mcp/mcp-schema-validator.ts)",
    );
  }
}
