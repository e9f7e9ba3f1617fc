/**
 * Authentication for all of `/api`, and the membership check of routes of one
 * space. Who may call a route is declared with the route (`route-access.ts`);
 * this middleware reads that declaration: a route that needs no gateway
 * credentials (anyone, callback URLs) is not asked for any, a route that
 * takes `?publicKey=&token=` reads them there too, and every other request
 * must carry valid credentials. Missing/invalid credentials → 401; valid but
 * not allowed → 403 (the route's declaration, a space's membership, and any
 * token whose subject is an agent).
 */
import type { MiddlewareHandler } from "hono";
import { authenticate, readCredentials } from "../auth/authenticate";
import { getDatabase } from "../db/client";
import { isMember } from "../db/spaces";
import type { AppEnv } from "../env";
import { forbidden } from "../errors";
import type { ApiEnv } from "./context";
import { refuseAgentSubject } from "./refuse-agent-subject";
import { declaredAccess, needsCredentials, type EntityCaller, type SecretCaller } from "./route-access";

export const authentication: MiddlewareHandler<ApiEnv> = async (c, next) => {
  // A path no route declares is asked for credentials like any other (401 before 404).
  const declaration = declaredAccess(c);
  if (declaration && !needsCredentials(declaration.audience)) {
    c.set("principal", { kind: "anonymous" });
    return next();
  }
  const credentials = readCredentials(c.req.raw, { allowQuery: declaration?.queryCredentials ?? false });
  const principal = await authenticate(c.env, credentials);
  if (principal.kind === "entity") await refuseAgentSubject(getDatabase(c.env.DB), principal.entityId);
  c.set("principal", principal);
  return next();
};

/** For a route of one space (declared `secret-or-member`): the secret key, or a JWT entity that is a member of the space. */
export async function requireSpaceAccess(env: AppEnv, caller: SecretCaller | EntityCaller, spaceId: string): Promise<void> {
  if (caller.kind === "secret") return;
  if (!(await isMember(getDatabase(env.DB), spaceId, caller.entityId))) {
    throw forbidden(`Entity "${caller.entityId}" is not a member of space "${spaceId}"`);
  }
}
