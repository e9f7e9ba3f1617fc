/**
 * An agent's Agent Card (A2A 1.0): who it is (the config's name and
 * description), where its JSON-RPC endpoint is, what it can do (streaming,
 * push notifications), how a caller authenticates (the
 * gateway's secret key, or a person's JWT as a bearer), and its skills: the
 * config's `a2a.skills`, else one skill made of its description and tools.
 */
import type { AgentRecord } from "../agents/agent-record";
import { protocolVersion } from "./a2a-types";

export const a2aPaths = {
  endpoint: "/a2a/agents/:agentId",
  card: "/a2a/agents/:agentId/.well-known/agent-card.json",
} as const;

export function endpointUrl(origin: string, agentId: string): string {
  return `${origin}/a2a/agents/${encodeURIComponent(agentId)}`;
}

/** At most this many tool names become the default skill's tags. */
const maxToolTags = 20;

export function agentCard(agent: AgentRecord, origin: string) {
  const { config } = agent;
  const face = config.a2a;
  const description = config.agent.description?.trim() || `${config.agent.name}, an agent on a Switchboard gateway`;
  const skills = face?.skills ?? [
    {
      id: "ask",
      name: config.agent.name,
      description,
      tags: ["switchboard", ...config.tools.map((tool) => tool.name).slice(0, maxToolTags)],
    },
  ];
  return {
    name: config.agent.name,
    description,
    supportedInterfaces: [{ url: endpointUrl(origin, agent.id), protocolBinding: "JSONRPC", protocolVersion }],
    version: face?.version ?? "1.0.0",
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    securitySchemes: {
      secretKey: { apiKeySecurityScheme: { description: "The gateway's secret key", location: "header", name: "x-secret-key" } },
      bearer: { httpAuthSecurityScheme: { description: "A person's JWT (or the secret key itself) as a bearer token", scheme: "Bearer", bearerFormat: "JWT" } },
    },
    securityRequirements: [{ schemes: { secretKey: { list: [] } } }, { schemes: { bearer: { list: [] } } }],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills,
  };
}
