/**
 * Whether a model provider takes images and audio inside tool results. The
 * AI SDK passes media parts on to OpenAI (Responses API) and Anthropic;
 * OpenAI-compatible servers and Workers AI would get them as base64 text, so
 * for those the gateway describes media in words instead. The scripted
 * model takes anything (it reads nothing).
 */
import type { ModelConfig } from "./model-config";

export function mediaToolResults(model: ModelConfig): boolean {
  return model.provider === "openai" || model.provider === "anthropic" || model.provider === "scripted";
}
