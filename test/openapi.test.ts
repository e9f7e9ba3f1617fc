/**
 * `GET /openapi.json`: an OpenAPI 3.1 document of the gateway's routes with
 * their request schemas, reachable without credentials.
 */
import { describe, expect, it } from "vitest";
import { errorCodes } from "../src/errors";
import { call } from "./support/api";

type SchemaObject = {
  $ref?: string;
  type?: string;
  properties?: Record<string, SchemaObject>;
  items?: SchemaObject;
  required?: string[];
  oneOf?: SchemaObject[];
  anyOf?: SchemaObject[];
  enum?: unknown[];
  pattern?: string;
};
type Parameter = { name: string; in: string; required?: boolean; schema?: SchemaObject };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: SchemaObject }> };
  responses: Record<string, { content?: Record<string, { schema: SchemaObject }> }>;
  security?: Record<string, string[]>[];
};
type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, SchemaObject>; securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }> };
  security?: Record<string, string[]>[];
};

async function fetchDocument(headers: Record<string, string> = {}): Promise<OpenApiDocument> {
  const response = await call("/openapi.json", { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/json");
  return response.json();
}

const schemaName = (schema: SchemaObject | undefined) => schema?.$ref?.replace("#/components/schemas/", "");

/** Every `$ref` anywhere in a JSON value. */
function collectRefs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === "$ref" && typeof child === "string") found.push(child);
      else collectRefs(child, found);
    }
  }
  return found;
}

const operations: { method: string; path: string; body?: string }[] = [
  { method: "get", path: "/health" },
  { method: "post", path: "/api/entities", body: "CreateEntity" },
  { method: "get", path: "/api/entities/{entityId}" },
  { method: "post", path: "/api/agents", body: "AgentBody" },
  { method: "get", path: "/api/agents/{agentId}" },
  { method: "put", path: "/api/agents/{agentId}", body: "AgentBody" },
  { method: "delete", path: "/api/agents/{agentId}" },
  { method: "post", path: "/api/spaces", body: "CreateSpace" },
  { method: "get", path: "/api/spaces/{spaceId}" },
  { method: "post", path: "/api/spaces/{spaceId}/members", body: "AddMember" },
  { method: "delete", path: "/api/spaces/{spaceId}/members/{entityId}" },
  { method: "post", path: "/api/spaces/{spaceId}/messages", body: "SendMessage" },
  { method: "get", path: "/api/spaces/{spaceId}/messages" },
  { method: "get", path: "/api/spaces/{spaceId}/stream" },
];

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document, served without credentials (and despite wrong ones)", async () => {
    const document = await fetchDocument();
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.info.title).toBe("Switchboard");
    const health = await call("/health");
    expect(document.info.version).toBe(((await health.json()) as { version: string }).version);
    expect(await fetchDocument({ "x-secret-key": "wrong", "x-public-key": "wrong", authorization: "Bearer nope" })).toEqual(document);
  });

  it.each(operations)("lists $method $path", async ({ method, path, body }) => {
    const document = await fetchDocument();
    const operation = document.paths[path]?.[method];
    expect(operation, `${method} ${path}`).toBeDefined();
    for (const parameter of path.match(/\{(\w+)\}/g) ?? []) {
      const name = parameter.slice(1, -1);
      expect(operation.parameters).toContainEqual(expect.objectContaining({ name, in: "path", required: true }));
    }
    if (body) {
      expect(operation.requestBody?.required).toBe(true);
      expect(schemaName(operation.requestBody?.content["application/json"]?.schema)).toBe(body);
      expect(document.components.schemas[body]).toBeDefined();
    } else {
      expect(operation.requestBody).toBeUndefined();
    }
  });

  it("describes the agent config down to ToolConfig and the model providers", async () => {
    const { components } = await fetchDocument();
    const { schemas } = components;
    expect(schemaName(schemas.AgentBody.properties?.config)).toBe("AgentConfig");
    expect(schemas.AgentBody.required).toEqual(["config"]);
    const config = schemas.AgentConfig;
    expect(config.required).toEqual(expect.arrayContaining(["agent", "model"]));
    expect(Object.keys(config.properties ?? {})).toEqual(expect.arrayContaining(["version", "agent", "model", "loop", "tools", "mcp", "limits"]));
    expect(schemaName(config.properties?.tools.items)).toBe("ToolConfig");
    expect(schemaName(config.properties?.model)).toBe("ModelConfig");

    const toolVariants = schemas.ToolConfig.oneOf ?? schemas.ToolConfig.anyOf ?? [];
    expect(toolVariants.flatMap((variant) => variant.properties?.executionType.enum ?? []).sort()).toEqual([
      "agent",
      "external",
      "gateway",
      "image-generator",
      "internal",
      "prebuilt",
      "space",
    ]);
    for (const variant of toolVariants) {
      expect(variant.properties?.name.pattern).toBe("^[a-zA-Z0-9_-]{1,64}$");
      expect(Object.keys(variant.properties ?? {})).toEqual(
        expect.arrayContaining(["description", "inputSchema", "visible", "isAsync", "timeout", "displayTool", "display", "execution"]),
      );
    }

    const providers = (schemas.ModelConfig.oneOf ?? schemas.ModelConfig.anyOf ?? []).flatMap((variant) => variant.properties?.provider.enum ?? []);
    expect(providers.sort()).toEqual(["anthropic", "openai", "openai-compatible", "scripted", "workers-ai"]);
  });

  it("documents the query parameters of the message list and the stream", async () => {
    const { paths } = await fetchDocument();
    const queryNames = (operation: Operation) => (operation.parameters ?? []).filter((parameter) => parameter.in === "query").map((parameter) => parameter.name);
    expect(queryNames(paths["/api/spaces/{spaceId}/messages"].get).sort()).toEqual(["afterSeq", "limit"]);
    // `?publicKey=&token=` are credentials: the stream's security lists them, not its parameters.
    expect(queryNames(paths["/api/spaces/{spaceId}/stream"].get).sort()).toEqual(["afterSeq"]);
  });

  it("documents the error envelope, with every code the gateway answers as one enum", async () => {
    const document = await fetchDocument();
    const error = document.components.schemas.Error;
    expect(error.required).toEqual(["error"]);
    expect(error.properties?.error.required).toEqual(expect.arrayContaining(["code", "message"]));
    expect(schemaName(error.properties?.error.properties?.code)).toBe("ErrorCode");
    expect(document.components.schemas.ErrorCode.enum).toEqual([...errorCodes]);
    for (const { method, path, body } of operations.filter((operation) => operation.path.startsWith("/api/"))) {
      const responses = document.paths[path][method].responses;
      for (const status of ["400", "401", "403", ...(body ? ["413", "415"] : [])]) {
        expect(schemaName(responses[status]?.content?.["application/json"]?.schema), `${method} ${path} ${status}`).toBe("Error");
      }
    }
  });

  it("says who may call each route, on the route: the auth schemes, and no document-wide default", async () => {
    const document = await fetchDocument();
    expect(document.components.securitySchemes).toMatchObject({
      secretKey: { type: "apiKey", in: "header", name: "x-secret-key" },
      publicKey: { type: "apiKey", in: "header", name: "x-public-key" },
      bearer: { type: "http", scheme: "bearer" },
      publicKeyQuery: { type: "apiKey", in: "query", name: "publicKey" },
      tokenQuery: { type: "apiKey", in: "query", name: "token" },
    });
    expect(document.security).toBeUndefined();
    const securityOf = (path: string, method: string) => document.paths[path][method].security;
    const secretKey = { secretKey: [] };
    const memberJwt = { publicKey: [], bearer: [] };
    expect(securityOf("/health", "get")).toEqual([]);
    expect(securityOf("/api/callbacks/{token}", "post")).toEqual([]);
    // A secret-only route does not advertise the JWT it refuses.
    expect(securityOf("/api/agents/{agentId}", "get")).toEqual([secretKey]);
    expect(securityOf("/api/agents/{agentId}/stream", "get")).toEqual([secretKey]);
    expect(securityOf("/api/spaces/{spaceId}/messages", "post")).toEqual([secretKey, memberJwt]);
    expect(securityOf("/api/me", "get")).toEqual([memberJwt]);
    expect(securityOf("/api/spaces/{spaceId}/stream", "get")).toEqual([secretKey, memberJwt, { publicKeyQuery: [], tokenQuery: [] }]);
  });

  it("has no dangling $ref", async () => {
    const document = await fetchDocument();
    const refs = [...new Set(collectRefs(document))];
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(document.components.schemas[schemaName({ $ref: ref }) ?? ""], ref).toBeDefined();
    }
  });
});
