/**
 * The OpenAPI document of a provider: given inline (checked when the agent is
 * saved), or fetched from `spec.url` (by the URL policy, at most 2 MB, JSON,
 * within 10 s) and kept for `specTtl` in the isolate, keyed by its URL. A
 * document must say `openapi: 3.x`; YAML documents are not read (convert
 * them to JSON first).
 */
import { parseJsonSafely } from "../../json";
import { readLimitedBody } from "../../security/read-limited-body";
import { outboundUrlProblem, urlPolicyOf } from "../../security/url-policy";
import type { OpenApiProviderConfig } from "../config/provider-config";

type Json = Record<string, unknown>;

export const maxDocumentBytes = 2 * 1024 * 1024;
const fetchTimeoutMs = 10_000;
export const defaultSpecTtlMs = 10 * 60 * 1000;
const maxKept = 32;

const kept = new Map<string, { document: Json; fetchedAt: number }>();

export type LoadedDocument = { ok: true; document: Json; specUrl?: string } | { ok: false; error: string };

/** Why a value is not an OpenAPI 3.x document, or undefined. */
export function documentProblem(document: unknown): string | undefined {
  if (typeof document !== "object" || document === null || Array.isArray(document)) return "The OpenAPI document must be a JSON object";
  const version = (document as Json).openapi;
  if (typeof version !== "string" || !/^3\.\d+/.test(version)) return 'Only OpenAPI 3.x documents are read (the document has no "openapi": "3.…")';
  if (typeof (document as Json).paths !== "object" || (document as Json).paths === null) return 'The OpenAPI document has no "paths"';
  return undefined;
}

export async function loadOpenApiDocument(provider: OpenApiProviderConfig, env: Record<string, unknown>, now = Date.now()): Promise<LoadedDocument> {
  if ("document" in provider.spec) {
    const problem = documentProblem(provider.spec.document);
    return problem ? { ok: false, error: problem } : { ok: true, document: provider.spec.document };
  }
  const url = provider.spec.url;
  const ttl = provider.specTtl ?? defaultSpecTtlMs;
  const hit = kept.get(url);
  if (hit && now - hit.fetchedAt < ttl) return { ok: true, document: hit.document, specUrl: url };
  const problem = outboundUrlProblem(url, urlPolicyOf(env));
  if (problem !== undefined) return { ok: false, error: `The document's URL cannot be called: ${problem}` };
  const fetched = await fetchDocument(url);
  if (!fetched.ok) return fetched;
  kept.set(url, { document: fetched.document, fetchedAt: now });
  if (kept.size > maxKept) kept.delete(kept.keys().next().value as string);
  return { ok: true, document: fetched.document, specUrl: url };
}

async function fetchDocument(url: string): Promise<LoadedDocument> {
  const controller = new AbortController();
  let rejectInterrupted: (reason: Error) => void = () => undefined;
  const interrupted = new Promise<never>((_resolve, reject) => (rejectInterrupted = reject));
  interrupted.catch(() => undefined);
  const timer = setTimeout(() => {
    controller.abort();
    rejectInterrupted(new Error(`no answer within ${fetchTimeoutMs}ms`));
  }, fetchTimeoutMs);
  try {
    const response = await Promise.race([fetch(url, { headers: { accept: "application/json" }, signal: controller.signal, redirect: "manual" }), interrupted]);
    if (!response.ok) {
      await response.body?.cancel();
      return { ok: false, error: `Fetching the OpenAPI document answered HTTP ${response.status}` };
    }
    const body = await readLimitedBody(response.body, { maxBytes: maxDocumentBytes, interrupted });
    if (!body.ok) return { ok: false, error: `The OpenAPI document is larger than ${maxDocumentBytes} bytes` };
    const parsed = parseJsonSafely(new TextDecoder().decode(body.bytes));
    if (!parsed.ok) return { ok: false, error: `The OpenAPI document is not JSON (${parsed.message}); YAML documents are not read` };
    const problem = documentProblem(parsed.value);
    return problem ? { ok: false, error: problem } : { ok: true, document: parsed.value as Json, specUrl: url };
  } catch (error) {
    return { ok: false, error: `Fetching the OpenAPI document failed: ${(error as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}
