/** Types for scripts/test-wrangler-config.mjs (imported by vitest.config.ts and a test). */
export function writeTestWranglerConfig(configPath?: string, directory?: string): string;
