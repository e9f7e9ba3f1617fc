/**
 * The Agents SDK peer (see wrangler.toml here). Routes are the SDK's own:
 * `/agents/<class in kebab-case>/<name>` for WebSockets and HTTP
 * (`routeAgentRequest`).
 *
 * - BroadcastAgent: a WebSocket joins the room; `POST` sends its body to every
 *   socket with `broadcast` and answers `{sent}`.
 * - ChatAgent: the SDK's chat agent with one client-side tool. Its model is a
 *   `MockLanguageModelV4` from `ai/test` that plays the same parts the
 *   gateway's scripted model does: when the conversation does not end with a
 *   tool result it streams a `getData` call, otherwise a short answer and
 *   `stop`. The client answers the call with `cf_agent_tool_result`
 *   (`autoContinue`), and the SDK runs the model again: the same round trip as
 *   the gateway's external tool.
 */
import { AIChatAgent } from "@cloudflare/ai-chat";
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { Agent, routeAgentRequest } from "agents";
import { convertToModelMessages, isStepCount, streamText, tool } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { z } from "zod";

// The agents never read their env: the gateway's global Env type (which the SDK's
// generics default to) is left alone.
type PeerEnv = { BroadcastAgent: DurableObjectNamespace; ChatAgent: DurableObjectNamespace };

export class BroadcastAgent extends Agent {
  async onRequest(request: Request): Promise<Response> {
    if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
    this.broadcast(await request.text());
    return Response.json({ sent: [...this.getConnections()].length });
  }
}

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

/** A tool call when the last message is not a tool result; else a short answer. */
function scriptedParts(options: LanguageModelV4CallOptions): LanguageModelV4StreamPart[] {
  const last = options.prompt.at(-1);
  const head: LanguageModelV4StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: crypto.randomUUID(), timestamp: new Date(), modelId: "scripted" },
  ];
  if (last?.role === "tool") {
    return [
      ...head,
      { type: "text-start", id: "text-0" },
      { type: "text-delta", id: "text-0", delta: "Got it," },
      { type: "text-delta", id: "text-0", delta: " thanks." },
      { type: "text-end", id: "text-0" },
      { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
    ];
  }
  const toolCallId = `call_${crypto.randomUUID()}`;
  const input = JSON.stringify({ q: "query" });
  return [
    ...head,
    { type: "tool-input-start", id: toolCallId, toolName: "getData" },
    { type: "tool-input-delta", id: toolCallId, delta: input },
    { type: "tool-input-end", id: toolCallId },
    { type: "tool-call", toolCallId, toolName: "getData", input },
    { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
  ];
}

const model = new MockLanguageModelV4({
  provider: "scripted",
  modelId: "scripted",
  doStream: async (options) => ({ stream: convertArrayToReadableStream(scriptedParts(options)) }),
});

export class ChatAgent extends AIChatAgent {
  async onChatMessage(): Promise<Response> {
    const result = streamText({
      model,
      messages: await convertToModelMessages(this.messages),
      tools: {
        // No execute: the client runs it and sends the result back.
        getData: tool({ description: "Fetches data from the client", inputSchema: z.object({ q: z.string() }) }),
      },
      stopWhen: isStepCount(5),
    });
    return result.toUIMessageStreamResponse();
  }
}

export default {
  async fetch(request: Request, env: PeerEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") return Response.json({ ok: true, peer: "agents" });
    return (await routeAgentRequest(request, env)) ?? new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<PeerEnv>;
