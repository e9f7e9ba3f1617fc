/**
 * What `ajv-formats` is in the Worker bundle: only the MCP SDK's ajv
 * provider imports it, right after `new Ajv()`, which throws first (see
 * ajv.ts in this folder).
 */
export default function addFormats(): never {
  throw new Error("ajv-formats is not bundled in the Worker: see src/bundle-aliases/ajv.ts");
}
