/** Types for scripts/build.mjs (imported by vitest.config.ts). */
export function buildAll(options?: { types?: boolean; quiet?: boolean }): Promise<void>;
