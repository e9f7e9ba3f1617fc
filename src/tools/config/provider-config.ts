/**
 * `providers` in the agent config: tool sources besides the agent's own
 * `tools` and its MCP servers (which keep their `mcp.servers` place). Each
 * has a name (its tools are `{name}__{tool}`), `toolsAllowed` /
 * `toolsDenied`, and the queue, cache, timeout and display its tools get.
 *
 * - `openapi`: an OpenAPI 3.x document (`spec.url` or `spec.document`),
 *   one tool per operation (`toolsAllowed` is the operation allow-list, by
 *   `operationId` or `"METHOD /path"`);
 * - `agents`: other agents as tools; a call gives the agent a task and
 *   waits for its final answer;
 * - `a2a`: a remote Agent2Agent agent (`url`: its Agent Card or its
 *   endpoint), one tool per skill of its card (`toolsAllowed` by skill id).
 */
import { GatewayAuth } from "./gateway-auth-config";
import { z } from "@hono/zod-openapi";
import { OutboundUrl } from "../../security/url-policy";
import { checkHeaderSecrets } from "./check-gateway-config";
import { ConfiguredHeaders } from "./configured-headers";
import { maxToolTimeoutMs, QueueName, ToolCache, ToolDisplay, toolNamePattern } from "./tool-config";
import { SubagentInherit } from "./subagent-inherit";

export const providerNamePattern = /^[a-zA-Z0-9_-]{1,32}$/;

const toolList = z.array(z.string().min(1).max(200)).max(512);

const common = {
  name: z.string().regex(providerNamePattern, "Provider names match ^[a-zA-Z0-9_-]{1,32}$"),
  toolsAllowed: toolList.optional(),
  toolsDenied: toolList.optional(),
  visible: z.boolean().optional(),
  display: ToolDisplay.optional(),
  queue: QueueName.optional(),
  cache: ToolCache.optional(),
  timeout: z.number().int().positive().max(maxToolTimeoutMs).optional(),
  /** Said in the system prompt about this provider's tools. */
  instructions: z.string().max(8_000).optional(),
};

export const OpenApiProviderConfig = z
  .object({
    ...common,
    type: z.literal("openapi"),
    spec: z.union([z.object({ url: OutboundUrl }).strict(), z.object({ document: z.record(z.string(), z.unknown()) }).strict()]),
    /** Where requests go; default the document's first `servers` URL (relative ones against `spec.url`). */
    baseUrl: OutboundUrl.optional(),
    /** Sent with every request; `${env.NAME}` secrets by the secret policy (e.g. `Authorization: Bearer ${env.API_TOKEN}`). */
    headers: ConfiguredHeaders.optional(),
    /** The largest answer read (default `limits.toolOutputMaxBytes`). */
    maxResponseBytes: z.number().int().positive().max(50_000_000).optional(),
    /** Its operations act as a person, with their OAuth token for the base URL's origin (`gateway-auth-config.ts`). */
    auth: GatewayAuth.optional(),
    /** How long a document fetched from `spec.url` is kept before it is fetched again (default 10 minutes). */
    specTtl: z
      .number()
      .int()
      .min(0)
      .max(24 * 3600 * 1000)
      .optional(),
  })
  .strict()
  .superRefine((provider, context) => {
    for (const problem of checkHeaderSecrets(provider.headers)) context.addIssue({ code: "custom", path: problem.path, message: problem.message });
    const configured = Object.keys(provider.headers ?? {}).find((name) => name.toLowerCase() === "authorization");
    if (provider.auth !== undefined && configured !== undefined) {
      context.addIssue({ code: "custom", path: ["headers", configured], message: "A provider with auth sends the person's token as its Authorization header: remove this one" });
    }
  });

export const SubAgent = z
  .object({
    agentId: z.string().min(1).max(100),
    /** The tool's name after `{provider}__`. */
    name: z.string().regex(toolNamePattern, "Names match ^[a-zA-Z0-9_-]{1,64}$"),
    description: z.string().max(4096).optional(),
  })
  .strict();

export const AgentsProviderConfig = z
  .object({
    ...common,
    type: z.literal("agents"),
    agents: z.array(SubAgent).min(1).max(32),
    /** `true`: the call returns pending at once; the answer arrives as a `tool_result` inbox event. */
    isAsync: z.boolean().optional(),
    /** How deep sub-agent calls may nest from here (default 3, at most 8). */
    maxDepth: z.number().int().min(1).max(8).optional(),
    /** Parts of the caller's config every task carries (`subagent-inherit.ts`). */
    inherit: SubagentInherit.optional(),
    /** A task without an answer this long after it was given expires. */
    expiresIn: z
      .number()
      .int()
      .positive()
      .max(30 * 24 * 3600 * 1000)
      .optional(),
  })
  .strict();

/** A remote agent's answer is not a pure read: no `cache` (the strict object refuses it by name). */
const { cache: _noCache, ...a2aCommon } = common;

export const A2aProviderConfig = z
  .object({
    ...a2aCommon,
    type: z.literal("a2a"),
    /** The remote agent's Agent Card (a URL ending in `.json`), or its JSON-RPC endpoint (the card is then read from `/.well-known/agent-card.json` on its origin). */
    url: OutboundUrl,
    /** Sent with every request to the remote agent (the card too); `${env.NAME}` secrets by the secret policy. */
    headers: ConfiguredHeaders.optional(),
  })
  .strict()
  .superRefine((provider, context) => {
    for (const problem of checkHeaderSecrets(provider.headers)) context.addIssue({ code: "custom", path: problem.path, message: problem.message });
  });

export const ProviderConfig = z.discriminatedUnion("type", [OpenApiProviderConfig, AgentsProviderConfig, A2aProviderConfig]).openapi("ProviderConfig");
export type ProviderConfig = z.infer<typeof ProviderConfig>;
export type OpenApiProviderConfig = z.infer<typeof OpenApiProviderConfig>;
export type AgentsProviderConfig = z.infer<typeof AgentsProviderConfig>;
export type A2aProviderConfig = z.infer<typeof A2aProviderConfig>;

/** The OpenAPI sources among an agent's `providers`. */
export function openApiProvidersOf(config: { providers?: readonly { type: string }[] }): OpenApiProviderConfig[] {
  return (config.providers ?? []).filter((provider): provider is OpenApiProviderConfig => provider.type === "openapi");
}

/** The remote A2A agents among an agent's `providers`. */
export function a2aProvidersOf(config: { providers?: readonly { type: string }[] }): A2aProviderConfig[] {
  return (config.providers ?? []).filter((provider): provider is A2aProviderConfig => provider.type === "a2a");
}

/** Whether a provider offers a tool by its `toolsAllowed` / `toolsDenied` (each entry names the tool one of the ways given). */
export function providerAllows(provider: { toolsAllowed?: string[]; toolsDenied?: string[] }, ...names: string[]): boolean {
  if (provider.toolsAllowed && !names.some((name) => provider.toolsAllowed?.includes(name))) return false;
  return !names.some((name) => provider.toolsDenied?.includes(name));
}
