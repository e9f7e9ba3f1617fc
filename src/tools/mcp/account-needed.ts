/**
 * Thrown from inside an MCP transport's fetch when a request cannot go out
 * as the person it acts for: they never connected the server, the grant is
 * gone, or the server wants more scopes. The caller turns it into a
 * "connect your account" wait. `reason` is for people and never holds a
 * token.
 */
export class AccountNeededError extends Error {
  constructor(
    readonly reason: string,
    /** The scopes a new connection should ask for. */
    readonly scopes: string[],
  ) {
    super(reason);
    this.name = "AccountNeededError";
  }
}
