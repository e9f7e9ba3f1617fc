/**
 * What a new agent starts from in the console: a config as a person writes
 * it (the gateway fills in every default), one per kind of model. Keys are
 * named (`apiKeyEnv`: the Worker secret that holds it), never given.
 */

export type AgentTemplate = { id: string; title: string; hint: string; config(name: string): Record<string, unknown> };

const system = "You are a helpful agent in Switchboard spaces. Answer briefly and say what you did.";

export const agentTemplates: readonly AgentTemplate[] = [
  {
    id: "scripted",
    title: "Scripted demo (no model, no key)",
    hint: "Plays its turns in order, one per model call: text and tool calls written here. Runs offline; good for trying tools and cards.",
    config: (name) => ({
      agent: { name, description: "A scripted agent: its turns are written in its config" },
      model: {
        provider: "scripted",
        turns: [
          { toolCalls: [{ name: "current_time", args: { timezone: "UTC" } }] },
          { text: "Hello! I am a scripted agent: I checked the time, and now I answer from my script." },
        ],
      },
      builtins: ["spaces", "knowledge", "calls", "time"],
    }),
  },
  {
    id: "openai",
    title: "OpenAI",
    hint: "Set the key with `wrangler secret put OPENAI_API_KEY` (or in .dev.vars); apiKeyEnv names another secret if you keep it elsewhere.",
    config: (name) => ({
      agent: { name, system },
      model: { provider: "openai", name: "gpt-4.1-mini", apiKeyEnv: "OPENAI_API_KEY" },
    }),
  },
  {
    id: "anthropic",
    title: "Anthropic",
    hint: "Set the key with `wrangler secret put ANTHROPIC_API_KEY` (or in .dev.vars).",
    config: (name) => ({
      agent: { name, system },
      model: { provider: "anthropic", name: "claude-sonnet-4-5", apiKeyEnv: "ANTHROPIC_API_KEY" },
    }),
  },
  {
    id: "openai-compatible",
    title: "OpenAI-compatible (Ollama, vLLM, LM Studio)",
    hint: "baseURL is the server's /v1. Ollama needs no key; for a server that does, add apiKeyEnv with the secret's name.",
    config: (name) => ({
      agent: { name, system },
      model: { provider: "openai-compatible", name: "llama3.1", baseURL: "http://localhost:11434/v1" },
    }),
  },
  {
    id: "workers-ai",
    title: "Workers AI",
    hint: 'Needs the AI binding in wrangler.toml ([ai] binding = "AI"); no key.',
    config: (name) => ({
      agent: { name, system },
      model: { provider: "workers-ai", name: "@cf/meta/llama-3.1-8b-instruct" },
    }),
  },
];

export function templateById(id: string): AgentTemplate | undefined {
  return agentTemplates.find((template) => template.id === id);
}
