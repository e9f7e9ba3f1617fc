import { env } from "cloudflare:workers";
import { generateImage } from "ai";
import { describe, expect, it } from "vitest";
import { createImageModel } from "../../../src/models/create-image-model";
import { generateImageFile } from "../../../src/tools/images/generate-image-file";
import { call, createHuman, memberHeaders, secret } from "../../support/api";
import { waitForRuns } from "../../support/agents";
import { catalogueAgent, toolContext } from "../../support/catalogue";

type Part = { type: string; toolCallId?: string; url?: string; mediaType?: string; alt?: string; status?: string; result?: Record<string, unknown> };
type SpaceMessage = { id: string; entityId: string; role: string; parts?: Part[] };

async function messagesOf(spaceId: string, headers?: Record<string, string>): Promise<SpaceMessage[]> {
  const response = await call(`/api/spaces/${spaceId}/messages?afterSeq=0`, { headers: headers ?? { "x-secret-key": env.GATEWAY_SECRET_KEY } });
  return ((await response.json()) as { messages: SpaceMessage[] }).messages;
}

async function openaiRequests(): Promise<{ headers: Record<string, string>; body: string }[]> {
  return (await (await fetch("http://recorded.test/openai-images")).json()) as { headers: Record<string, string>; body: string }[];
}

const pngMagic = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe("generate_image (the images group)", () => {
  it("draws with the agent's image model, keeps the image in R2 and shows it in the active space as an image part members can open", async () => {
    const world = await catalogueAgent({ builtins: ["spaces", "images"], images: { provider: "scripted" } }, (spaceId) => [
      {
        toolCalls: [
          { name: "enter_space", args: { spaceId } },
          { name: "generate_image", args: { prompt: "a lighthouse at dusk" } },
          { name: "skip", args: {} },
        ],
      },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const drawn = run.toolCalls.find((entry) => entry.toolName === "generate_image");
    expect(drawn).toMatchObject({ status: "completed", result: { mediaType: "image/png", spaceId: world.spaceId, url: expect.stringMatching(/^\/api\/files\/download\?/) } });
    const stored = await env.FILES.get(`images/${world.agent.id}/${drawn?.toolCallId}`);
    expect(stored?.httpMetadata?.contentType).toBe("image/png");
    expect([...new Uint8Array(await (stored as R2ObjectBody).arrayBuffer()).subarray(0, 8)]).toEqual(pngMagic);

    const [message] = (await messagesOf(world.spaceId)).filter((entry) => entry.entityId === world.agent.entityId);
    expect(message.parts).toEqual([
      {
        type: "image",
        url: (drawn?.result as { url: string }).url,
        mediaType: "image/png",
        alt: "a lighthouse at dusk",
        expiresAt: expect.any(String),
        toolCallId: drawn?.toolCallId,
      },
    ]);
    const download = await call(message.parts?.[0].url ?? "", { headers: await memberHeaders(world.person) });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(download.headers.get("content-disposition")).toMatch(/^inline/);
    const outsider = await createHuman("Outsider");
    expect((await call(message.parts?.[0].url ?? "", { headers: await memberHeaders(outsider) })).status).toBe(403);
  });

  it("outside a space it refuses before drawing; without a Workers AI binding it says what to configure", async () => {
    const world = await catalogueAgent({ builtins: ["images"] }, () => [
      { toolCalls: [{ name: "generate_image", args: { prompt: "nothing" } }] },
      { toolCalls: [{ name: "generate_image", args: { prompt: "nothing", spaceId: "spc_not_mine" } }] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.map((entry) => (entry.result as { error: string }).error)).toEqual([
      "generate_image shows the image in a space: enter_space first, or give spaceId",
      'You are not a member of space "spc_not_mine"',
    ]);
    const inSpace = await catalogueAgent({ builtins: ["spaces", "images"] }, (spaceId) => [
      {
        toolCalls: [
          { name: "enter_space", args: { spaceId } },
          { name: "generate_image", args: { prompt: "x" } },
          { name: "skip", args: {} },
        ],
      },
    ]);
    await inSpace.wake();
    const [failedRun] = await waitForRuns(inSpace.agent.id, 1);
    expect((failedRun.toolCalls[1].result as { error: string }).error).toContain("needs the Workers AI binding");
  });
});

describe("the image-generator execution type", () => {
  const openaiTool = (extra: Record<string, unknown> = {}) => ({
    name: "drawBanner",
    executionType: "image-generator",
    execution: { provider: "openai", model: "gpt-image-1", baseURL: "http://openai.test/v1", apiKeyEnv: "TOOL_API_TOKEN", size: "1024x1024", providerOptions: { quality: "high" } },
    ...extra,
  });

  it("an OpenAI image model through the AI SDK: the card completes with the image as an image part", async () => {
    const before = (await openaiRequests()).length;
    const world = await catalogueAgent({ tools: [openaiTool()] }, (spaceId) => [
      {
        toolCalls: [
          { name: "enter_space", args: { spaceId } },
          { name: "drawBanner", args: { prompt: "a campaign banner" } },
          { name: "skip", args: {} },
        ],
      },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const drawn = run.toolCalls.find((entry) => entry.toolName === "drawBanner");
    expect(drawn).toMatchObject({ status: "completed", result: { prompt: "a campaign banner", image: { mediaType: "image/png", url: expect.any(String) } } });
    const requests = (await openaiRequests()).slice(before);
    expect(requests).toHaveLength(1);
    expect(requests[0].headers.authorization).toBe("Bearer test-tool-token");
    expect(JSON.parse(requests[0].body)).toMatchObject({ model: "gpt-image-1", prompt: "a campaign banner", n: 1, size: "1024x1024", quality: "high" });
    const [card] = (await messagesOf(world.spaceId)).filter((entry) => entry.role === "tool");
    expect(card.parts).toMatchObject([
      { type: "tool_call", toolName: "drawBanner", status: "complete", result: { image: { url: expect.any(String) } } },
      { type: "image", mediaType: "image/png", alt: "a campaign banner", toolCallId: drawn?.toolCallId },
    ]);
    expect((await call(card.parts?.[1].url ?? "", { headers: await memberHeaders(world.person) })).status).toBe(200);
  });

  it("a minimal tool's image is not shown to public-key clients", async () => {
    const world = await catalogueAgent({ tools: [{ ...openaiTool(), name: "drawPrivate", display: { mode: "minimal" } }] }, (spaceId) => [
      {
        toolCalls: [
          { name: "enter_space", args: { spaceId } },
          { name: "drawPrivate", args: { prompt: "private" } },
          { name: "skip", args: {} },
        ],
      },
    ]);
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    const [full] = (await messagesOf(world.spaceId)).filter((entry) => entry.role === "tool");
    expect(full.parts?.map((part) => part.type)).toEqual(["tool_call", "image"]);
    const [redacted] = (await messagesOf(world.spaceId, await memberHeaders(world.person))).filter((entry) => entry.role === "tool");
    expect(redacted.parts).toEqual([{ type: "tool_call", toolCallId: expect.any(String), toolName: "drawPrivate", status: "complete" }]);
  });

  it("a call done again after a restart finds its image and draws nothing new", async () => {
    const before = (await openaiRequests()).length;
    const context = toolContext();
    const execution = { provider: "openai" as const, baseURL: "http://openai.test/v1", apiKeyEnv: "TOOL_API_TOKEN" };
    const first = await generateImageFile(context, execution, { prompt: "once", toolCallId: "call_same" });
    const again = await generateImageFile(context, execution, { prompt: "once", toolCallId: "call_same" });
    expect(first).toMatchObject({ ok: true, image: { key: `images/${context.agent.agentId}/call_same`, mediaType: "image/png" } });
    expect(again).toMatchObject({ ok: true, image: { key: `images/${context.agent.agentId}/call_same` } });
    expect((await openaiRequests()).length - before).toBe(1);
  });

  it("configs are checked at save: reserved key names, a baseURL outside the URL policy, an unknown provider", async () => {
    const base = { agent: { name: "imgs" }, model: { provider: "scripted", turns: [] } };
    const reserved = await secret<{ error: { details: { path: string }[] } }>("/api/agents", {
      body: { config: { ...base, tools: [openaiTool({ execution: { provider: "openai", apiKeyEnv: "JWT_SECRET" } })] } },
    });
    expect(reserved.status).toBe(400);
    expect(reserved.body.error.details[0].path).toBe("config.tools.0.execution.apiKeyEnv");
    const badUrl = await secret("/api/agents", { body: { config: { ...base, images: { provider: "openai", baseURL: "ftp://x" } } } });
    expect(badUrl.status).toBe(400);
    const unknown = await secret("/api/agents", { body: { config: { ...base, tools: [{ name: "d", executionType: "image-generator", execution: { provider: "midjourney" } }] } } });
    expect(unknown.status).toBe(400);
  });

  it("Workers AI image models go through the AI binding", async () => {
    const calls: { model: string; inputs: Record<string, unknown> }[] = [];
    const binding = {
      run: async (model: string, inputs: Record<string, unknown>) => {
        calls.push({ model, inputs });
        return { image: btoa(String.fromCharCode(...pngMagic, 0, 0, 0, 0)) };
      },
    };
    const made = await createImageModel({ provider: "workers-ai", size: "512x512" }, { ...env, AI: binding as unknown as Ai });
    if (!made.ok) throw new Error(made.error);
    const result = await generateImage({ model: made.model, prompt: "a fox", size: "512x512" });
    expect(result.image.mediaType).toBe("image/png");
    expect(calls).toEqual([{ model: "@cf/black-forest-labs/flux-1-schnell", inputs: expect.objectContaining({ prompt: "a fox", width: 512, height: 512 }) }]);
    expect(await createImageModel({ provider: "openai" }, { ...env, OPENAI_API_KEY: undefined })).toEqual({
      ok: false,
      error: "The openai image provider needs an API key: set the OPENAI_API_KEY secret",
    });
  });
});
