/**
 * An OpenAPI source as a tool provider (`providers[].type: "openapi"`): one
 * tool per allowed operation, `{provider}__{operationId}`, run through the
 * engine (validation, display, queue, cache) and sent like a gateway tool
 * (`run-openapi-operation.ts`). Answers of reading operations (GET, HEAD,
 * OPTIONS) may be cached; others only with `cache.allowSideEffects`. A
 * document that cannot be loaded is reported (`openapi.failed`) and its
 * tools are absent; an operation that cannot become a tool is reported
 * (`openapi.operation.skipped`).
 */
import { hopHeader } from "../../protocol/hop";
import type { ResolvedTool } from "../engine/resolved-tool";
import { failed, succeeded } from "../engine/tool-outcome";
import type { OpenApiProviderConfig } from "../config/provider-config";
import type { ToolProvider } from "./tool-provider";
import { loadOpenApiDocument } from "../openapi/openapi-document";
import { baseUrlOf, type OpenApiOperation, operationsOf } from "../openapi/openapi-operations";
import { runOpenApiOperation } from "../openapi/run-openapi-operation";
import type { PlatformAccess, SettingsAccess, StreamAccess } from "../engine/tool-context";
import type { PendingCallContext } from "../engine/run-pending-call";
import { actsAsPersonOpenApi, runOpenApiAsPerson } from "../openapi/run-openapi-as-person";
import { traceHeader } from "../../telemetry/tracer";

export function openApiProvider(provider: OpenApiProviderConfig): ToolProvider {
  return {
    name: provider.name,
    kind: "openapi",
    async load(context: PlatformAccess & StreamAccess) {
      const loaded = await loadOpenApiDocument(provider, context.env);
      if (!loaded.ok) {
        context.publish("openapi.failed", { provider: provider.name, error: loaded.error });
        return { tools: [] };
      }
      const base = baseUrlOf(loaded.document, provider, loaded.specUrl);
      if (!base.ok) {
        context.publish("openapi.failed", { provider: provider.name, error: base.error });
        return { tools: [] };
      }
      const { baseUrl } = base;
      const { operations, skipped } = operationsOf(loaded.document, provider);
      for (const skip of skipped) context.publish("openapi.operation.skipped", { provider: provider.name, ...skip });
      context.publish("openapi.loaded", { provider: provider.name, baseUrl, tools: operations.map((operation) => operation.name) });
      return {
        tools: operations.map((operation) => ({ kind: "engine" as const, origin: operation.operationId, resolved: resolveOperation(provider, baseUrl, operation) })),
        instructions: provider.instructions,
      };
    },
  };
}

function resolveOperation(provider: OpenApiProviderConfig, baseUrl: string, operation: OpenApiOperation): ResolvedTool {
  const cache = provider.cache && (operation.readOnly || provider.cache.allowSideEffects) ? provider.cache : undefined;
  return {
    name: operation.name,
    provider: provider.name,
    description: operation.description,
    inputSchema: operation.inputSchema,
    // A provider whose operations act as the person who asks shows its calls by default: their card is where the person connects.
    display: { name: operation.name, visible: provider.visible, defaultVisible: provider.auth?.owner === "person", display: provider.display },
    policy: { queue: provider.queue, cache },
    async run(context: PendingCallContext & SettingsAccess, call) {
      const send = {
        timeoutMs: provider.timeout ?? context.config.limits.toolTimeout,
        maxResponseBytes: provider.maxResponseBytes ?? context.config.limits.toolOutputMaxBytes ?? context.config.limits.toolResponseMaxBytes,
        signal: call.abortSignal,
        extraHeaders: { "idempotency-key": call.toolCallId, [hopHeader]: String(context.hop + 1), ...traceHeader(call.span) },
      };
      // Acting as a person: their token, or a wait for them to connect the account.
      if (actsAsPersonOpenApi(provider)) return runOpenApiAsPerson(context, { provider, baseUrl, operation }, call, send);
      const answer = await runOpenApiOperation(operation, { baseUrl, args: call.args, headers: provider.headers, env: context.env, ...send });
      return answer.ok ? succeeded(answer.value) : failed(answer.error, answer.kind);
    },
  };
}
