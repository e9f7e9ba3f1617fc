/** Who is calling: the server (secret key), one entity (public key + JWT), or the holder of a callback URL. */
export type Principal =
  | { kind: "secret" }
  /** A callback URL's token: it may answer the one call it names, and nothing else. */
  | { kind: "callback" }
  /** `expiresAt`: the token's `exp` in ms; a stream opened with it closes then. */
  | { kind: "entity"; entityId: string; expiresAt: number };
