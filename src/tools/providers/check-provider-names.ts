/**
 * What can be known about an agent's providers when it is saved: provider
 * names unique (with its MCP servers), every `queue` named in `queues`, no
 * cache on sub-agents, allow-lists that name something, and every tool name
 * that is known now (the built-ins, the output reader, configured tools,
 * sub-agents, the operations of an inline OpenAPI document) claimed once:
 * a collision is refused with an error naming both tools. Tools known only
 * at discovery (MCP servers, OpenAPI documents by URL, remote A2A agents' skills) are checked then.
 */
import { builtinToolNames } from "../config/builtin-tool-names";
import { documentProblem } from "../openapi/openapi-document";
import { operationLabel, operationsOf } from "../openapi/openapi-operations";
import type { ToolSettings } from "../engine/tool-context";
import { agentProviderTools } from "./agents-provider";
import { outputReaderName } from "./output-reader";
import { ToolNames } from "../engine/tool-naming";

export type NameProblem = { path: (string | number)[]; message: string };

type CheckedConfig = Pick<ToolSettings, "tools" | "mcp" | "providers" | "queues">;

export function checkProviderNames(config: CheckedConfig): NameProblem[] {
  const problems: NameProblem[] = [];
  const queues = new Set(Object.keys(config.queues ?? {}));
  const checkQueue = (queue: string | undefined, path: (string | number)[]) => {
    if (queue !== undefined && !queues.has(queue)) problems.push({ path, message: `No queue "${queue}" in queues (${[...queues].join(", ") || "none defined"})` });
  };

  const names = new ToolNames();
  for (const name of builtinToolNames) names.claim(name, { provider: "builtin", tool: name });
  names.claim(outputReaderName, { provider: "builtin", tool: outputReaderName });
  config.tools.forEach((tool, index) => {
    checkQueue(tool.queue, ["tools", index, "queue"]);
    // Built-in names and duplicates among the configured tools have their own messages (agent-config.ts).
    if (tool.name === outputReaderName) problems.push({ path: ["tools", index, "name"], message: `"${outputReaderName}" is a built-in tool name` });
    names.claim(tool.name, { provider: "tools", tool: tool.name });
  });

  const providerNames = new Map<string, string>();
  (config.mcp?.servers ?? []).forEach((server, index) => {
    providerNames.set(server.name, `mcp.servers[${index}]`);
    checkQueue(server.queue, ["mcp", "servers", index, "queue"]);
  });
  (config.providers ?? []).forEach((provider, index) => {
    const path = ["providers", index];
    const first = providerNames.get(provider.name);
    if (first) problems.push({ path: [...path, "name"], message: `Duplicate provider name "${provider.name}" (also ${first})` });
    else providerNames.set(provider.name, `providers[${index}]`);
    checkQueue(provider.queue, [...path, "queue"]);

    if (provider.type === "agents") {
      if (provider.cache) problems.push({ path: [...path, "cache"], message: "A sub-agent answers later, by itself: its answers cannot be cached" });
      for (const allowed of provider.toolsAllowed ?? []) {
        if (!provider.agents.some((agent) => agent.name === allowed || agent.agentId === allowed))
          problems.push({ path: [...path, "toolsAllowed"], message: `"${allowed}" names none of the agents listed` });
      }
      const seen = new Set<string>();
      provider.agents.forEach((agent, agentIndex) => {
        if (seen.has(agent.name)) problems.push({ path: [...path, "agents", agentIndex, "name"], message: `Duplicate agent name "${agent.name}" in this provider` });
        seen.add(agent.name);
      });
      for (const { name, agent } of agentProviderTools(provider)) {
        const claim = names.claim(name, { provider: provider.name, tool: agent.name });
        if (!claim.ok) problems.push({ path: [...path, "agents", provider.agents.indexOf(agent), "name"], message: claim.message });
      }
      return;
    }

    // A remote agent's skills are known from its card, at discovery.
    if (provider.type === "a2a" || !("document" in provider.spec)) return;
    const problem = documentProblem(provider.spec.document);
    if (problem) {
      problems.push({ path: [...path, "spec", "document"], message: problem });
      return;
    }
    const { operations, skipped } = operationsOf(provider.spec.document, provider);
    for (const allowed of provider.toolsAllowed ?? []) {
      const known = operations.some((operation) => operation.operationId === allowed || operationLabel(operation.method, operation.path) === allowed);
      const refused = skipped.find((skip) => skip.operation.startsWith(`${allowed} `) || skip.operation.endsWith(`(${allowed})`));
      if (refused) problems.push({ path: [...path, "toolsAllowed"], message: `The operation ${refused.operation} cannot be a tool: ${refused.error}` });
      else if (!known) problems.push({ path: [...path, "toolsAllowed"], message: `"${allowed}" names no operation of the document (by operationId or "METHOD /path")` });
    }
    for (const operation of operations) {
      const claim = names.claim(operation.name, { provider: provider.name, tool: operation.operationId });
      if (!claim.ok) problems.push({ path: [...path, "spec", "document"], message: claim.message });
    }
  });
  return problems;
}
