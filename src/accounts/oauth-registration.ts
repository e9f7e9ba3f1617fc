/**
 * How the gateway is known to an authorization server (its client id), in
 * the order the MCP authorization spec gives:
 *
 * 1. a client id (and secret, as `${env.NAME}`) the configuration gives: an
 *    operator who registered the gateway with a provider meant it to be used;
 * 2. a Client ID Metadata Document: the client id is the URL of a document the
 *    gateway serves (`clientMetadataDocument`), when the server says it takes
 *    them and the gateway's origin is https (the document must be);
 * 3. dynamic registration (RFC 7591), when the server has a registration
 *    endpoint;
 * 4. otherwise a clear failure that says what to configure.
 *
 * Either way the gateway is a public client of the code flow: PKCE, no
 * secret of its own, unless a configured or registered one is given.
 */
import { registerClient } from "@modelcontextprotocol/sdk/client/auth.js";
import { InvalidClientMetadataError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { z } from "zod";
import { describeSecretRefusal, readSecret, secretNameProblem } from "../security/secret-policy";
import { type AuthorizationServer, sdkMetadataOf } from "./oauth-discovery";
import { isLoopbackHost, type OAuthHttp } from "./oauth-fetch";
import { errorText, failure, type OAuthResult } from "./oauth-failure";

/** Where the gateway serves its Client ID Metadata Document, on its own origin. */
export const clientMetadataPath = "/oauth/client-metadata.json";
/** Where authorization servers send people back to, on the gateway's own origin. */
export const oauthCallbackPath = "/oauth/callback";

/** The gateway's name on consent pages. */
const clientName = "Switchboard";

/** The gateway's own OAuth addresses on `gatewayOrigin` (any URL on it will do: only its origin is used). */
export function gatewayOAuthUrls(gatewayOrigin: string): { clientMetadataUrl: string; redirectUri: string } {
  const origin = new URL(gatewayOrigin).origin;
  return { clientMetadataUrl: `${origin}${clientMetadataPath}`, redirectUri: `${origin}${oauthCallbackPath}` };
}

/** The document the gateway serves at its Client ID Metadata Document URL. */
export const ClientMetadataDocument = z.object({
  client_id: z.string(),
  client_name: z.string(),
  client_uri: z.string(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
  token_endpoint_auth_method: z.literal("none"),
});
export type ClientMetadataDocument = z.infer<typeof ClientMetadataDocument>;

/** The gateway's Client ID Metadata Document: its `client_id` is the URL it is served at, exactly. */
export function clientMetadataDocument(gatewayOrigin: string): ClientMetadataDocument {
  const { clientMetadataUrl, redirectUri } = gatewayOAuthUrls(gatewayOrigin);
  return {
    client_id: clientMetadataUrl,
    client_name: clientName,
    client_uri: new URL(gatewayOrigin).origin,
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** `${env.NAME}`, alone: the same secret syntax as configured headers, naming one Worker secret. */
const secretReference = /^\$\{env\.([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** A client the operator registered with the provider: its id, and its secret as `${env.NAME}`. */
export const ConfiguredClient = z
  .object({
    clientId: z.string().min(1).max(1024),
    clientSecret: z
      .string()
      .regex(secretReference, 'Must be a secret reference, "${env.NAME}": a client secret is never written in a configuration')
      .superRefine((value, context) => {
        const name = secretReference.exec(value)?.[1];
        const problem = name === undefined ? undefined : secretNameProblem(name);
        if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
      })
      .optional(),
  })
  .strict();
export type ConfiguredClient = z.infer<typeof ConfiguredClient>;

/** How the gateway is known to one authorization server. Kept (a registration is reused) and read back through this schema. */
export const OAuthRegistration = z.discriminatedUnion("method", [
  z.object({ method: z.literal("configured"), clientId: z.string(), clientSecretName: z.string().optional() }),
  z.object({ method: z.literal("metadata_document"), clientId: z.string() }),
  z.object({
    method: z.literal("dynamic"),
    /** The authorization server that issued it: a registration is never presented to another. */
    issuer: z.string().optional(),
    clientId: z.string(),
    /** The redirect URI it was registered with: a gateway that moved to another origin must register again. */
    redirectUri: z.string(),
    clientSecret: z.string().optional(),
    /** Seconds since the epoch; 0 or absent: never. */
    clientSecretExpiresAt: z.number().optional(),
    tokenEndpointAuthMethod: z.string().optional(),
  }),
]);
export type OAuthRegistration = z.infer<typeof OAuthRegistration>;

export type RegisterGatewayInput = {
  server: AuthorizationServer;
  /** Where the gateway is reachable by people and by the authorization server. */
  gatewayOrigin: string;
  configured?: ConfiguredClient;
  /** The scopes the flow will ask for, sent with a dynamic registration (and left out if the server refuses them there). */
  scopes?: string[];
  http: OAuthHttp;
};

/** Chooses how the gateway is known to `server` and, for dynamic registration, registers. Never throws. */
export async function registerGateway(input: RegisterGatewayInput): Promise<OAuthResult<OAuthRegistration>> {
  const { server, configured } = input;
  if (configured !== undefined) {
    const clientSecretName = configured.clientSecret === undefined ? undefined : secretReference.exec(configured.clientSecret)?.[1];
    return { ok: true, value: { method: "configured", clientId: configured.clientId, clientSecretName } };
  }
  let urls: ReturnType<typeof gatewayOAuthUrls>;
  try {
    urls = gatewayOAuthUrls(input.gatewayOrigin);
  } catch {
    return failure("registration_failed", "The gateway's public origin is not a URL");
  }
  if (server.clientIdMetadataDocumentSupported && urls.clientMetadataUrl.startsWith("https://")) {
    return { ok: true, value: { method: "metadata_document", clientId: urls.clientMetadataUrl } };
  }
  if (server.registrationEndpoint !== undefined) return registerDynamically(input, urls.redirectUri);
  return failure(
    "registration_failed",
    `${server.issuer ?? "The authorization server"} takes neither a Client ID Metadata Document${server.clientIdMetadataDocumentSupported ? " from an https origin" : ""} nor dynamic registration: register the gateway with it (redirect URI ${urls.redirectUri}) and configure its client id`,
  );
}

async function registerDynamically(input: RegisterGatewayInput, redirectUri: string): Promise<OAuthResult<OAuthRegistration>> {
  // OpenID servers judge redirect URIs by the application type (a web client may not use localhost): the MCP spec asks clients to send it.
  const clientMetadata: OAuthClientMetadata & { application_type: "native" | "web" } = {
    client_name: clientName,
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    application_type: isLoopbackHost(new URL(redirectUri).hostname) ? "native" : "web",
  };
  const register = (scope: string | undefined) =>
    registerClient(input.server.issuer ?? input.server.tokenEndpoint, { metadata: sdkMetadataOf(input.server), clientMetadata, scope, fetchFn: input.http.fetch });
  const scope = input.scopes !== undefined && input.scopes.length > 0 ? input.scopes.join(" ") : undefined;
  try {
    let registered: Awaited<ReturnType<typeof register>>;
    try {
      registered = await register(scope);
    } catch (error) {
      // Servers that keep a resource's scopes apart from their own (oidc-provider with resource indicators) refuse
      // them in a registration: register without, the scopes are asked for in each authorization anyway.
      if (!(error instanceof InvalidClientMetadataError) || scope === undefined) throw error;
      registered = await register(undefined);
    }
    return {
      ok: true,
      value: {
        method: "dynamic",
        issuer: input.server.issuer,
        clientId: registered.client_id,
        redirectUri,
        clientSecret: registered.client_secret,
        clientSecretExpiresAt: registered.client_secret_expires_at,
        tokenEndpointAuthMethod: registered.token_endpoint_auth_method,
      },
    };
  } catch (error) {
    return failure("registration_failed", `Dynamic registration with ${input.server.issuer ?? "the authorization server"} failed: ${errorText(error)}`);
  }
}

/**
 * The client information the MCP SDK's token requests take: a configured
 * secret is read from the env here, at use, never kept; an expired
 * registration is refused (register again).
 */
export function clientInformationOf(registration: OAuthRegistration, env: Record<string, unknown>, now = Date.now()): OAuthResult<OAuthClientInformationMixed> {
  switch (registration.method) {
    case "metadata_document":
      return { ok: true, value: { client_id: registration.clientId } };
    case "configured": {
      if (registration.clientSecretName === undefined) return { ok: true, value: { client_id: registration.clientId } };
      const secret = readSecret(env, registration.clientSecretName);
      if (!secret.ok) return failure("registration_failed", `The client secret is ${describeSecretRefusal(registration.clientSecretName, secret.refusal)}`);
      return { ok: true, value: { client_id: registration.clientId, client_secret: secret.value } };
    }
    case "dynamic": {
      const expiresAt = registration.clientSecretExpiresAt ?? 0;
      if (expiresAt !== 0 && expiresAt * 1000 <= now) return failure("registration_failed", "The gateway's dynamic registration has expired: register again");
      return {
        ok: true,
        value: {
          client_id: registration.clientId,
          client_secret: registration.clientSecret,
          redirect_uris: [registration.redirectUri],
          // The SDK authenticates at the token endpoint the way the registration said, when it said.
          token_endpoint_auth_method: registration.tokenEndpointAuthMethod,
        },
      };
    }
  }
}
