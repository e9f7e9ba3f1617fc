/**
 * Who is calling an MCP endpoint: the same credentials as the rest of the
 * API (`x-secret-key`, or `x-public-key` with `Authorization: Bearer <JWT>`),
 * checked by the same `authenticate`. Many MCP clients can send only an
 * `Authorization` header, so there the bearer alone is enough: the secret
 * key itself, or a person's JWT (the public key adds nothing a JWT does not
 * already prove; it is public). A token whose subject is an agent is refused
 * as on every route. Missing or invalid credentials answer 401 with
 * `WWW-Authenticate: Bearer` and the error envelope.
 */
import type { MiddlewareHandler } from "hono";
import { authenticate, type Credentials, readCredentials } from "../auth/authenticate";
import { constantTimeEqual } from "../auth/constant-time-equal";
import type { ApiEnv } from "../api/context";
import { refuseAgentSubject } from "../api/refuse-agent-subject";
import { getDatabase } from "../db/client";
import type { AppEnv } from "../env";
import { ApiError, errorEnvelope } from "../errors";

/** The challenge a 401 carries: a bearer credential, for this gateway. */
export const bearerChallenge = 'Bearer realm="switchboard"';

async function mcpCredentials(request: Request, env: AppEnv): Promise<Credentials> {
  const credentials = readCredentials(request, { allowQuery: false });
  if (credentials.secretKey !== undefined || credentials.publicKey !== undefined || !credentials.token) return credentials;
  // The bearer alone: the secret key, else a JWT checked exactly as with the public key beside it.
  if (await constantTimeEqual(credentials.token, env.GATEWAY_SECRET_KEY)) return { secretKey: credentials.token };
  return { publicKey: env.GATEWAY_PUBLIC_KEY, token: credentials.token };
}

export const mcpAuthentication: MiddlewareHandler<ApiEnv> = async (c, next) => {
  try {
    const principal = await authenticate(c.env, await mcpCredentials(c.req.raw, c.env));
    if (principal.kind === "entity") await refuseAgentSubject(getDatabase(c.env.DB), principal.entityId);
    c.set("principal", principal);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      return c.json(errorEnvelope(error.code, error.message), 401, { "WWW-Authenticate": bearerChallenge });
    }
    throw error;
  }
  return next();
};
