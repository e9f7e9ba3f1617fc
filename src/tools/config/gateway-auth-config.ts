/**
 * `execution.auth` of a gateway tool: the call acts as a person at the tool's
 * service with that person's OAuth token, which the gateway holds for them
 * (docs/accounts.md). The authorization server is found from its `issuer`'s
 * metadata, or given by its endpoints (`authorizationUrl` and `tokenUrl`,
 * with `issuer` then naming the issuer the callback's `iss` must equal).
 *
 * The connection is keyed by the tool URL's origin (scheme, host, port): the
 * token is only ever sent there, and every tool of that origin shares it.
 * `service` is only the name people see on the card.
 */
import { z } from "@hono/zod-openapi";
import { secretNameProblem } from "../../security/secret-policy";
import { outboundUrlProblem } from "../../security/url-policy";

/** An OAuth scope token (RFC 6749, section 3.3). */
const scopeTokenPattern = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const secretReference = /^\$\{env\.([A-Za-z_][A-Za-z0-9_]*)\}$/;
const loopbackHost = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** An endpoint a person is sent to or the gateway calls for tokens: https (plain http only for localhost); checked again, by the deployment's policy, at use. */
const EndpointUrl = z
  .string()
  .max(4096)
  .superRefine((value, context) => {
    const problem = outboundUrlProblem(value, { allowPrivateHosts: true });
    if (problem !== undefined) return context.addIssue({ code: "custom", message: problem });
    const url = new URL(value);
    if (url.hash !== "") context.addIssue({ code: "custom", message: "Must not have a fragment" });
    else if (url.protocol !== "https:" && !loopbackHost.test(url.hostname)) context.addIssue({ code: "custom", message: "Must be an https URL (plain http only for localhost)" });
  });

/** A client the operator registered with the provider: its id, and its secret as `${env.NAME}`, never written here. */
const Client = z
  .object({
    clientId: z.string().min(1).max(1024),
    clientSecret: z
      .string()
      .regex(secretReference, 'Must be a secret reference, "${env.NAME}": a client secret is never written in a configuration')
      .superRefine((value, context) => {
        const name = secretReference.exec(value)?.[1];
        const problem = name === undefined ? undefined : secretNameProblem(name);
        if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
      })
      .optional(),
  })
  .strict();

/** What every `auth: {type: "oauth"}` says: whose token, which scopes, which authorization server, which client, the name on the card. */
export const oauthAuthFields = {
  type: z.literal("oauth"),
  /**
   * `person`: the token of the person whose message started the run.
   * `agent`: one token for the agent, by the client credentials grant when
   * `client.clientSecret` is given, else connected once by an operator.
   */
  owner: z.enum(["person", "agent"]),
  /** The scopes to ask for, separated by spaces. */
  scope: z
    .string()
    .max(2048)
    .superRefine((value, context) => {
      for (const scope of value.split(" ").filter((part) => part !== "")) {
        if (!scopeTokenPattern.test(scope)) context.addIssue({ code: "custom", message: `"${scope.slice(0, 100)}" is not an OAuth scope token` });
      }
    })
    .optional(),
  /** The authorization server's issuer: its metadata is discovered from it, unless the endpoints are given. */
  issuer: z.string().max(2048).url().optional(),
  authorizationUrl: EndpointUrl.optional(),
  tokenUrl: EndpointUrl.optional(),
  /** A client registered with the provider; without one the gateway registers itself where the server lets it. */
  client: Client.optional(),
  /** The service's name on the "connect your account" card; the tool URL's origin when absent. */
  service: z.string().min(1).max(100).optional(),
};

/** Refuses half-given endpoints. */
export function checkOAuthAuth(auth: { owner: string; authorizationUrl?: string; tokenUrl?: string }, context: z.RefinementCtx): void {
  const explicit = auth.authorizationUrl !== undefined || auth.tokenUrl !== undefined;
  if (explicit && auth.authorizationUrl === undefined) context.addIssue({ code: "custom", path: ["authorizationUrl"], message: "Required with tokenUrl" });
  if (explicit && auth.tokenUrl === undefined) context.addIssue({ code: "custom", path: ["tokenUrl"], message: "Required with authorizationUrl" });
}

export const GatewayAuth = z
  .object(oauthAuthFields)
  .strict()
  .superRefine((auth, context) => {
    checkOAuthAuth(auth, context);
    const explicit = auth.authorizationUrl !== undefined || auth.tokenUrl !== undefined;
    if (!explicit && auth.issuer === undefined) {
      context.addIssue({ code: "custom", path: ["issuer"], message: "Required: the authorization server's issuer (for discovery), or authorizationUrl and tokenUrl" });
    }
  })
  .openapi("GatewayAuth", {
    description:
      'The call carries an OAuth token: owner `person`, that of the person whose message started the run (one who has not connected the account gets a "connect your account" card and the call waits for them); owner `agent`, the agent\'s own (the client credentials grant, or connected once by an operator)',
  });

export type GatewayAuth = z.infer<typeof GatewayAuth>;
