/**
 * What a config asks of this deployment, checked when the agent is saved
 * (after the schema, which cannot see the env): every secret it names by the
 * secret policy (header secrets must be set; a model key may come later), and
 * every URL the gateway will call by this deployment's URL policy.
 */
import type { AgentConfig } from "../agents/agent-config";
import type { AppEnv } from "../env";
import type { ImageModelConfig } from "../models/image-model-config";
import { secretNameProblem } from "../security/secret-policy";
import { outboundUrlProblem, urlPolicyOf } from "../security/url-policy";
import { checkGatewayConfig, checkHeaderSecrets, webSearchKeyName } from "../tools";
import { validationError } from "./context";

type Issue = { path: (string | number)[]; message: string };

/** `at` is where the config sits in the request body (`config` of POST /api/agents, `document.agent.config` of an import). */
export function checkToolSecrets(config: AgentConfig, env: AppEnv, at: (string | number)[] = ["config"]): void {
  const policy = urlPolicyOf(env);
  const issues: Issue[] = [];
  const checkUrl = (url: string | undefined, path: (string | number)[]) => {
    const problem = url === undefined ? undefined : outboundUrlProblem(url, policy);
    if (problem !== undefined) issues.push({ path, message: problem });
  };

  const model = config.model;
  if (model.provider !== "scripted" && model.provider !== "workers-ai") checkUrl(model.baseURL, [...at, "model", "baseURL"]);
  if (model.provider !== "scripted" && model.apiKeyEnv !== undefined) {
    const problem = secretNameProblem(model.apiKeyEnv, env, { mustBeSet: false });
    if (problem !== undefined) issues.push({ path: [...at, "model", "apiKeyEnv"], message: problem });
  }
  const checkImageModel = (image: ImageModelConfig | undefined, path: (string | number)[]) => {
    if (image?.provider !== "openai") return;
    checkUrl(image.baseURL, [...path, "baseURL"]);
    if (image.apiKeyEnv === undefined) return;
    const problem = secretNameProblem(image.apiKeyEnv, env, { mustBeSet: false });
    if (problem !== undefined) issues.push({ path: [...path, "apiKeyEnv"], message: problem });
  };
  checkImageModel(config.images, [...at, "images"]);
  if (config.webSearch !== undefined) {
    checkUrl(config.webSearch.baseURL, [...at, "webSearch", "baseURL"]);
    // The key is sent with every search: like a header secret, it must be set when the agent is saved.
    const name = webSearchKeyName(config.webSearch.apiKey);
    const problem = name === undefined ? undefined : secretNameProblem(name, env);
    if (problem !== undefined) issues.push({ path: [...at, "webSearch", "apiKey"], message: problem });
  }
  config.tools.forEach((tool, index) => {
    const path = [...at, "tools", index, "execution"];
    if (tool.executionType === "image-generator") checkImageModel(tool.execution, path);
    else if (tool.executionType === "gateway") {
      for (const problem of checkGatewayConfig(tool.execution, env)) issues.push({ path: [...path, ...problem.path], message: problem.message });
    } else if (tool.executionType === "external" || tool.executionType === "space") {
      checkUrl(tool.execution?.webhook, [...path, "webhook"]);
    }
  });
  (config.mcp?.servers ?? []).forEach((server, index) => {
    const path = [...at, "mcp", "servers", index];
    checkUrl(server.url, [...path, "url"]);
    for (const problem of checkHeaderSecrets(server.headers, env)) issues.push({ path: [...path, ...problem.path], message: problem.message });
  });
  (config.providers ?? []).forEach((provider, index) => {
    const path = [...at, "providers", index];
    if (provider.type === "a2a") {
      checkUrl(provider.url, [...path, "url"]);
      for (const problem of checkHeaderSecrets(provider.headers, env)) issues.push({ path: [...path, ...problem.path], message: problem.message });
      return;
    }
    if (provider.type !== "openapi") return;
    if ("url" in provider.spec) checkUrl(provider.spec.url, [...path, "spec", "url"]);
    checkUrl(provider.baseUrl, [...path, "baseUrl"]);
    for (const problem of checkHeaderSecrets(provider.headers, env)) issues.push({ path: [...path, ...problem.path], message: problem.message });
  });
  if (issues.length > 0) throw validationError(issues, "body");
}
