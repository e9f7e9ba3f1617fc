/**
 * Zod's classic API (what `import { z } from "zod"` and `from "zod/v4"`
 * give) without the parts nothing in the Worker uses, which a namespace
 * object would otherwise keep: every locale (`z.locales`), the `core`
 * namespace (the locales again, and all of core), `compile` (a JIT built on
 * `new Function`, which Workers refuse) and `fromJSONSchema`. A module's own
 * export hides an `export *` of the same name, so these names are undefined
 * here and the files behind them leave the bundle. zod.ts in this folder
 * says why a namespace object matters.
 *
 * The path is zod's own file because `zod` and `zod/v4` are the aliased names.
 */
export * from "../../node_modules/zod/v4/classic/external.js";

export const core = undefined;
export const locales = undefined;
export const compile = undefined;
export const withParser = undefined;
export const toZod = undefined;
export const ZodCompileAsyncError = undefined;
export const ZodCompileUnsupportedError = undefined;
export const INVALID = undefined;
export const fromJSONSchema = undefined;
