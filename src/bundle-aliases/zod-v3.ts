/**
 * What `zod/v3` (the copy of zod 3 that zod 4 ships beside itself) is in the
 * Worker bundle (`[alias]` in wrangler.toml; the same alias in
 * vitest.config.ts). Only the MCP SDK imports it, in its zod-compat layer,
 * which accepts a server's or client's schemas written with either zod: it
 * calls `object(shape)` only for a shape whose fields are all zod 3 schemas.
 * The SDK's own message schemas are zod 4, and the gateway writes none in
 * zod 3, so this is never reached; if it is, it says why. About 19 KiB
 * gzip with zod-to-json-schema (zod-to-json-schema.ts in this folder).
 */
export function object(): never {
  throw new Error('zod 3 is not bundled in the Worker: write MCP schemas with zod 4 (import { z } from "zod")');
}
