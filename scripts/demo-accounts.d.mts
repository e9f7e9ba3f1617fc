/** Types for scripts/demo-accounts.mjs. */
export const demoNotesScopes: string[];
export function startDemoAccounts(): Promise<{ issuer: string; notesUrl: string; calls: { tool: string; accountId: string }[]; close(): Promise<void> }>;
