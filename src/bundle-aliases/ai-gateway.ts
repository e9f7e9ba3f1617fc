/**
 * What `@ai-sdk/gateway` is in the Worker bundle (`[alias]` in wrangler.toml;
 * the same in vitest.config.ts). `ai` imports Vercel's AI Gateway provider as
 * the default for models named by a string id; the gateway always passes a
 * provider's model object (models/create-model.ts, create-image-model.ts), so
 * the provider is never used here. `ai` also asks every model error whether
 * it is a gateway error: these classes answer exactly as the real ones do
 * (by the same `Symbol.for` markers), which for errors the gateway's own
 * providers raise is always no.
 */
const gatewayMarker = Symbol.for("vercel.ai.gateway.error");
const authenticationMarker = Symbol.for("vercel.ai.gateway.error.GatewayAuthenticationError");

function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === "object" && error !== null && marker in error && (error as Record<symbol, unknown>)[marker] === true;
}

export class GatewayError extends Error {
  static isInstance(error: unknown): boolean {
    return hasMarker(error, gatewayMarker);
  }
}

export class GatewayAuthenticationError extends GatewayError {
  static override isInstance(error: unknown): boolean {
    return hasMarker(error, gatewayMarker) && hasMarker(error, authenticationMarker);
  }
}

function unavailable(): never {
  throw new Error("A model named by a string id needs the AI Gateway provider, which is not bundled: give `ai` a provider's model object (models/create-model.ts)");
}

export const createGateway = unavailable;

/** The default provider `ai` falls back to for string ids: every kind of model refuses. */
export const gateway = new Proxy(unavailable, { get: (target, property) => (property === "then" ? undefined : unavailable) });
