/**
 * Which model an agent thinks with (the config's `model`): the provider, its
 * settings, and for `scripted` the turns it plays. API keys are named, never given.
 */
import { z } from "@hono/zod-openapi";
import { secretNameProblem } from "../security/secret-policy";
import { OutboundUrl } from "../security/url-policy";
import { wordsOf } from "./scripted-jump";

/** Names the Worker secret holding an API key (never the key itself, never one of the gateway's own keys). */
export const ApiKeyEnv = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]{0,63}$/, "An environment variable name such as MY_PROVIDER_KEY")
  .superRefine((name, context) => {
    const problem = secretNameProblem(name);
    if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
  });

const modelSettings = {
  name: z.string().min(1).max(200),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().positive().max(200_000).optional(),
  apiKeyEnv: ApiKeyEnv.optional(),
};

export const ScriptedToolCall = z
  .object({
    name: z.string().min(1).max(64),
    args: z.record(z.string(), z.unknown()).default({}),
    /** The call id the model gives (providers reuse ids; the gateway gives every call its own anyway). Default: a fresh one. */
    id: z.string().min(1).max(100).optional(),
  })
  .strict();

export const ScriptedTurn = z
  .object({
    text: z.string().max(100_000).optional(),
    toolCalls: z.array(ScriptedToolCall).max(32).optional(),
  })
  .strict();

/**
 * A jump in a scripted model's script: a cycle woken by a space message that
 * says `whenMessageSays` (the same words in the same order, whatever the case
 * and punctuation) plays from turn `toTurn` instead of where the script stood.
 * What lets a demo offer something again when asked ("form").
 */
export const ScriptedJump = z
  .object({
    whenMessageSays: z.string().min(1).max(200),
    toTurn: z.number().int().min(0),
  })
  .strict()
  .openapi("ScriptedJump");

export const ModelConfig = z
  .discriminatedUnion("provider", [
    z.object({ provider: z.literal("openai"), ...modelSettings, baseURL: OutboundUrl.optional() }).strict(),
    z.object({ provider: z.literal("anthropic"), ...modelSettings, baseURL: OutboundUrl.optional() }).strict(),
    z.object({ provider: z.literal("openai-compatible"), ...modelSettings, baseURL: OutboundUrl }).strict(),
    z.object({ provider: z.literal("workers-ai"), ...modelSettings }).strict(),
    z
      .object({
        provider: z.literal("scripted"),
        name: z.string().max(200).optional(),
        temperature: z.number().optional(),
        maxOutputTokens: z.number().int().positive().optional(),
        turns: z.array(ScriptedTurn).max(10_000),
        jumps: z.array(ScriptedJump).max(100).optional(),
      })
      .strict()
      .superRefine((model, context) => {
        model.jumps?.forEach((jump, index) => {
          if (jump.toTurn >= model.turns.length)
            context.addIssue({
              code: "custom",
              path: ["jumps", index, "toTurn"],
              message: `No turn ${jump.toTurn}: the script has ${model.turns.length} turn(s), numbered from 0`,
            });
          if (wordsOf(jump.whenMessageSays).length === 0)
            context.addIssue({ code: "custom", path: ["jumps", index, "whenMessageSays"], message: "Give at least one word (letters or digits)" });
        });
      }),
  ])
  .openapi("ModelConfig");

export type ModelConfig = z.infer<typeof ModelConfig>;
export type ScriptedTurn = z.infer<typeof ScriptedTurn>;
export type ScriptedJump = z.infer<typeof ScriptedJump>;
