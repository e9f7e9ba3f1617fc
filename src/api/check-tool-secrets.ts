/** Refuses an agent config whose gateway tools or MCP servers name secrets this deployment does not have. */
import type { AgentConfig } from "../agents/agent-config";
import type { AppEnv } from "../env";
import { checkGatewayConfig, checkHeaderSecrets } from "../tools/gateway/check-gateway-config";
import { validationError } from "./context";

export function checkToolSecrets(config: AgentConfig, env: AppEnv): void {
  const issues = config.tools.flatMap((tool, index) =>
    tool.executionType === "gateway"
      ? checkGatewayConfig(tool.execution, env).map((problem) => ({ path: ["config", "tools", index, "execution", ...problem.path], message: problem.message }))
      : [],
  );
  (config.mcp?.servers ?? []).forEach((server, index) => {
    for (const problem of checkHeaderSecrets(server.headers, env)) issues.push({ path: ["config", "mcp", "servers", index, ...problem.path], message: problem.message });
  });
  if (issues.length > 0) throw validationError(issues, "body");
}
