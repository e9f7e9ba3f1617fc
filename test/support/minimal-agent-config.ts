/** The smallest valid agent config: a scripted model with no turns (never calls the network). */
export const minimalAgentConfig = { agent: { name: "a" }, model: { provider: "scripted", turns: [] } };
