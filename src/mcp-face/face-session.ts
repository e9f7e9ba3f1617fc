/**
 * The face's session id (`Mcp-Session-Id`): given with the answer to
 * `initialize`, sent back by the client on every later request. Each request
 * is still answered by a server built for it; the id is how a later request
 * knows what the client said it can do when it initialized (whether it takes
 * elicitation requests, in which modes). It is a signed handle
 * (`signed-handle.ts`) bound to the caller and the endpoint: another
 * caller's id, another endpoint's, a changed or expired one is a 404, as the
 * protocol says of a session the server does not know, and the client
 * initializes again. A request without one is served as before, with no
 * elicitation.
 */
import { z } from "zod";
import type { AppEnv } from "../env";
import type { EntityCaller, SecretCaller } from "../api/route-access";
import type { Face } from "./face-context";
import { readHandle, signHandle } from "./signed-handle";

const purpose = "switchboard mcp face sessions v1";
/** A session lives this long; after it the client initializes again. */
export const sessionLifetimeMs = 30 * 24 * 3600 * 1000;

/** What the client said at `initialize` it can take from the server. */
export type ClientAbilities = { elicitation: { form: boolean; url: boolean } };

export const noAbilities: ClientAbilities = { elicitation: { form: false, url: false } };

export const callerKey = (caller: SecretCaller | EntityCaller): string => (caller.kind === "secret" ? "secret" : caller.entityId);
export const faceKey = (face: Face): string => (face.kind === "space" ? `space:${face.spaceId}` : `agent:${face.agentId}`);

const InitializeParams = z.object({ capabilities: z.looseObject({ elicitation: z.looseObject({ form: z.unknown(), url: z.unknown() }).partial().optional() }) });

/** The abilities an `initialize` request's capabilities declare (an empty `elicitation` object means form, as the protocol says). */
export function abilitiesOf(params: unknown): ClientAbilities {
  const parsed = InitializeParams.safeParse(params);
  const elicitation = parsed.success ? parsed.data.capabilities.elicitation : undefined;
  if (!elicitation) return noAbilities;
  const empty = elicitation.form === undefined && elicitation.url === undefined;
  return { elicitation: { form: empty || elicitation.form !== undefined, url: elicitation.url !== undefined } };
}

export function newSession(env: AppEnv, caller: SecretCaller | EntityCaller, face: Face, abilities: ClientAbilities): Promise<string> {
  const claims = { n: crypto.randomUUID(), w: callerKey(caller), f: faceKey(face), ef: abilities.elicitation.form, eu: abilities.elicitation.url };
  return signHandle(env.WEBHOOK_SECRET, purpose, claims, Date.now() + sessionLifetimeMs);
}

/** The abilities a session id carries; `undefined` when the id is not one this caller got from this endpoint. */
export async function readSession(env: AppEnv, caller: SecretCaller | EntityCaller, face: Face, sessionId: string): Promise<ClientAbilities | undefined> {
  const claims = await readHandle(env.WEBHOOK_SECRET, purpose, sessionId);
  if (!claims || claims.w !== callerKey(caller) || claims.f !== faceKey(face)) return undefined;
  return { elicitation: { form: claims.ef === true, url: claims.eu === true } };
}
