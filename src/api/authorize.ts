/**
 * Authentication middleware and the authorization checks routes use.
 * Missing/invalid credentials → 401 (in `authenticate`); valid but not
 * allowed → 403, including any token whose subject is an agent.
 */
import type { MiddlewareHandler } from "hono";
import { authenticate, readCredentials } from "../auth/authenticate";
import type { Principal } from "../auth/principal";
import { getDatabase } from "../db/client";
import { isMember } from "../db/spaces";
import { forbidden } from "../errors";
import type { ApiContext, ApiEnv } from "./context";
import { refuseAgentSubject } from "./refuse-agent-subject";
import { callbackPath } from "../security/callback-token";

/** Stream routes and file links also accept `?publicKey=&token=` (browsers cannot set headers on WebSockets or images). */
const streamPath = /\/stream$|^\/api\/files\/download$/;

export const authentication: MiddlewareHandler<ApiEnv> = async (c, next) => {
  // A callback URL carries its own credential (a signed token naming one call).
  if (c.req.path.startsWith(callbackPath)) {
    c.set("principal", { kind: "callback" });
    return next();
  }
  const credentials = readCredentials(c.req.raw, { allowQuery: streamPath.test(c.req.path) });
  const principal = await authenticate(c.env, credentials);
  if (principal.kind === "entity") await refuseAgentSubject(getDatabase(c.env.DB), principal.entityId);
  c.set("principal", principal);
  return next();
};

export function requireSecret(c: ApiContext): void {
  if (c.get("principal").kind !== "secret") throw forbidden("This route needs the secret key");
}

/** The secret key, or a JWT entity that is a member of the space. */
export async function requireSpaceAccess(c: ApiContext, spaceId: string): Promise<Exclude<Principal, { kind: "callback" }>> {
  const principal = c.get("principal");
  if (principal.kind === "secret") return principal;
  if (principal.kind === "callback") throw forbidden("A callback URL only answers its own call");
  if (!(await isMember(getDatabase(c.env.DB), spaceId, principal.entityId))) {
    throw forbidden(`Entity "${principal.entityId}" is not a member of space "${spaceId}"`);
  }
  return principal;
}
