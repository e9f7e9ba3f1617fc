/**
 * A remote agent's Agent Card, as the `a2a` provider reads it: from the
 * provider's `url` when it names a `.json` document, else from
 * `/.well-known/agent-card.json` on the endpoint's origin; at most 512 KB,
 * within 10 s (or the provider's `timeout` when shorter), through
 * `a2a-request.ts`; kept in the isolate for 10 minutes, keyed by its URL
 * and the provider's headers. What the gateway uses of it: the skills (one
 * tool each), the JSON-RPC interface for A2A 1.0 (unless `url` is the
 * endpoint itself), and whether the agent pushes task updates.
 */
import { z } from "zod";
import type { A2aProviderConfig } from "../config/provider-config";
import { requestA2a } from "./a2a-request";

export const maxCardBytes = 512 * 1024;
const cardTimeoutMs = 10_000;
const keptMs = 10 * 60 * 1000;
const maxKept = 32;

const Skill = z.object({
  id: z.string().min(1).max(200),
  name: z.string().max(200).optional(),
  description: z.string().max(4096).optional(),
  examples: z.array(z.string().max(1000)).max(20).optional(),
});
export type A2aSkill = z.infer<typeof Skill>;

const RemoteCard = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(4096).optional(),
  supportedInterfaces: z
    .array(z.object({ url: z.string().max(4096), protocolBinding: z.string().max(100), protocolVersion: z.string().max(20).optional() }))
    .max(32)
    .optional(),
  capabilities: z.object({ pushNotifications: z.boolean().optional() }).optional(),
  skills: z.array(Skill).max(256),
});

export type A2aCard = { name: string; description?: string; endpoint: string; pushNotifications: boolean; skills: A2aSkill[] };

const kept = new Map<string, { card: A2aCard; fetchedAt: number }>();

/** Whether `url` names the card itself (a JSON document) rather than the agent's endpoint. */
export const isCardUrl = (url: string): boolean => /\.json$/i.test(new URL(url).pathname);

export function cardUrlOf(url: string): string {
  return isCardUrl(url) ? url : new URL("/.well-known/agent-card.json", url).href;
}

export async function loadAgentCard(
  provider: A2aProviderConfig,
  env: Record<string, unknown>,
  now = Date.now(),
): Promise<{ ok: true; card: A2aCard } | { ok: false; error: string }> {
  const url = cardUrlOf(provider.url);
  const key = JSON.stringify([url, provider.headers ?? {}]);
  const hit = kept.get(key);
  if (hit && now - hit.fetchedAt < keptMs) return { ok: true, card: hit.card };
  const timeoutMs = Math.min(cardTimeoutMs, provider.timeout ?? cardTimeoutMs);
  const answer = await requestA2a(provider, env, "The agent card", { url, method: "GET", maxBytes: maxCardBytes, timeoutMs });
  if (!answer.ok) return answer;
  const parsed = RemoteCard.safeParse(answer.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `The agent card at ${url} is not an A2A 1.0 card (${issue?.path.join(".") || "card"}: ${issue?.message})` };
  }
  const remote = parsed.data;
  // `url` given as the endpoint wins; else the card's JSON-RPC interface for 1.0 (a card without a version is taken as 1.0).
  const jsonRpc = remote.supportedInterfaces?.find((entry) => entry.protocolBinding.toUpperCase() === "JSONRPC" && (entry.protocolVersion ?? "1.0").startsWith("1."));
  const endpoint = isCardUrl(provider.url) ? jsonRpc?.url : provider.url;
  if (endpoint === undefined) return { ok: false, error: `The agent card at ${url} offers no JSON-RPC interface for A2A 1.0` };
  let absolute: string;
  try {
    absolute = new URL(endpoint, url).href;
  } catch {
    return { ok: false, error: `The agent card at ${url} names an endpoint that is not a URL` };
  }
  const card = {
    name: remote.name,
    description: remote.description,
    endpoint: absolute,
    pushNotifications: remote.capabilities?.pushNotifications === true,
    skills: remote.skills,
  };
  kept.set(key, { card, fetchedAt: now });
  if (kept.size > maxKept) kept.delete(kept.keys().next().value as string);
  return { ok: true, card };
}
