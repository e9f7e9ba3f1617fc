/**
 * Turns a `gateway` tool's `execution` config plus the model's arguments into
 * the HTTP request to send (docs/tools.md, "Gateway templates"): URL slots
 * percent-encoded, header secrets from the Worker's env, the body templated or,
 * for POST/PUT/PATCH without one, the arguments as JSON. Pure; every problem is
 * a result, not a throw.
 */
import { parseJsonSafely } from "../../json";
import { originOf, type Pin } from "../../security/pinned-request";
import { outboundUrlProblem, urlPolicyOf } from "../../security/url-policy";
import type { GatewayExecutionInput } from "../config/tool-config";
import { fillBodyTemplate, fillTextTemplate } from "../templates/fill-body-template";
import { fillFormTemplate } from "../templates/fill-form-template";
import { fillJsonTextTemplate } from "../templates/fill-json-text-template";
import { fillHeaders } from "./fill-headers";
import { fillUrlTemplate } from "../templates/fill-url-template";
import { type TextBodyKind, textBodyKind } from "../templates/text-body-kind";

/** A request ready to send; `pin` is where its configured headers may go (checked again as it is sent). */
export type GatewayRequest = { url: string; method: string; headers: Record<string, string>; body?: string; pin: Pin };
export type BuildGatewayRequestResult = { ok: true; request: GatewayRequest } | { ok: false; error: string; kind: "validation" | "permission" };

/**
 * `body` in the config: a JSON value (placeholders filled structurally), a
 * string holding JSON (treated the same), a text template (each value encoded
 * for the body's kind: JSON text, a form, or other text as it is), or `null`
 * for no body. Without one, GET and DELETE send no body and the other methods
 * send the arguments as JSON.
 */
export function buildGatewayRequest(execution: GatewayExecutionInput, args: unknown, env: Record<string, unknown>): BuildGatewayRequestResult {
  const method = execution.method ?? "GET";
  const url = fillUrlTemplate(execution.url, args);
  if (!url.ok) return { ...url, kind: "validation" };
  // The URL as it will be sent, by this deployment's policy (a stored config may predate it).
  const policy = urlPolicyOf(env);
  const urlProblem = outboundUrlProblem(url.value, policy);
  if (urlProblem !== undefined) return { ok: false, error: `The tool's URL cannot be called: ${urlProblem}`, kind: "permission" };
  // The configured URL's own origin: the only place its headers may go (placeholders never reach the host).
  const origin = originOf(execution.url.replace(/\{\{[^}]*\}\}/g, "x"));
  if (origin === undefined) return { ok: false, error: "The tool's URL must be an absolute http(s) URL", kind: "validation" };
  const headers = fillHeaders(execution.headers, args, env);
  if (!headers.ok) return headers;

  const body = buildBody(execution.body, method, args, execution.headers);
  if (!body.ok) return { ...body, kind: "validation" };
  const request: GatewayRequest = { url: url.value, method, headers: headers.value, pin: { origin, policy } };
  if (body.text !== undefined) {
    if (method === "GET") return { ok: false, error: "A GET tool cannot have a body", kind: "validation" };
    request.body = body.text;
    const hasContentType = Object.keys(request.headers).some((name) => name.toLowerCase() === "content-type");
    if (body.contentType !== undefined && !hasContentType) request.headers["content-type"] = body.contentType;
  }
  return { ok: true, request };
}

type BodyText = { ok: true; text?: string; contentType?: string } | { ok: false; error: string };

const defaultContentTypes: Record<TextBodyKind, string | undefined> = {
  json: "application/json",
  form: "application/x-www-form-urlencoded",
  text: undefined,
};

function buildBody(template: unknown, method: string, args: unknown, headers: Record<string, string> | undefined): BodyText {
  if (template === null) return { ok: true };
  if (template === undefined) {
    if (method === "GET" || method === "DELETE") return { ok: true };
    return { ok: true, text: JSON.stringify(args ?? {}), contentType: defaultContentTypes.json };
  }
  if (typeof template === "string") {
    const parsed = parseJsonSafely(template);
    if (!parsed.ok) return fillTextBody(template, args, headers);
    template = parsed.value;
  }
  const filled = fillBodyTemplate(template, args);
  if (!filled.ok) return filled;
  return { ok: true, text: JSON.stringify(filled.value) ?? "null", contentType: defaultContentTypes.json };
}

/** A text template: each value encoded for the body's kind (JSON, form, or other text). */
function fillTextBody(template: string, args: unknown, headers: Record<string, string> | undefined): BodyText {
  const kind = textBodyKind(template, headers);
  const filled = kind === "json" ? fillJsonTextTemplate(template, args) : kind === "form" ? fillFormTemplate(template, args) : fillTextTemplate(template, args);
  return filled.ok ? { ok: true, text: filled.value, contentType: defaultContentTypes[kind] } : filled;
}
