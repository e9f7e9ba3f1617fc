import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { waitForRuns } from "../support/agents";
import { providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";

type Echo = { method: string; rawPath: string; query: Record<string, string>; search: string; headers: Record<string, string>; body: string | null };
const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });
const pets = (extra: Record<string, unknown> = {}) => ({
  name: "pets",
  type: "openapi",
  spec: { url: "http://api.test/openapi.json" },
  headers: { authorization: "Bearer ${env.TOOL_API_TOKEN}" },
  ...extra,
});

describe("REST tools from an OpenAPI document", () => {
  it("each operation is a tool: path, query and header parameters and the JSON body go where the document says, with the provider's secret header", async () => {
    const world = await providerWorld({ providers: [pets()] }, () => [
      {
        toolCalls: [
          call("pets__getPet", { petId: "a b/../admin", verbose: true, "X-Trace": "t-1" }),
          call("pets__createPet", { body: { name: "Rex", tag: null, owner: { name: "Ann" } } }),
          call("pets__listPets", { tags: ["cat", "small"], limit: 5 }),
        ],
      },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const byName = Object.fromEntries(run.toolCalls.map((entry) => [entry.toolName, entry.result as Echo]));
    expect(byName.pets__getPet).toMatchObject({ method: "GET", rawPath: "/echo/v1/pets/a%20b%2F..%2Fadmin", query: { verbose: "true" } });
    expect(byName.pets__getPet.headers).toMatchObject({ authorization: "Bearer test-tool-token", "x-trace": "t-1" });
    expect(byName.pets__createPet).toMatchObject({ method: "POST", rawPath: "/echo/v1/pets" });
    expect(JSON.parse(byName.pets__createPet.body ?? "")).toEqual({ name: "Rex", tag: null, owner: { name: "Ann" } });
    expect(byName.pets__createPet.headers["content-type"]).toBe("application/json");
    expect(byName.pets__listPets.search).toBe("?tags=cat&tags=small&limit=5");
    const loaded = await world.agentStream.waitForType("openapi.loaded");
    expect(loaded.data).toEqual({ provider: "pets", baseUrl: "http://api.test/echo/v1", tools: ["pets__getPet", "pets__deletePet", "pets__listPets", "pets__createPet"] });
    const skipped = await world.agentStream.waitForType("openapi.operation.skipped");
    expect(skipped.data).toEqual({
      provider: "pets",
      operation: "upload (POST /upload)",
      error: "the request body's media types (application/octet-stream) are not supported; JSON and forms are",
    });
    world.close();
  });

  it("arguments are checked against the schema made from the document ($ref, nullable, exclusiveMaximum) before any request", async () => {
    const world = await providerWorld({ providers: [pets()] }, () => [
      { toolCalls: [call("pets__createPet", { body: { tag: "x" } }), call("pets__listPets", { limit: 100 }), call("pets__getPet", {}), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const errors = run.toolCalls.filter((entry) => entry.toolName !== "skip").map((entry) => [entry.toolName, entry.error, entry.failureKind]);
    expect(errors).toEqual([
      ["pets__createPet", expect.stringContaining("/body/name: is required"), "validation"],
      ["pets__listPets", expect.stringContaining("/limit:"), "validation"],
      ["pets__getPet", expect.stringContaining("/petId: is required"), "validation"],
    ]);
    world.close();
  });

  it("toolsAllowed is the operation allow-list (by operationId or METHOD /path); toolsDenied takes away", async () => {
    const world = await providerWorld({ providers: [pets({ toolsAllowed: ["getPet", "POST /pets", "deletePet"], toolsDenied: ["deletePet"] })] }, () => [
      { toolCalls: [call("pets__deletePet", { petId: "1" }), call("pets__createPet", { body: { name: "Rex" } }), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const loaded = await world.agentStream.waitForType("openapi.loaded");
    expect(loaded.data.tools).toEqual(["pets__getPet", "pets__createPet"]);
    expect(run.toolCalls.find((entry) => entry.toolName === "pets__deletePet")?.status).toBe("failed");
    expect(run.toolCalls.find((entry) => entry.toolName === "pets__createPet")?.status).toBe("completed");
    world.close();
  });

  it("an inline document is checked when the agent is saved: unknown allowed operations, collisions with both names, unset secrets", async () => {
    const document = {
      openapi: "3.1.0",
      info: { title: "x", version: "1" },
      servers: [{ url: "http://api.test/echo" }],
      paths: { "/a": { get: { operationId: "look" } }, "/b": { post: { operationId: "send", requestBody: { required: true, content: { "text/csv": {} } } } } },
    };
    const save = (config: Record<string, unknown>) =>
      secret<{ error: { details: { path: string; message: string }[] } }>("/api/agents", {
        body: { config: { agent: { name: "x" }, model: { provider: "scripted", turns: [] }, ...config } },
      });

    const unknown = await save({ providers: [{ name: "api", type: "openapi", spec: { document }, toolsAllowed: ["nope", "send"] }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([
      { path: "config.providers.0.toolsAllowed", message: '"nope" names no operation of the document (by operationId or "METHOD /path")' },
      {
        path: "config.providers.0.toolsAllowed",
        message: "The operation send (POST /b) cannot be a tool: the request body's media types (text/csv) are not supported; JSON and forms are",
      },
    ]);

    const collision = await save({
      tools: [{ name: "api__look", description: "mine", executionType: "internal", inputSchema: { type: "object" } }],
      providers: [{ name: "api", type: "openapi", spec: { document } }],
    });
    expect(collision.status).toBe(400);
    expect(collision.body.error.details).toEqual([
      { path: "config.providers.0.spec.document", message: 'The name "api__look" of tool "look" of provider "api" is already taken by the configured tool "api__look"' },
    ]);

    const secretless = await save({ providers: [{ name: "api", type: "openapi", spec: { document }, headers: { authorization: "Bearer ${env.NOT_SET}" } }] });
    expect(secretless.status).toBe(400);
    expect(secretless.body.error.details[0].path).toBe("config.providers.0.headers.authorization");

    const notOpenApi = await save({ providers: [{ name: "api", type: "openapi", spec: { document: { swagger: "2.0", paths: {} } } }] });
    expect(notOpenApi.body.error.details[0]).toEqual({
      path: "config.providers.0.spec.document",
      message: 'Only OpenAPI 3.x documents are read (the document has no "openapi": "3.…")',
    });
  });

  it("a header parameter never replaces a configured (secret) header of the same name", async () => {
    const document = {
      openapi: "3.0.0",
      info: { title: "x", version: "1" },
      servers: [{ url: "http://api.test/echo" }],
      paths: { "/who": { get: { operationId: "who", parameters: [{ name: "Authorization", in: "header", schema: { type: "string" } }] } } },
    };
    const world = await providerWorld({ providers: [{ name: "api", type: "openapi", spec: { document }, headers: { Authorization: "Bearer ${env.TOOL_API_TOKEN}" } }] }, () => [
      { toolCalls: [call("api__who", { Authorization: "Bearer stolen" }), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect((run.toolCalls[0].result as Echo).headers.authorization).toBe("Bearer test-tool-token");
    world.close();
  });

  it("a document that cannot be fetched is reported and its tools are absent; the cycle goes on", async () => {
    const world = await providerWorld({ providers: [{ name: "gone", type: "openapi", spec: { url: "http://api.test/status/404" } }] }, () => [{ toolCalls: [skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.status).toBe("completed");
    const failed = await world.agentStream.waitForType("openapi.failed");
    expect(failed.data).toEqual({ provider: "gone", error: "Fetching the OpenAPI document answered HTTP 404" });
    world.close();
  });
});
