/**
 * Checks a gateway tool's `execution` when the agent is saved, so template
 * mistakes are refused with their path instead of surfacing as tool errors
 * at run time: placeholders outside the URL's path and query, a body on GET,
 * a JSON text body that will not parse once filled, the gateway's own
 * secrets, and (when the env is known) secrets that are not set and hosts the
 * URL policy forbids.
 */
import { secretNameProblem } from "../../security/secret-policy";
import { outboundUrlProblem, urlPolicyOf } from "../../security/url-policy";
import { parseJsonSafely } from "../../json";
import type { GatewayExecutionInput } from "./tool-config";
import { fillJsonTextTemplate } from "../templates/fill-json-text-template";
import { fillUrlTemplate } from "../templates/fill-url-template";
import { placeholderPattern, secretReferencePattern } from "../templates/template-arguments";
import { textBodyKind } from "../templates/text-body-kind";

export type ConfigProblem = { path: (string | number)[]; message: string };

export function checkGatewayConfig(execution: GatewayExecutionInput, env?: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const names = [...execution.url.matchAll(placeholderPattern)].map((match) => match[1]);
  const sample = Object.fromEntries(names.map((name) => [name, "x"]));
  const filled = fillUrlTemplate(execution.url, sample);
  if (!filled.ok) problems.push({ path: ["url"], message: filled.error });
  else if (env !== undefined) {
    const problem = outboundUrlProblem(filled.value, urlPolicyOf(env));
    if (problem !== undefined) problems.push({ path: ["url"], message: problem });
  }
  if ((execution.method ?? "GET") === "GET" && execution.body !== undefined && execution.body !== null) {
    problems.push({ path: ["body"], message: "A GET tool cannot have a body" });
  } else if (typeof execution.body === "string") {
    const problem = textBodyProblem(execution.body, execution.headers);
    if (problem !== undefined) problems.push({ path: ["body"], message: problem });
  }
  problems.push(...checkHeaderSecrets(execution.headers, env));
  return problems;
}

/** `${env.NAME}` in header values (tools and MCP servers), by the secret policy; set, when the env is known. */
export function checkHeaderSecrets(headers: Record<string, string> | undefined, env?: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [header, value] of Object.entries(headers ?? {})) {
    for (const [, secret] of value.matchAll(secretReferencePattern)) {
      const problem = secretNameProblem(secret, env);
      if (problem !== undefined) problems.push({ path: ["headers", header], message: problem });
    }
  }
  return problems;
}

/** A JSON text template must parse once filled (checked with every placeholder as 0). */
function textBodyProblem(body: string, headers: Record<string, string> | undefined): string | undefined {
  if (parseJsonSafely(body).ok || textBodyKind(body, headers) !== "json") return undefined;
  const sample = Object.fromEntries([...body.matchAll(placeholderPattern)].map((match) => [match[1], 0]));
  const filled = fillJsonTextTemplate(body, sample);
  return filled.ok ? undefined : filled.error;
}
