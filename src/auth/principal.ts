/** Who is calling: the server (secret key), one entity (public key + JWT), or someone without credentials where a route needs none. */
export type Principal =
  | { kind: "secret" }
  /** No gateway credentials: a route anyone may call, or a callback URL (its token is the route's credential). */
  | { kind: "anonymous" }
  /** `expiresAt`: the token's `exp` in ms; a stream opened with it closes then. */
  | { kind: "entity"; entityId: string; expiresAt: number };
