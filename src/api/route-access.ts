/**
 * Who may call a route, declared with the route: `...routeAccess("secret")`
 * inside `createRoute({…})` gives the operation its OpenAPI `security` (and
 * `x-audience`) and the middleware that admits exactly those callers, so the
 * document and the check are one declaration. The handler reads the admitted
 * caller, typed by the audience, as `c.get("caller")`.
 *
 * - `anyone`: no credentials (`GET /health`).
 * - `callback-token`: the signed token in the path is the credential
 *   (callback URLs); gateway keys are not looked at.
 * - `secret`: the secret key; a JWT is refused (403).
 * - `secret-or-member`: the secret key, or the JWT of a person or service.
 *   A route of one space checks membership from its path in the handler
 *   (`requireSpaceAccess`).
 * - `member`: a JWT only; the secret key acts as no entity (403). A
 *   person-only route with an operator's twin names it in `secretKeyHint`.
 *
 * `queryCredentials` lets a JWT audience also take `?publicKey=&token=`
 * (streams and file links: browsers cannot set headers on WebSockets or
 * images). Turning credentials into a caller (401 when they are missing or
 * wrong) is one middleware for all of `/api` (`authorize.ts`); it reads the
 * matched route's declaration to know whether credentials are needed and
 * whether the query may carry them.
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Principal } from "../auth/principal";
import type { AppEnv } from "../env";
import { ApiError, forbidden, unauthorized } from "../errors";
import { verifyCallbackToken } from "../security/callback-token";
import type { ApiEnv } from "./context";

export type Audience = "anyone" | "callback-token" | "secret" | "secret-or-member" | "member";

export type SecretCaller = Extract<Principal, { kind: "secret" }>;
export type EntityCaller = Extract<Principal, { kind: "entity" }>;
/** The holder of a callback URL: it may answer the one call its token names. */
export type CallbackCaller = { kind: "callback"; callId: string };

export type RouteDeclaration = { audience: Audience; queryCredentials: boolean };

/** The security schemes the document lists; the routes' requirements name them. */
export const securitySchemes = {
  secretKey: { type: "apiKey", in: "header", name: "x-secret-key", description: "The gateway's secret key: servers, full access" },
  publicKey: { type: "apiKey", in: "header", name: "x-public-key", description: "The gateway's public key, with a bearer JWT" },
  bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "HS256, `sub` = the entity acting, `exp` enforced" },
  publicKeyQuery: { type: "apiKey", in: "query", name: "publicKey", description: "The public key in the query (streams and file links, for browsers)" },
  tokenQuery: { type: "apiKey", in: "query", name: "token", description: "The JWT in the query (streams and file links, for browsers)" },
} as const;

type Requirement = Partial<Record<keyof typeof securitySchemes, string[]>>;

const secretKey: Requirement = { secretKey: [] };
const memberHeaders: Requirement = { publicKey: [], bearer: [] };
const memberQuery: Requirement = { publicKeyQuery: [], tokenQuery: [] };

function securityOf({ audience, queryCredentials }: RouteDeclaration): Requirement[] {
  const members = queryCredentials ? [memberHeaders, memberQuery] : [memberHeaders];
  switch (audience) {
    case "anyone":
    case "callback-token":
      return [];
    case "secret":
      return [secretKey];
    case "secret-or-member":
      return [secretKey, ...members];
    case "member":
      return members;
  }
}

/** Whether the gateway's credentials are what admits a caller (not so for `anyone` and callback URLs). */
export const needsCredentials = (audience: Audience) => audience !== "anyone" && audience !== "callback-token";

type AccessEnv<Caller> = { Bindings: AppEnv; Variables: ApiEnv["Variables"] & { caller: Caller } };

export type RouteAccess<Caller> = {
  security: Requirement[];
  "x-audience": Audience;
  middleware: MiddlewareHandler<AccessEnv<Caller>>;
};

type Admit<Caller> = (principal: Principal, c: Context<AccessEnv<Caller>>) => Caller | Promise<Caller>;

const declarations = new WeakMap<object, RouteDeclaration>();

function declare<Caller>(declaration: RouteDeclaration, admit: Admit<Caller>): RouteAccess<Caller> {
  const middleware: MiddlewareHandler<AccessEnv<Caller>> = async (c, next) => {
    c.set("caller", await admit(c.get("principal"), c));
    await next();
  };
  declarations.set(middleware, declaration);
  return { security: securityOf(declaration), "x-audience": declaration.audience, middleware };
}

/** Callers who came without gateway credentials on a route that needs them; `authentication` answers 401 first, so this only fails closed. */
const noCredentials = () => unauthorized("Missing credentials: send x-secret-key, or x-public-key with Authorization: Bearer <JWT>");

const admitSecret: Admit<SecretCaller> = (principal) => {
  if (principal.kind === "secret") return principal;
  if (principal.kind === "anonymous") throw noCredentials();
  throw forbidden("This route needs the secret key");
};

const memberOnly = "This route needs a member JWT (x-public-key + Authorization: Bearer); the secret key acts as no entity";

/** `secretKeyHint` tells a secret-key caller where its own route is (`/api/me/connections` → `/api/connections`). */
const admitMember =
  (secretKeyHint: string | undefined): Admit<EntityCaller> =>
  (principal) => {
    if (principal.kind === "entity") return principal;
    if (principal.kind === "anonymous") throw noCredentials();
    throw forbidden(secretKeyHint === undefined ? memberOnly : `${memberOnly}: ${secretKeyHint}`);
  };

const admitSecretOrMember: Admit<SecretCaller | EntityCaller> = (principal) => {
  if (principal.kind === "anonymous") throw noCredentials();
  return principal;
};

const admitCallback: Admit<CallbackCaller> = async (_principal, c) => {
  const verified = await verifyCallbackToken(c.env.WEBHOOK_SECRET, c.req.param("token") ?? "");
  if (!verified.ok && verified.reason === "expired") throw new ApiError(410, "callback_expired", "This callback URL has expired");
  if (!verified.ok) throw unauthorized("Not a valid callback URL");
  return { kind: "callback", callId: verified.callId };
};

type QueryOption = { queryCredentials?: boolean };
type MemberOptions = QueryOption & { secretKeyHint?: string };

/** `anyone`: no caller is admitted, since none is asked for (`/health` is outside `/api`, where credentials are read). */
export function routeAccess(audience: "anyone"): RouteAccess<undefined>;
export function routeAccess(audience: "callback-token"): RouteAccess<CallbackCaller>;
export function routeAccess(audience: "secret"): RouteAccess<SecretCaller>;
export function routeAccess(audience: "secret-or-member", options?: QueryOption): RouteAccess<SecretCaller | EntityCaller>;
export function routeAccess(audience: "member", options?: MemberOptions): RouteAccess<EntityCaller>;
export function routeAccess(audience: Audience, options: MemberOptions = {}) {
  const declaration: RouteDeclaration = { audience, queryCredentials: options.queryCredentials === true };
  switch (audience) {
    case "anyone":
      return declare(declaration, () => undefined);
    case "callback-token":
      return declare(declaration, admitCallback);
    case "secret":
      return declare(declaration, admitSecret);
    case "secret-or-member":
      return declare(declaration, admitSecretOrMember);
    case "member":
      return declare(declaration, admitMember(options.secretKeyHint));
  }
}

/**
 * The declaration of the route this request is routed to, if any: the first
 * matched route that declared its access (an earlier route that matches
 * answers, as `/api/webhooks/dead-letters` does before `/api/webhooks/{webhookId}`).
 */
export function declaredAccess(c: Context): RouteDeclaration | undefined {
  for (const route of matchedRoutes(c)) {
    const declaration = declarations.get(route.handler);
    if (declaration) return declaration;
  }
  return undefined;
}
