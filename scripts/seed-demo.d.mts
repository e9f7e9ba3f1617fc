/** Types for scripts/seed-demo.mjs (the browser tests read the demo's texts and its tools). */
export const demoTexts: { greeting: string; ask: string; thanks: string };
export const feedbackTool: Record<string, unknown>;
export const formWord: string;
export const notesWord: string;
export const notesTexts: { ask: string; done: string };
export const demoReplies: string[];
export function demoNotesServer(notesUrl: string): {
  name: string;
  url: string;
  auth: { type: "oauth"; owner: "person"; service: string; tools: { name: string; description: string }[] };
};
export function demoAgentConfig(spaceId: string, accounts?: { notesUrl: string }): Record<string, unknown>;
export function signToken(subject: string, secret: string, seconds?: number): string;
export default function seedDemo(options: {
  baseUrl: string;
  secretKey: string;
  stateDir?: string;
  vars?: Record<string, string>;
  accounts?: { notesUrl: string; issuer: string };
}): Promise<{ personId: string; spaceId: string; agentId: string; agentEntityId: string }>;
