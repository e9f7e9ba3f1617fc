/**
 * Turns a `gateway` tool's `execution` config plus the model's arguments into
 * the HTTP request to send (contract §5): URL slots percent-encoded, header
 * secrets from the Worker's env, the body templated or, for POST/PUT/PATCH
 * without one, the arguments as JSON. Pure; every problem is a result, not a throw.
 */
import { parseJsonSafely } from "../../json";
import { outboundUrlProblem, urlPolicyOf } from "../../security/url-policy";
import type { ToolConfig } from "../tool-config";
import { fillBodyTemplate, fillTextTemplate } from "./fill-body-template";
import { fillHeaders } from "./fill-headers";
import { fillUrlTemplate } from "./fill-url-template";

export type GatewayExecution = Extract<ToolConfig, { executionType: "gateway" }>["execution"];
/** The parsed config, with `method` optional (it defaults to GET). */
export type GatewayExecutionInput = Omit<GatewayExecution, "method"> & { method?: GatewayExecution["method"] };

export type GatewayRequest = { url: string; method: string; headers: Record<string, string>; body?: string };
export type BuildGatewayRequestResult = { ok: true; request: GatewayRequest } | { ok: false; error: string };

/**
 * `body` in the config: a JSON value (placeholders filled structurally), a
 * string holding JSON (treated the same), other text (sent as it is, filled as
 * text), or `null` for no body. Without one, GET and DELETE send no body and
 * the other methods send the arguments as JSON.
 */
export function buildGatewayRequest(
  execution: GatewayExecutionInput,
  args: unknown,
  env: Record<string, unknown>,
): BuildGatewayRequestResult {
  const method = execution.method ?? "GET";
  const url = fillUrlTemplate(execution.url, args);
  if (!url.ok) return url;
  // The URL as it will be sent, by this deployment's policy (a stored config may predate it).
  const urlProblem = outboundUrlProblem(url.value, urlPolicyOf(env));
  if (urlProblem !== undefined) return { ok: false, error: `The tool's URL cannot be called: ${urlProblem}` };
  const headers = fillHeaders(execution.headers, args, env);
  if (!headers.ok) return headers;

  const body = buildBody(execution.body, method, args);
  if (!body.ok) return body;
  const request: GatewayRequest = { url: url.value, method, headers: headers.value };
  if (body.text !== undefined) {
    if (method === "GET") return { ok: false, error: "A GET tool cannot have a body" };
    request.body = body.text;
    const hasContentType = Object.keys(request.headers).some((name) => name.toLowerCase() === "content-type");
    if (body.isJson && !hasContentType) request.headers["content-type"] = "application/json";
  }
  return { ok: true, request };
}

type BodyText = { ok: true; text?: string; isJson: boolean } | { ok: false; error: string };

function buildBody(template: unknown, method: string, args: unknown): BodyText {
  if (template === null) return { ok: true, isJson: false };
  if (template === undefined) {
    if (method === "GET" || method === "DELETE") return { ok: true, isJson: false };
    return { ok: true, text: JSON.stringify(args ?? {}), isJson: true };
  }
  if (typeof template === "string") {
    const parsed = parseJsonSafely(template);
    if (!parsed.ok) {
      const text = fillTextTemplate(template, args);
      return text.ok ? { ok: true, text: text.value, isJson: false } : text;
    }
    template = parsed.value;
  }
  const filled = fillBodyTemplate(template, args);
  if (!filled.ok) return filled;
  return { ok: true, text: JSON.stringify(filled.value) ?? "null", isJson: true };
}
