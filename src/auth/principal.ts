/** Who is calling: the server (secret key) or one entity (public key + JWT). */
export type Principal = { kind: "secret" } | { kind: "entity"; entityId: string };
