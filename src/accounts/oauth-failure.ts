/**
 * How every step of the gateway's OAuth client fails: as data, with a code a
 * route or a card can act on and a message a person can read. Messages never
 * carry a token, a code, a verifier or a secret, and text that comes from an
 * authorization server is cut short and stripped of control characters
 * before it is kept (`fromServer`).
 */

export type OAuthFailureCode =
  /** The server's or the authorization server's metadata could not be found, read or trusted. */
  | "discovery_failed"
  /** The authorization server does not say it supports PKCE with S256. */
  | "pkce_unsupported"
  /** No way for the gateway to be known to the authorization server, or registering failed. */
  | "registration_failed"
  /** The callback's `state` is missing, repeated or not the flow's. */
  | "state_mismatch"
  /** The callback's `iss` is not the authorization server's issuer, or is missing where it must be sent. */
  | "issuer_mismatch"
  /** The person (or the authorization server on their behalf) said no. */
  | "authorization_denied"
  /** The authorization server answered the callback with another error. */
  | "authorization_error"
  /** The callback carries neither a code nor an error. */
  | "missing_code"
  /** The token endpoint refused the request or could not be reached. */
  | "token_request_failed"
  /** The grant behind a refresh token is gone (revoked, expired): the person must connect again. */
  | "grant_revoked"
  /** The tokens cannot be refreshed: the authorization server gave no refresh token. */
  | "no_refresh_token"
  /** The flow could not start (the configuration or the authorization server's metadata does not allow it). */
  | "flow_refused";

export type OAuthFailure = { code: OAuthFailureCode; message: string };

export type OAuthResult<T> = { ok: true; value: T } | { ok: false; error: OAuthFailure };

export function failure(code: OAuthFailureCode, message: string): { ok: false; error: OAuthFailure } {
  return { ok: false, error: { code, message } };
}

const maxServerTextLength = 300;

/**
 * Text an authorization server (or a server in front of it) wrote, made safe
 * to show: control characters removed, a raw body the MCP SDK quotes in its
 * errors dropped (an error page may echo the request, secrets included), and
 * cut to a few hundred characters.
 */
export function fromServer(text: string): string {
  const withoutBody = text.split(/Raw body:/i)[0].trim();
  const clean = withoutBody.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return clean.length > maxServerTextLength ? `${clean.slice(0, maxServerTextLength)}…` : clean;
}

/** An error's message, safe to keep (`fromServer`). */
export function errorText(error: unknown): string {
  return fromServer(error instanceof Error ? error.message : String(error));
}
