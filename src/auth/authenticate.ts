/**
 * Who is calling (docs/api.md, "Auth details"): `x-secret-key` for the server,
 * or `x-public-key` plus a bearer JWT (HS256, `sub` = entity id, `exp`
 * enforced) for one entity. Stream routes also take `?publicKey=…&token=…`
 * because browsers cannot set headers on WebSockets. Missing or invalid
 * credentials are a 401.
 */
import { verify } from "hono/jwt";
import type { AppEnv } from "../env";
import { unauthorized } from "../errors";
import { constantTimeEqual } from "./constant-time-equal";
import type { Principal } from "./principal";

export type Credentials = {
  secretKey?: string;
  publicKey?: string;
  token?: string;
};

export function readCredentials(request: Request, options: { allowQuery: boolean }): Credentials {
  const headers = request.headers;
  const credentials: Credentials = {
    secretKey: headers.get("x-secret-key") ?? undefined,
    publicKey: headers.get("x-public-key") ?? undefined,
    token: parseBearer(headers.get("authorization")),
  };
  if (options.allowQuery) {
    const query = new URL(request.url).searchParams;
    credentials.publicKey ??= query.get("publicKey") ?? undefined;
    credentials.token ??= query.get("token") ?? undefined;
  }
  return credentials;
}

function parseBearer(header: string | null): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : "";
}

export async function authenticate(env: AppEnv, credentials: Credentials): Promise<Principal> {
  if (credentials.secretKey !== undefined) {
    if (await constantTimeEqual(credentials.secretKey, env.GATEWAY_SECRET_KEY)) return { kind: "secret" };
    throw unauthorized("Invalid secret key");
  }
  if (credentials.publicKey === undefined) {
    throw unauthorized("Missing credentials: send x-secret-key, or x-public-key with Authorization: Bearer <JWT>");
  }
  if (!(await constantTimeEqual(credentials.publicKey, env.GATEWAY_PUBLIC_KEY))) throw unauthorized("Invalid public key");
  if (!credentials.token) throw unauthorized("The public key must come with Authorization: Bearer <JWT>");
  let payload: Record<string, unknown>;
  try {
    payload = await verify(credentials.token, env.JWT_SECRET, "HS256");
  } catch (error) {
    throw unauthorized(`Invalid token: ${(error as Error).message}`);
  }
  if (typeof payload.sub !== "string" || payload.sub.length === 0) throw unauthorized("The token has no subject (sub)");
  // `exp` is enforced: a token must say when it stops being valid.
  if (typeof payload.exp !== "number") throw unauthorized("The token has no expiry (exp)");
  return { kind: "entity", entityId: payload.sub, expiresAt: payload.exp * 1000 };
}
