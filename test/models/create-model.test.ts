import { env } from "cloudflare:workers";
import { streamText } from "ai";
import { expect, it } from "vitest";
import type { AppEnv } from "../../src/env";
import { createModel } from "../../src/models/create-model";

const cursor = { nextTurn: () => 0, consumeTurn: () => {} };
/** The test Worker's env with only the given model secrets, whatever the machine's environment holds. */
const withSecrets = (secrets: Record<string, string>): AppEnv => ({
  ...env,
  OPENAI_API_KEY: undefined,
  ANTHROPIC_API_KEY: undefined,
  TEAM_ANTHROPIC_KEY: undefined,
  AI: undefined,
  ...secrets,
});

it("names the secret to set when the OpenAI key is missing", async () => {
  await expect(createModel({ provider: "openai", name: "gpt-4o" }, withSecrets({}), cursor)).rejects.toThrow("set the OPENAI_API_KEY secret (wrangler secret put OPENAI_API_KEY)");
});

it("names the secret from apiKeyEnv when it is missing", async () => {
  await expect(createModel({ provider: "anthropic", name: "claude-sonnet-4-5", apiKeyEnv: "TEAM_ANTHROPIC_KEY" }, withSecrets({}), cursor)).rejects.toThrow(
    "set the TEAM_ANTHROPIC_KEY secret (wrangler secret put TEAM_ANTHROPIC_KEY)",
  );
});

it("says how to add the AI binding when workers-ai has none", async () => {
  await expect(createModel({ provider: "workers-ai", name: "@cf/meta/llama-3.1-8b-instruct" }, withSecrets({}), cursor)).rejects.toThrow("AI binding");
});

it("builds hosted models from secrets without calling them", async () => {
  const secrets = withSecrets({ OPENAI_API_KEY: "sk-test", ANTHROPIC_API_KEY: "sk-ant-test" });
  expect((await createModel({ provider: "openai", name: "gpt-4o" }, secrets, cursor)).modelId).toBe("gpt-4o");
  expect((await createModel({ provider: "anthropic", name: "claude-sonnet-4-5" }, secrets, cursor)).provider).toContain("anthropic");
  expect((await createModel({ provider: "openai-compatible", name: "llama3", baseURL: "http://localhost:11434/v1" }, withSecrets({}), cursor)).modelId).toBe("llama3");
});

it("builds a scripted model that plays the configured turns", async () => {
  const model = await createModel({ provider: "scripted", turns: [{ text: "Hello from the script" }] }, withSecrets({}), cursor);
  expect(model.provider).toBe("scripted");
  expect(await streamText({ model, prompt: "Hi" }).text).toBe("Hello from the script");
});

it("never hands the gateway's own keys or a binding to a provider, even from a stored config", async () => {
  for (const apiKeyEnv of ["JWT_SECRET", "WEBHOOK_SECRET", "GATEWAY_SECRET_KEY", "GATEWAY_PUBLIC_KEY"]) {
    await expect(
      createModel(
        { provider: "openai-compatible", name: "m", baseURL: "https://llm.example/v1", apiKeyEnv },
        withSecrets({ JWT_SECRET: env.JWT_SECRET, WEBHOOK_SECRET: env.WEBHOOK_SECRET, GATEWAY_SECRET_KEY: env.GATEWAY_SECRET_KEY, GATEWAY_PUBLIC_KEY: env.GATEWAY_PUBLIC_KEY }),
        cursor,
      ),
    ).rejects.toThrow(`The openai-compatible provider cannot use the secret "${apiKeyEnv}", which is one of the gateway's own keys`);
  }
  await expect(
    createModel(
      { provider: "openai", name: "gpt-4o", apiKeyEnv: "DB" },
      withSecrets({ JWT_SECRET: env.JWT_SECRET, WEBHOOK_SECRET: env.WEBHOOK_SECRET, GATEWAY_SECRET_KEY: env.GATEWAY_SECRET_KEY, GATEWAY_PUBLIC_KEY: env.GATEWAY_PUBLIC_KEY }),
      cursor,
    ),
  ).rejects.toThrow("is a binding of this Worker, not a secret");
});

it("checks a stored baseURL by the URL policy when the model is built", async () => {
  await expect(createModel({ provider: "openai-compatible", name: "m", baseURL: "file:///etc/passwd" }, withSecrets({}), cursor)).rejects.toThrow(
    "The model's baseURL cannot be used: Must be an http(s) URL (not file)",
  );
  const strict = { ...withSecrets({}), ALLOW_PRIVATE_URLS: "false" };
  await expect(createModel({ provider: "openai-compatible", name: "llama3", baseURL: "http://localhost:11434/v1" }, strict, cursor)).rejects.toThrow(
    'The host "localhost" is loopback, private or link-local',
  );
  expect((await createModel({ provider: "openai-compatible", name: "m", baseURL: "https://llm.example/v1" }, strict, cursor)).modelId).toBe("m");
});
