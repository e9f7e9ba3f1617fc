/**
 * Incremental scopes: a server that needs more than a token grants answers
 * `403` with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="…"` (RFC 6750). The gateway then asks again for the scopes it holds
 * together with the ones the challenge names, never for the challenge's
 * alone, so nothing granted before is lost (the MCP authorization spec's
 * step-up flow).
 */
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { scopeList, unionScopes } from "./oauth-scopes";

export type ScopeChallenge = {
  /** What the challenge names, as it names it. */
  challenged: string[];
  /** Those not held yet: none means the server did not say which scopes it needs, or asks for ones already held. */
  missing: string[];
  /** What to ask for in the new authorization: those held, then those missing. */
  request: string[];
};

/** The scopes to add when `response` is an `insufficient_scope` challenge; undefined for any other answer. */
export function insufficientScope(response: Pick<Response, "status" | "headers">, heldScopes: readonly string[]): ScopeChallenge | undefined {
  if (response.status !== 403) return undefined;
  const params = extractWWWAuthenticateParams(new Response(null, { status: 403, headers: response.headers }));
  if (params.error !== "insufficient_scope") return undefined;
  const challenged = scopeList(params.scope);
  const missing = challenged.filter((scope) => !heldScopes.includes(scope));
  return { challenged, missing, request: unionScopes(heldScopes, missing) };
}
