/**
 * Checks a gateway tool's `execution` when the agent is saved, so template
 * mistakes are refused with their path instead of surfacing as tool errors
 * at run time: placeholders outside the URL's path and query, a body on GET,
 * the gateway's own secrets, and (when the env is known) secrets that are not set.
 */
import type { GatewayExecutionInput } from "./build-gateway-request";
import { reservedSecretNames } from "./fill-headers";
import { fillUrlTemplate } from "./fill-url-template";
import { placeholderPattern } from "./template-arguments";

export type ConfigProblem = { path: (string | number)[]; message: string };

const secretPattern = /\$\{env\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function checkGatewayConfig(execution: GatewayExecutionInput, env?: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const names = [...execution.url.matchAll(placeholderPattern)].map((match) => match[1]);
  const sample = Object.fromEntries(names.map((name) => [name, "x"]));
  const filled = fillUrlTemplate(execution.url, sample);
  if (!filled.ok) problems.push({ path: ["url"], message: filled.error });
  if ((execution.method ?? "GET") === "GET" && execution.body !== undefined && execution.body !== null) {
    problems.push({ path: ["body"], message: "A GET tool cannot have a body" });
  }
  problems.push(...checkHeaderSecrets(execution.headers, env));
  return problems;
}

/** `${env.NAME}` in header values: never the gateway's own keys; set, when the env is known. */
export function checkHeaderSecrets(headers: Record<string, string> | undefined, env?: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [header, value] of Object.entries(headers ?? {})) {
    for (const [, secret] of value.matchAll(secretPattern)) {
      if (reservedSecretNames.has(secret)) problems.push({ path: ["headers", header], message: `The gateway's own secret "${secret}" cannot be sent to a tool` });
      else if (env && typeof env[secret] !== "string") {
        problems.push({ path: ["headers", header], message: `The secret "${secret}" is not set (wrangler secret put ${secret}, or add it to .dev.vars)` });
      }
    }
  }
  return problems;
}
