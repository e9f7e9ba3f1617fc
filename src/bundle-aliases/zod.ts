/**
 * What `import … from "zod"` and `from "zod/v4"` are in the Worker bundle
 * (`[alias]` in wrangler.toml matches the exact specifier, so `zod/v4/core`,
 * `zod/v4/mini` and the other subpaths are untouched; the same aliases in
 * vitest.config.ts). Same modules, same classes, same functions: only the
 * namespace object `z` differs.
 *
 * Why: @hono/zod-openapi calls `extendZodWithOpenApi(z)`, and @ai-sdk/openai,
 * @ai-sdk/anthropic and the MCP SDK use `z.object(…)` on a `z` imported by
 * name, so the bundler cannot see which members are used and keeps every
 * export of the namespace: in zod 4 that is all ~40 locales, the whole core
 * and the `compile` JIT (about 450 KiB before minifying). Here `z` is the
 * namespace of zod-namespace.ts: everything else, identical
 * (test/bundle-aliases.test.ts checks it member by member).
 */
import * as z from "./zod-namespace";

export * from "./zod-namespace";
export { z, z as default };
