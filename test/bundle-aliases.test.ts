/**
 * The stand-ins the Worker bundle gets instead of code it never runs
 * (wrangler.toml [alias], src/bundle-aliases/). vitest.config.ts applies the
 * same aliases, so this file (and every other test) runs what ships.
 */
import { GatewayAuthenticationError, GatewayError } from "@ai-sdk/gateway";
import { APICallError } from "@ai-sdk/provider";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as zodV4 } from "zod/v4";
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
