/**
 * The operations of an OpenAPI 3.x document as tool definitions: one per
 * operation the provider allows (`toolsAllowed` by `operationId` or
 * `"METHOD /path"`, `toolsDenied` likewise), named
 * `{provider}__{operationId}` (or `{provider}__{method}_{path}` without
 * one). Path, query and header parameters become properties of the input
 * schema; a JSON (or form) request body becomes its `body` property. An
 * operation that cannot become a tool (cookie parameters, another body
 * media type, two parameters with one name, a schema that cannot compile)
 * is listed in `skipped` with the reason.
 */
import { joinPathToBase } from "../../security/pinned-request";
import { checkInputSchema } from "../json-schema/check-input-schema";
import { providerAllows } from "../config/provider-config";
import { providerToolName } from "../engine/tool-naming";
import { dereference, SchemaConverter } from "./openapi-schema";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const methods = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
const placeholderName = /^[A-Za-z0-9_.-]+$/;

export type OperationParameter = { name: string; in: "path" | "query" | "header"; required: boolean };

export type OpenApiOperation = {
  /** The tool's name. */
  name: string;
  operationId: string;
  method: Uppercase<(typeof methods)[number]>;
  path: string;
  description: string;
  inputSchema: Json;
  parameters: OperationParameter[];
  body?: { mediaType: "application/json" | "application/x-www-form-urlencoded"; required: boolean };
  /** GET, HEAD and OPTIONS only read: their answers may be cached. */
  readOnly: boolean;
};

export type SkippedOperation = { operation: string; error: string };

export function operationLabel(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/** The longest operation path a document may give (real ones are a few dozen characters). */
export const maxOperationPathLength = 2_048;

export function operationsOf(
  document: Json,
  provider: { name: string; toolsAllowed?: string[]; toolsDenied?: string[] },
): { operations: OpenApiOperation[]; skipped: SkippedOperation[] } {
  const operations: OpenApiOperation[] = [];
  const skipped: SkippedOperation[] = [];
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = dereference(document, rawItem);
    if (!isObject(item)) continue;
    // A document's path is scanned for `{…}` templates by expressions that retry from each "{": bound it first.
    if (path.length > maxOperationPathLength) {
      skipped.push({ operation: `${path.slice(0, 100)}…`, error: `the path is longer than ${maxOperationPathLength} characters` });
      continue;
    }
    for (const method of methods) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const label = operationLabel(method, path);
      const operationId = typeof operation.operationId === "string" && operation.operationId.length > 0 ? operation.operationId : `${method}_${path.replace(/^\/+/, "")}`;
      if (!providerAllows(provider, operationId, label)) continue;
      const built = buildOperation(document, provider.name, path, method, operationId, item, operation);
      if ("error" in built) skipped.push({ operation: `${operationId} (${label})`, error: built.error });
      else operations.push(built);
    }
  }
  return { operations, skipped };
}

function buildOperation(
  document: Json,
  providerName: string,
  path: string,
  method: (typeof methods)[number],
  operationId: string,
  item: Json,
  operation: Json,
): OpenApiOperation | { error: string } {
  // A document's path is joined onto the base URL: it must be a plain path, so it can never name another host or port.
  const pathProblem = operationPathProblem(path);
  if (pathProblem !== undefined) return { error: pathProblem };
  const converter = new SchemaConverter(document);
  const properties: Json = {};
  const required: string[] = [];
  const parameters: OperationParameter[] = [];
  // Operation parameters override path-level ones with the same name and location.
  const byKey = new Map<string, Json>();
  for (const raw of [...asArray(item.parameters), ...asArray(operation.parameters)]) {
    const parameter = dereference(document, raw);
    if (!isObject(parameter) || typeof parameter.name !== "string" || typeof parameter.in !== "string") continue;
    byKey.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  for (const parameter of byKey.values()) {
    const name = parameter.name as string;
    const location = parameter.in as string;
    if (location === "cookie") {
      if (parameter.required === true) return { error: `the required cookie parameter "${name}" is not supported` };
      continue;
    }
    if (location !== "path" && location !== "query" && location !== "header") continue;
    if (name in properties || name === "body") return { error: `two parameters are called "${name}"` };
    if (location === "path" && !placeholderName.test(name)) return { error: `the path parameter "${name}" has characters a URL template cannot hold` };
    const schema = isObject(parameter.schema) ? (converter.convert(parameter.schema) as Json) : { type: "string" };
    properties[name] = typeof parameter.description === "string" ? { ...schema, description: parameter.description } : schema;
    const isRequired = location === "path" || parameter.required === true;
    if (isRequired) required.push(name);
    parameters.push({ name, in: location, required: isRequired });
  }

  let body: OpenApiOperation["body"];
  const requestBody = dereference(document, operation.requestBody);
  if (isObject(requestBody) && isObject(requestBody.content)) {
    const content = requestBody.content;
    const mediaType =
      Object.keys(content).find((type) => type === "application/json" || type.endsWith("+json")) ??
      (content["application/x-www-form-urlencoded"] ? "application/x-www-form-urlencoded" : undefined);
    if (!mediaType) {
      if (requestBody.required === true) return { error: `the request body's media types (${Object.keys(content).join(", ")}) are not supported; JSON and forms are` };
    } else {
      const media = content[mediaType];
      const schema = isObject(media) && isObject(media.schema) ? (converter.convert(media.schema) as Json) : {};
      properties.body = typeof requestBody.description === "string" ? { ...schema, description: requestBody.description } : schema;
      if (requestBody.required === true) required.push("body");
      body = { mediaType: mediaType === "application/x-www-form-urlencoded" ? mediaType : "application/json", required: requestBody.required === true };
    }
  }

  const defs = converter.finish();
  const inputSchema: Json = {
    type: "object",
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: false,
    ...(Object.keys(defs).length > 0 && { $defs: defs }),
  };
  const [problem] = checkInputSchema(inputSchema);
  if (problem !== undefined) return { error: `its input schema cannot be used: ${problem.path.join(".") || "inputSchema"}: ${problem.message}` };
  const text = [operation.summary, operation.description].filter((part): part is string => typeof part === "string" && part.trim().length > 0).join("\n\n");
  return {
    name: providerToolName(providerName, operationId),
    operationId,
    method: method.toUpperCase() as OpenApiOperation["method"],
    path,
    description: (text || `${operationLabel(method, path)}`).slice(0, 4096),
    inputSchema,
    parameters,
    ...(body && { body }),
    readOnly: method === "get" || method === "head" || method === "options",
  };
}

/** Why an operation's path cannot be joined onto a base URL, or undefined. */
export function operationPathProblem(path: string): string | undefined {
  const joined = joinPathToBase("https://base.invalid/", path);
  return joined.ok ? undefined : joined.error;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export type BaseUrl = { ok: true; baseUrl: string } | { ok: false; error: string };

/**
 * Where requests go: the config's `baseUrl`, else the document's first server
 * (variables at their defaults, relative to the document's URL). A fetched
 * document does not get to send the provider's configured headers elsewhere:
 * when the provider has headers and no `baseUrl`, a server on another origin
 * than the document's own URL is refused (set `baseUrl` to call it). An
 * inline document is part of the config, so its server is the config's word.
 */
export function baseUrlOf(document: Json, provider: { baseUrl?: string; headers?: Record<string, string> }, specUrl: string | undefined): BaseUrl {
  if (provider.baseUrl) return { ok: true, baseUrl: provider.baseUrl };
  const [server] = asArray(document.servers);
  if (!isObject(server) || typeof server.url !== "string") {
    return specUrl ? { ok: true, baseUrl: new URL("/", specUrl).href } : { ok: false, error: "No base URL: set baseUrl, or give the document a servers entry" };
  }
  let url = server.url;
  if (isObject(server.variables)) {
    for (const [name, variable] of Object.entries(server.variables)) {
      if (isObject(variable) && typeof variable.default === "string") url = url.replaceAll(`{${name}}`, variable.default);
    }
  }
  let resolved: URL;
  try {
    resolved = new URL(url, specUrl);
  } catch {
    return { ok: false, error: `The document's server "${url.slice(0, 200)}" is not a URL: set baseUrl` };
  }
  if (specUrl !== undefined && provider.headers !== undefined && Object.keys(provider.headers).length > 0 && resolved.origin !== new URL(specUrl).origin) {
    return {
      ok: false,
      error: `The document's server ${resolved.origin} is not where the document came from (${new URL(specUrl).origin}); the provider's headers go only to an origin its config names: set baseUrl to call it`,
    };
  }
  return { ok: true, baseUrl: resolved.href };
}
