/**
 * Tokens from a token endpoint's answer, and their refresh. A refresh keeps
 * the refresh token the server rotated to, or the one it had when the server
 * did not rotate it; scopes the answer does not restate are the ones already
 * held (RFC 6749: an absent `scope` means unchanged). Only bearer tokens are
 * taken: the gateway sends nothing else. The tokens are a `TokenSet`, the
 * shape they are sealed in (`token-cipher.ts`).
 */
import { fetchToken, refreshAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { InvalidGrantError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { type AuthorizationServer, sdkMetadataOf } from "./oauth-discovery";
import { errorText, failure, fromServer, type OAuthResult } from "./oauth-failure";
import type { OAuthHttp } from "./oauth-fetch";
import { clientInformationOf, type OAuthRegistration } from "./oauth-registration";
import { scopeList } from "./oauth-scopes";
import { TokenSet } from "./token-cipher";

export type TokenAnswerContext = {
  /** The scopes asked for, or held before a refresh: what an answer without `scope` grants. */
  scopes: string[];
  /** The refresh token held before a refresh: kept when the answer has none. */
  previousRefreshToken?: string;
  now: number;
};

/** A token endpoint's answer as the gateway keeps it, or why it cannot be used. */
export function tokenSetOf(answer: OAuthTokens, context: TokenAnswerContext): OAuthResult<TokenSet> {
  if (answer.token_type.toLowerCase() !== "bearer") {
    return failure("token_request_failed", `The token endpoint issued a "${fromServer(answer.token_type)}" token; the gateway sends only bearer tokens`);
  }
  const expiresIn = answer.expires_in;
  const tokens = TokenSet.safeParse({
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? context.previousRefreshToken,
    expiresAt: expiresIn === undefined || !Number.isFinite(expiresIn) || expiresIn <= 0 ? undefined : new Date(context.now + expiresIn * 1000).toISOString(),
    scopes: answer.scope === undefined ? context.scopes : scopeList(answer.scope),
    tokenType: answer.token_type,
  });
  if (!tokens.success) {
    // Field names only: the values are secrets.
    const fields = tokens.error.issues.map((issue) => issue.path.join(".") || "the answer").join(", ");
    return failure("token_request_failed", `The token endpoint's answer cannot be kept (${fields})`);
  }
  return { ok: true, value: tokens.data };
}

export type RefreshTokensInput = {
  tokens: TokenSet;
  server: AuthorizationServer;
  registration: OAuthRegistration;
  /** The resource indicator the tokens were asked for (RFC 8707), asked for again. */
  resource?: string;
  http: OAuthHttp;
  env: Record<string, unknown>;
  now?: number;
};

/**
 * New tokens for `tokens`, from their refresh token. `grant_revoked` when the
 * server no longer honours the grant (the person must connect again). Never
 * throws.
 */
export async function refreshTokens(input: RefreshTokensInput): Promise<OAuthResult<TokenSet>> {
  const { tokens, server } = input;
  if (tokens.refreshToken === undefined) return failure("no_refresh_token", "These tokens cannot be refreshed: the authorization server gave no refresh token");
  const now = input.now ?? Date.now();
  const client = clientInformationOf(input.registration, input.env, now);
  if (!client.ok) return client;
  let answer: OAuthTokens;
  try {
    answer = await refreshAuthorization(server.issuer ?? server.tokenEndpoint, {
      metadata: sdkMetadataOf(server),
      clientInformation: client.value,
      refreshToken: tokens.refreshToken,
      resource: input.resource,
      fetchFn: input.http.fetch,
    });
  } catch (error) {
    if (error instanceof InvalidGrantError) return failure("grant_revoked", `The authorization server no longer honours this grant: ${errorText(error)}`);
    return failure("token_request_failed", `The refresh failed: ${errorText(error)}`);
  }
  return tokenSetOf(answer, { scopes: tokens.scopes, previousRefreshToken: tokens.refreshToken, now });
}

export type ClientCredentialsInput = {
  server: AuthorizationServer;
  /** A client registered with the provider, with its secret (`${env.NAME}`): the client credentials grant authenticates it. */
  registration: Extract<OAuthRegistration, { method: "configured" }>;
  scopes: string[];
  /** The resource indicator (RFC 8707) the token is for, when known. */
  resource?: string;
  http: OAuthHttp;
  env: Record<string, unknown>;
  now?: number;
};

/**
 * A token for the client itself (the client credentials grant, RFC 6749
 * section 4.4): what a tool that acts as its agent uses, with no person to
 * ask. The client authenticates the way the server's metadata says it takes
 * (its secret in a Basic header, or in the form). Never throws.
 */
export async function clientCredentialsTokens(input: ClientCredentialsInput): Promise<OAuthResult<TokenSet>> {
  const { server, scopes } = input;
  const now = input.now ?? Date.now();
  const client = clientInformationOf(input.registration, input.env, now);
  if (!client.ok) return client;
  if (client.value.client_secret === undefined)
    return failure("registration_failed", "The client credentials grant needs the client's secret: give client.clientSecret as ${env.NAME}");
  const issuer = server.issuer ?? server.tokenEndpoint;
  let answer: OAuthTokens;
  try {
    answer = await fetchToken(
      {
        redirectUrl: undefined,
        clientMetadata: { redirect_uris: [], grant_types: ["client_credentials"], ...(scopes.length > 0 && { scope: scopes.join(" ") }) },
        clientInformation: () => client.value,
        tokens: () => undefined,
        saveTokens: () => undefined,
        redirectToAuthorization: () => undefined,
        saveCodeVerifier: () => undefined,
        codeVerifier: () => "",
        prepareTokenRequest: (scope) => new URLSearchParams({ grant_type: "client_credentials", ...(scope && { scope }) }),
      },
      issuer,
      { metadata: sdkMetadataOf(server), resource: input.resource, fetchFn: input.http.fetch },
    );
  } catch (error) {
    return failure("token_request_failed", `The client credentials grant failed: ${errorText(error)}`);
  }
  // A refresh token is not used (RFC 6749 says the grant issues none): a new grant is asked for when the token ends.
  const tokens = tokenSetOf({ ...answer, refresh_token: undefined }, { scopes, now });
  return tokens;
}
