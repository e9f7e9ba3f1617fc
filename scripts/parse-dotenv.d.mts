/** Types for scripts/parse-dotenv.mjs (imported by the CLI and the tests). */
export function parseDotenv(text: string): Record<string, string>;
