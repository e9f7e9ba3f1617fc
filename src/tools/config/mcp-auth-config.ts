/**
 * `auth` of an MCP server: its tools act as a person, with that person's
 * OAuth token for the server (docs/accounts.md). The authorization server is
 * discovered from the server itself, the way MCP clients do (its `401`, its
 * protected resource metadata, then the authorization server's metadata),
 * unless the configuration names an `issuer` or gives the endpoints.
 *
 * The connection is keyed by the server's URL (the resource its tokens are
 * for): the token is only ever sent there. `tools` lists what the server
 * offers for the times the gateway cannot ask it (the person has not
 * connected yet and the server lists nothing without a token).
 */
import { z } from "@hono/zod-openapi";
import { checkOAuthAuth, oauthAuthFields } from "./gateway-auth-config";

/** A tool the server is known to offer: offered to the model while the server cannot be asked for its list. */
export const DeclaredMcpTool = z
  .object({
    name: z.string().min(1).max(128),
    description: z.string().max(4_000).optional(),
    inputSchema: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type DeclaredMcpTool = z.infer<typeof DeclaredMcpTool>;

export const McpAuth = z
  .object({
    ...oauthAuthFields,
    /** Tools offered while the person has not connected (the server lists nothing without a token). */
    tools: z.array(DeclaredMcpTool).max(256).optional(),
  })
  .strict()
  .superRefine(checkOAuthAuth)
  .openapi("McpAuth", {
    description:
      "The server's tools carry an OAuth token: owner `person`, that of the person whose message started the run (one who has not connected the account gets a \"connect your account\" card and the call waits for them); owner `agent`, the agent's own (the client credentials grant, or connected once by an operator)",
  });
export type McpAuth = z.infer<typeof McpAuth>;
