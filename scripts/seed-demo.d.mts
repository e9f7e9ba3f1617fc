/** Types for scripts/seed-demo.mjs (the browser test reads the demo's texts). */
export const demoTexts: { greeting: string; ask: string; thanks: string };
export const feedbackTool: Record<string, unknown>;
export const formWord: string;
export const demoReplies: string[];
export function demoAgentConfig(spaceId: string): Record<string, unknown>;
export function signToken(subject: string, secret: string, seconds?: number): string;
export default function seedDemo(options: {
  baseUrl: string;
  secretKey: string;
  stateDir?: string;
  vars?: Record<string, string>;
}): Promise<{ personId: string; spaceId: string; agentId: string; agentEntityId: string }>;
