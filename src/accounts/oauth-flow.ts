/**
 * One authorization code flow, from the URL a person opens to the tokens.
 *
 * `beginFlow` makes the authorization URL (the MCP SDK's `startAuthorization`:
 * the code flow, PKCE with S256 always, the `resource` indicator when known,
 * the scopes) with a `state` of 32 random bytes, and returns everything the
 * callback will need as one `OAuthFlow`, to be kept durably until then.
 *
 * `finishFlow` checks the callback in the order the MCP authorization spec
 * requires before anything is acted on: `state` (compared in constant time,
 * present once), then `iss` (RFC 9207: equal, as a plain string, to the
 * issuer the flow recorded whenever it is present; required when the server
 * says it sends it), and only then an `error` or the `code`, which is
 * exchanged with the PKCE verifier. A flow is used once: whoever keeps flows
 * deletes one when its callback arrives, so a replayed `state` finds nothing.
 */
import { exchangeAuthorization, startAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { z } from "zod";
import { bytesToBase64Url } from "../base64";
import { AuthorizationServer, sdkMetadataOf } from "./oauth-discovery";
import { errorText, failure, fromServer, type OAuthResult } from "./oauth-failure";
import type { OAuthHttp } from "./oauth-fetch";
import { clientInformationOf, OAuthRegistration } from "./oauth-registration";
import { tokenSetOf } from "./oauth-tokens";
import type { TokenSet } from "./token-cipher";

/** A flow between its authorization URL and its callback: secret (the verifier), kept durably, used once. */
export const OAuthFlow = z.object({
  state: z.string().min(1),
  codeVerifier: z.string().min(1),
  redirectUri: z.string(),
  scopes: z.array(z.string()),
  resource: z.string().optional(),
  server: AuthorizationServer,
  registration: OAuthRegistration,
});
export type OAuthFlow = z.infer<typeof OAuthFlow>;

export type BeginFlowInput = {
  server: AuthorizationServer;
  registration: OAuthRegistration;
  /** The gateway's callback (`gatewayOAuthUrls`). */
  redirectUri: string;
  scopes: string[];
  /** The resource indicator (RFC 8707): the MCP server's, always, for MCP servers. */
  resource?: string;
};

export type BeganFlow = { authorizationUrl: string; flow: OAuthFlow };

/** The URL to send the person to, and the flow to keep until the callback. Never throws. */
export async function beginFlow(input: BeginFlowInput): Promise<OAuthResult<BeganFlow>> {
  const state = newState();
  try {
    const { authorizationUrl, codeVerifier } = await startAuthorization(input.server.issuer ?? input.server.authorizationEndpoint, {
      metadata: sdkMetadataOf(input.server),
      clientInformation: { client_id: input.registration.clientId },
      redirectUrl: input.redirectUri,
      scope: input.scopes.length > 0 ? input.scopes.join(" ") : undefined,
      state,
      resource: input.resource,
    });
    return {
      ok: true,
      value: {
        authorizationUrl: authorizationUrl.href,
        flow: { state, codeVerifier, redirectUri: input.redirectUri, scopes: input.scopes, resource: input.resource, server: input.server, registration: input.registration },
      },
    };
  } catch (error) {
    return failure("flow_refused", `The authorization could not start: ${errorText(error)}`);
  }
}

/** 32 random bytes, base64url: a `state` nobody can guess. */
export function newState(): string {
  return bytesToBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

export type FinishFlowOptions = { http: OAuthHttp; env: Record<string, unknown>; now?: number };

/** The callback's parameters checked against `flow`, then its code exchanged for tokens. Never throws. */
export async function finishFlow(params: URLSearchParams, flow: OAuthFlow, options: FinishFlowOptions): Promise<OAuthResult<TokenSet>> {
  const checked = await checkCallback(params, flow);
  if (!checked.ok) return checked;
  const now = options.now ?? Date.now();
  const client = clientInformationOf(flow.registration, options.env, now);
  if (!client.ok) return client;
  let answer: OAuthTokens;
  try {
    answer = await exchangeAuthorization(flow.server.issuer ?? flow.server.tokenEndpoint, {
      metadata: sdkMetadataOf(flow.server),
      clientInformation: client.value,
      authorizationCode: checked.value.code,
      codeVerifier: flow.codeVerifier,
      redirectUri: flow.redirectUri,
      resource: flow.resource,
      fetchFn: options.http.fetch,
    });
  } catch (error) {
    return failure("token_request_failed", `The code could not be exchanged for tokens: ${errorText(error)}`);
  }
  return tokenSetOf(answer, { scopes: flow.scopes, now });
}

/**
 * The callback's checks, without a request: `state`, then `iss`, then
 * `error`, then `code`. An `error` is not acted on before `iss` has been
 * checked (a mixed-up server's error is not shown either).
 */
export async function checkCallback(params: URLSearchParams, flow: OAuthFlow): Promise<OAuthResult<{ code: string }>> {
  const states = params.getAll("state");
  if (states.length !== 1 || !(await sameSecret(states[0], flow.state))) {
    return failure("state_mismatch", states.length === 0 ? "The callback carries no state" : "The callback's state is not this flow's");
  }
  const issuers = params.getAll("iss");
  if (issuers.length > 1) return failure("issuer_mismatch", "The callback names more than one issuer");
  const issuer = issuers[0];
  if (issuer !== undefined) {
    if (flow.server.issuer === undefined) {
      return failure("issuer_mismatch", "The authorization server named its issuer, but none is configured to check it against: add the issuer to the configuration");
    }
    // RFC 9207 and the MCP spec: a simple string comparison, no normalisation of any kind.
    if (issuer !== flow.server.issuer) return failure("issuer_mismatch", `The callback comes from another issuer than ${fromServer(flow.server.issuer)}`);
  } else if (flow.server.issParameterSupported) {
    return failure("issuer_mismatch", `${fromServer(flow.server.issuer ?? "The authorization server")} says it names itself in every response, and this callback does not`);
  }
  const error = params.get("error");
  if (error !== null) {
    const description = params.get("error_description");
    const detail = description === null ? "" : `: ${fromServer(description)}`;
    if (error === "access_denied") return failure("authorization_denied", `The authorization was refused${detail}`);
    return failure("authorization_error", `The authorization server answered "${fromServer(error)}"${detail}`);
  }
  const codes = params.getAll("code");
  if (codes.length !== 1 || codes[0] === "") return failure("missing_code", codes.length > 1 ? "The callback carries more than one code" : "The callback carries no code");
  return { ok: true, value: { code: codes[0] } };
}

const encoder = new TextEncoder();

/**
 * Two secrets compared in constant time, both hashed first so the length of
 * neither shows. Written with the standard Web Crypto API alone, not the
 * Workers-only `timingSafeEqual` of `auth/constant-time-equal.ts`: the node
 * tests run this module against a real authorization server.
 */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([crypto.subtle.digest("SHA-256", encoder.encode(given)), crypto.subtle.digest("SHA-256", encoder.encode(expected))]);
  const left = new Uint8Array(a);
  const right = new Uint8Array(b);
  let difference = 0;
  for (let index = 0; index < left.length; index += 1) difference |= left[index] ^ right[index];
  return difference === 0 && expected !== "";
}
