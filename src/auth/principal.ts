/** Who is calling: the server (secret key) or one entity (public key + JWT). */
export type Principal =
  | { kind: "secret" }
  /** `expiresAt`: the token's `exp` in ms; a stream opened with it closes then. */
  | { kind: "entity"; entityId: string; expiresAt: number };
