import { generateText, isStepCount, jsonSchema, streamText, tool } from "ai";
import type { TextStreamPart, ToolSet } from "ai";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/models/model-config";
import { createScriptedModel, scriptFinishedText } from "../../src/models/scripted-model";

/** Stands in for Durable Object storage: async reads and writes of one index. */
function storedCursor(start = 0) {
  const storage = new Map<string, number>([["scriptedTurn", start]]);
  const consumed: number[] = [];
  return {
    consumed,
    saved: () => storage.get("scriptedTurn") ?? 0,
    nextTurn: async () => storage.get("scriptedTurn") ?? 0,
    consumeTurn: async (index: number) => {
      consumed.push(index);
      storage.set("scriptedTurn", index + 1);
    },
  };
}

const tools = {
  lookup: tool({
    description: "Looks something up",
    inputSchema: jsonSchema<{ query: string; limit?: number }>({
      type: "object",
      properties: { query: { type: "string" }, limit: { type: "number" } },
      required: ["query"],
    }),
    execute: async ({ query }) => ({ found: `results for ${query}` }),
  }),
  send_message: tool({
    description: "Sends a message",
    inputSchema: jsonSchema<{ text: string }>({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
    execute: async ({ text }) => ({ sent: text }),
  }),
};

async function collect<TOOLS extends ToolSet>(stream: AsyncIterable<TextStreamPart<TOOLS>>): Promise<TextStreamPart<TOOLS>[]> {
  const parts: TextStreamPart<TOOLS>[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const conversation: ScriptedTurn[] = [
  { text: "Let me look that up for you right away.", toolCalls: [{ name: "lookup", args: { query: "weather in Paris", limit: 3 } }] },
  {
    toolCalls: [
      { name: "send_message", args: { text: "It is sunny in Paris — 24 °C 🌞" } },
      { name: "lookup", args: { query: "weather tomorrow" } },
    ],
  },
  { text: "All done, have a nice day." },
];

describe("scripted model", () => {
  it("plays one turn per model call, in order, through a streamText tool loop", async () => {
    const cursor = storedCursor();
    const result = streamText({ model: createScriptedModel({ ...cursor, turns: conversation }), prompt: "What is the weather?", tools, stopWhen: isStepCount(10) });
    const parts = await collect(result.fullStream);
    const steps = await result.steps;

    expect(cursor.consumed).toEqual([0, 1, 2]);
    expect(cursor.saved()).toBe(3);
    expect(steps).toHaveLength(3);
    expect(steps.map((step) => step.finishReason)).toEqual(["tool-calls", "tool-calls", "stop"]);
    expect(steps[0].text).toBe("Let me look that up for you right away.");
    expect(steps[0].toolResults.map((toolResult) => toolResult.output)).toEqual([{ found: "results for weather in Paris" }]);
    expect(await result.text).toBe("All done, have a nice day.");
    expect(parts.filter((part) => part.type === "tool-error")).toEqual([]);
  });

  it("streams text in several small deltas", async () => {
    const cursor = storedCursor();
    const result = streamText({ model: createScriptedModel({ ...cursor, turns: conversation }), prompt: "Hi", tools, stopWhen: isStepCount(1) });
    const deltas = (await collect(result.fullStream)).flatMap((part) => (part.type === "text-delta" ? [part.text] : []));

    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.every((delta) => delta.length <= 9)).toBe(true);
    expect(deltas.join("")).toBe("Let me look that up for you right away.");
  });

  it("streams tool arguments as several deltas that parse to the scripted args", async () => {
    const cursor = storedCursor();
    const result = streamText({ model: createScriptedModel({ ...cursor, turns: conversation }), prompt: "Hi", tools, stopWhen: isStepCount(1) });
    const parts = await collect(result.fullStream);
    const start = parts.find((part) => part.type === "tool-input-start");
    if (start?.type !== "tool-input-start") throw new Error("no tool-input-start part");
    const deltas = parts.flatMap((part) => (part.type === "tool-input-delta" && part.id === start.id ? [part.delta] : []));
    const order = parts.map((part) => part.type).filter((type) => type.startsWith("tool-"));

    expect(start.toolName).toBe("lookup");
    expect(deltas.length).toBeGreaterThan(3);
    expect(JSON.parse(deltas.join(""))).toEqual({ query: "weather in Paris", limit: 3 });
    expect(order.slice(0, 2)).toEqual(["tool-input-start", "tool-input-delta"]);
    expect(order.slice(-3)).toEqual(["tool-input-end", "tool-call", "tool-result"]);
  });

  it("plays a turn with several tool calls as one step of parallel calls", async () => {
    const cursor = storedCursor(1);
    const result = streamText({ model: createScriptedModel({ ...cursor, turns: conversation }), prompt: "Hi", tools, stopWhen: isStepCount(1) });
    await result.consumeStream();
    const [step] = await result.steps;
    const ids = step.toolCalls.map((call) => call.toolCallId);

    expect(cursor.consumed).toEqual([1]);
    expect(step.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ["send_message", { text: "It is sunny in Paris — 24 °C 🌞" }],
      ["lookup", { query: "weather tomorrow" }],
    ]);
    expect(new Set(ids).size).toBe(2);
    expect(ids.every((id) => id.startsWith("call_"))).toBe(true);
    expect(step.toolResults).toHaveLength(2);
  });

  it('answers "(script finished)" with no tool calls once the turns run out', async () => {
    const cursor = storedCursor(3);
    const result = streamText({ model: createScriptedModel({ ...cursor, turns: conversation }), prompt: "Anything else?", tools, stopWhen: isStepCount(5) });

    expect(await result.text).toBe(scriptFinishedText);
    expect(await result.toolCalls).toEqual([]);
    expect(await result.finishReason).toBe("stop");
    expect(cursor.consumed).toEqual([]);
    expect(cursor.saved()).toBe(3);
  });

  it("continues from the saved turn in a later cycle", async () => {
    const turns: ScriptedTurn[] = [{ toolCalls: [{ name: "lookup", args: { query: "first" } }] }, { text: "First cycle done." }, { text: "Second cycle reply." }];
    const storage = new Map<string, number>();
    const cursor = {
      nextTurn: async () => storage.get("turn") ?? 0,
      consumeTurn: async (index: number) => void storage.set("turn", index + 1),
    };
    const cycle = (prompt: string) => streamText({ model: createScriptedModel({ ...cursor, turns }), prompt, tools, stopWhen: isStepCount(10) }).text;

    expect(await cycle("one")).toBe("First cycle done.");
    expect(storage.get("turn")).toBe(2);
    expect(await cycle("two")).toBe("Second cycle reply.");
    expect(storage.get("turn")).toBe(3);
    expect(await cycle("three")).toBe(scriptFinishedText);
    expect(storage.get("turn")).toBe(3);
  });

  it("reports plausible usage, counting the prompt as input", async () => {
    const cursor = storedCursor(2);
    const model = createScriptedModel({ ...cursor, turns: conversation });
    const short = await streamText({ model, prompt: "Hi", stopWhen: isStepCount(1) }).usage;
    const long = await streamText({ model, prompt: "Hi ".repeat(400), stopWhen: isStepCount(1) }).usage;

    expect(short.outputTokens).toBe(Math.ceil("All done, have a nice day.".length / 4));
    expect(short.inputTokens).toBeGreaterThan(0);
    expect(long.inputTokens ?? 0).toBeGreaterThan((short.inputTokens ?? 0) + 250);
  });

  it("plays turns through generateText too", async () => {
    const cursor = storedCursor();
    const result = await generateText({ model: createScriptedModel({ ...cursor, turns: conversation }), prompt: "Hi", tools, stopWhen: isStepCount(10) });

    expect(cursor.consumed).toEqual([0, 1, 2]);
    expect(result.steps[1].toolCalls).toHaveLength(2);
    expect(result.text).toBe("All done, have a nice day.");
  });
});
