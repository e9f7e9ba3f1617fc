/**
 * The stand-ins the Worker bundle gets instead of code it never runs
 * (wrangler.toml [alias], src/bundle-aliases/). vitest.config.ts applies the
 * same aliases, so this file (and every other test) runs what ships.
 */
import { GatewayAuthenticationError, GatewayError } from "@ai-sdk/gateway";
import { APICallError } from "@ai-sdk/provider";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { objectFromShape, safeParse } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as zodV4 } from "zod/v4";
import * as zodV3 from "zod/v3";
// zod's own namespace, by a path no alias matches.
import * as zodAsPublished from "../node_modules/zod/v4/classic/external.js";
import { createScriptedModel } from "../src/models/scripted-model";

/** What src/bundle-aliases/zod-namespace.ts leaves out, and nothing else. */
const leftOut = ["core", "locales", "compile", "withParser", "toZod", "ZodCompileAsyncError", "ZodCompileUnsupportedError", "INVALID", "fromJSONSchema"];

describe("bundle aliases", () => {
  it("ajv is not in the Worker: an MCP client without a validator says what to pass, one with @cfworker/json-schema is made", () => {
    expect(() => new Client({ name: "t", version: "1" })).toThrow("jsonSchemaValidator: new McpSchemaValidator()");
    const client = new Client({ name: "t", version: "1" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    expect(client).toBeInstanceOf(Client);
  });

  it("zod 3 and zod-to-json-schema are not in the Worker: the MCP SDK's zod 4 path works as before, and a zod 3 shape says why", () => {
    expect(Object.keys(zodV3)).toEqual(["object"]);
    // The SDK's own message schemas are zod 4: parsed and described without zod 3.
    expect(safeParse(ListToolsResultSchema, { tools: [{ name: "t", inputSchema: { type: "object" } }] }).success).toBe(true);
    const shape = objectFromShape({ n: z.number() });
    expect(safeParse(shape, { n: "1" }).success).toBe(false);
    expect(toJsonSchemaCompat(shape)).toMatchObject({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
    const zod3Like = { parse: () => 1, safeParse: () => ({ success: true }) };
    expect(() => objectFromShape({ n: zod3Like as unknown as z.ZodNumber })).toThrow("zod 3 is not bundled in the Worker");
    expect(() => toJsonSchemaCompat(zod3Like as unknown as z.ZodObject)).toThrow("zod-to-json-schema is not bundled in the Worker");
  });

  it("zod: `z` from zod and zod/v4 is zod's own namespace, member for member, less the locales, core, compile and fromJSONSchema", () => {
    expect(zodV4).toBe(z);
    const published = Object.keys(zodAsPublished).filter((name) => name !== "default");
    for (const name of published) {
      if (leftOut.includes(name)) expect(z[name as keyof typeof z], name).toBeUndefined();
      else expect(z[name as keyof typeof z], name).toBe(zodAsPublished[name as keyof typeof zodAsPublished]);
    }
    const extra = Object.keys(z).filter((name) => !published.includes(name) && name !== "default");
    expect(extra).toEqual([]);
    // Same classes: a schema made by one is an instance for the other, and errors still read in English.
    expect(z.string()).toBeInstanceOf(zodAsPublished.ZodType);
    const parsed = z.object({ n: z.number() }).safeParse({ n: "1" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe("Invalid input: expected number, received string");
  });

  it("the AI Gateway provider is not in the Worker: a string model id says so, and a provider's errors are not gateway errors", async () => {
    await expect(generateText({ model: "openai/gpt-4o", prompt: "hi" })).rejects.toThrow("not bundled");
    const apiError = new APICallError({ message: "rate limited", url: "https://api.example/v1", requestBodyValues: {}, statusCode: 429 });
    expect(GatewayError.isInstance(apiError)).toBe(false);
    expect(GatewayAuthenticationError.isInstance(apiError)).toBe(false);
    // The markers the real classes set are recognised the same way.
    const marked = Object.assign(new Error("x"), { [Symbol.for("vercel.ai.gateway.error")]: true, [Symbol.for("vercel.ai.gateway.error.GatewayAuthenticationError")]: true });
    expect(GatewayError.isInstance(marked)).toBe(true);
    expect(GatewayAuthenticationError.isInstance(marked)).toBe(true);
    // A model object streams as before.
    let turn = 0;
    const result = streamText({
      model: createScriptedModel({ turns: [{ text: "still here" }], nextTurn: () => turn, consumeTurn: (index) => void (turn = index + 1) }),
      prompt: "hi",
    });
    expect(await result.text).toBe("still here");
  });
});
