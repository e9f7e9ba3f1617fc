/**
 * One call of an OpenAPI operation, with the gateway tools' safety: path
 * parameters percent-encoded into their own segments (the URL template
 * rules of `fill-url-template.ts`: no `..`, no new segments, never another
 * host), query parameters encoded by URLSearchParams, header parameters
 * without line breaks and never over a configured header, the provider's
 * `${env.NAME}` secrets by the secret policy, the document's path joined as
 * a path only and the final URL pinned to the base URL's origin
 * (`security/pinned-request.ts`), and the answer bounded in time, size and depth
 * (`sendGatewayRequest`).
 */
import { joinPathToBase, originOf, pinUrl } from "../../security/pinned-request";
import { urlPolicyOf } from "../../security/url-policy";
import { sendGatewayRequest, type GatewayToolResult } from "../gateway/execute-gateway-tool";
import type { GatewayRequest } from "../gateway/build-gateway-request";
import { fillHeaders } from "../gateway/fill-headers";
import { fillUrlTemplate } from "../templates/fill-url-template";
import { argumentText } from "../templates/template-arguments";
import type { OpenApiOperation } from "./openapi-operations";

type Built = { ok: true; request: GatewayRequest } | { ok: false; error: string; kind: "validation" | "permission" };

const lineBreak = /[\r\n\0]/;

export function buildOperationRequest(
  operation: OpenApiOperation,
  baseUrl: string,
  args: unknown,
  configuredHeaders: Record<string, string> | undefined,
  env: Record<string, unknown>,
): Built {
  const values = (typeof args === "object" && args !== null && !Array.isArray(args) ? args : {}) as Record<string, unknown>;
  // The document's path is joined as a path only: it can never name another host or port.
  const joined = joinPathToBase(baseUrl, operation.path);
  if (!joined.ok) return { ok: false, error: `The operation cannot be called: ${joined.error}`, kind: "permission" };
  const origin = originOf(baseUrl);
  if (origin === undefined) return { ok: false, error: "The provider's base URL is not an absolute http(s) URL", kind: "validation" };
  const filled = fillUrlTemplate(joined.value.replace(/\{([^}]+)\}/g, "{{$1}}"), values);
  if (!filled.ok) return { ok: false, error: filled.error, kind: "validation" };
  const url = new URL(filled.value);
  const headers: Record<string, string> = {};
  for (const parameter of operation.parameters) {
    if (!Object.hasOwn(values, parameter.name) || values[parameter.name] === undefined) continue;
    const value = values[parameter.name];
    if (parameter.in === "query") {
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(parameter.name, argumentText(item));
    } else if (parameter.in === "header") {
      const text = argumentText(value);
      if (lineBreak.test(text)) return { ok: false, error: `Argument "${parameter.name}" cannot be used in a header: it contains a line break`, kind: "validation" };
      headers[parameter.name.toLowerCase()] = text;
    }
  }
  const policy = urlPolicyOf(env);
  const pinned = pinUrl(url, { origin, policy });
  if (!pinned.ok) return { ok: false, error: `The operation's URL cannot be called: ${pinned.error}`, kind: "permission" };
  const configured = fillHeaders(configuredHeaders, {}, env);
  if (!configured.ok) return configured;
  // A configured header (a secret) always wins over a parameter of the same name.
  for (const [name, value] of Object.entries(configured.value)) {
    delete headers[name.toLowerCase()];
    headers[name] = value;
  }
  const request: GatewayRequest = { url: pinned.url.href, method: operation.method, headers, pin: { origin, policy } };
  if (operation.body && values.body !== undefined) {
    if (operation.body.mediaType === "application/json") request.body = JSON.stringify(values.body);
    else {
      const form = new URLSearchParams();
      if (typeof values.body === "object" && values.body !== null) for (const [name, value] of Object.entries(values.body)) form.append(name, argumentText(value));
      request.body = form.toString();
    }
    if (!Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) headers["content-type"] = operation.body.mediaType;
  }
  return { ok: true, request };
}

export async function runOpenApiOperation(
  operation: OpenApiOperation,
  options: {
    baseUrl: string;
    args: unknown;
    headers: Record<string, string> | undefined;
    env: Record<string, unknown>;
    timeoutMs: number;
    maxResponseBytes: number;
    signal?: AbortSignal;
    extraHeaders: Record<string, string>;
  },
): Promise<GatewayToolResult> {
  const built = buildOperationRequest(operation, options.baseUrl, options.args, options.headers, options.env);
  if (!built.ok) return built;
  return sendGatewayRequest(built.request, options);
}
