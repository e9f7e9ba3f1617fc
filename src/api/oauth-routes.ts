/**
 * The gateway's OAuth addresses, for browsers and authorization servers
 * (outside `/api`: no gateway credentials, each is its own credential):
 *
 * - `GET /oauth/start/{flowId}?t=`: the link a person is given to connect an
 *   account. Its start token works once; opening it binds the flow to that
 *   browser with a cookie (HttpOnly, SameSite=Lax, Path=/oauth, Secure
 *   except on localhost, named after the flow) and sends the browser on to
 *   the authorization server.
 * - `GET /oauth/callback`: where the authorization server sends the browser
 *   back. It needs that cookie (another browser gets a 403 and nothing is
 *   consumed), checks state, then iss, then the error or the code, takes the
 *   flow once (a replayed or concurrent callback finds nothing), exchanges
 *   the code and stores the tokens for the flow's entity.
 * - `GET /oauth/client-metadata.json`: the gateway's Client ID Metadata
 *   Document.
 *
 * Browsers get a small HTML page, errors included; `Accept:
 * application/json` gets JSON and the error envelope. Nothing here ever
 * shows a token, a code, a state or a verifier.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { ConnectionStore } from "../accounts/connection-store";
import { FlowStore, type FlowRefusal, type FlowWaiter } from "../accounts/flow-store";
import { agentStub } from "../agents/agent-stub";
import { isLoopbackHost, oauthHttp } from "../accounts/oauth-fetch";
import { checkCallback, finishFlow } from "../accounts/oauth-flow";
import type { OAuthFailureCode } from "../accounts/oauth-failure";
import { clientMetadataDocument, clientMetadataPath, oauthCallbackPath } from "../accounts/oauth-registration";
import { AccountsKeysError, tokenCipherFor } from "../accounts/token-cipher";
import { getDatabase } from "../db/client";
import type { AppEnv } from "../env";
import { type ErrorCode, errorEnvelope } from "../errors";
import { urlPolicyOf } from "../security/url-policy";
import { callsWaitingForAccount } from "../tools";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { ErrorResponse, jsonContent } from "./schemas";

/** A callback's whole query: authorization servers add a few parameters of their own, never kilobytes. */
export const maxCallbackQueryLength = 8 * 1024;

const StartParams = z.object({
  flowId: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "flowId", in: "path" }, example: "flw_0123" }),
});
const StartQuery = z.object({
  t: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "t", in: "query" }, description: "The start token: given with the link, works once" }),
});

const queryParam = (name: string, max: number, description: string) =>
  z
    .string()
    .min(1)
    .max(max)
    .optional()
    .openapi({ param: { name, in: "query" }, description });

/** RFC 6749, section 4.1.2, and RFC 9207; one of each at most (a repeated parameter is refused), each bounded. */
const CallbackQuery = z.object({
  state: z
    .string()
    .min(1)
    .max(512)
    .openapi({ param: { name: "state", in: "query" }, description: "The flow's state, as the authorization server returned it" }),
  code: queryParam("code", 4096, "The authorization code"),
  iss: queryParam("iss", 2048, "The authorization server's issuer (RFC 9207)"),
  error: queryParam("error", 256, "Instead of a code: why there is none (`access_denied`: the person said no)"),
  error_description: queryParam("error_description", 2048, "The authorization server's words about the error"),
  error_uri: queryParam("error_uri", 2048, "A page about the error"),
});

const htmlContent = (description: string) => ({
  content: { "text/html": { schema: z.string().openapi({ description: "A short page for the person" }) }, "application/json": { schema: ErrorResponse } },
  description,
});

const Connected = z
  .object({ connected: z.literal(true), entityId: z.string(), connectionKey: z.string() })
  .openapi("AccountConnected", { description: "With `Accept: application/json`: the account is connected (never a token)" });

const pageHeaders = {
  "cache-control": "no-store",
  // The callback's URL carries a code: no page of ours sends it on.
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
};

function wantsJson(c: Context): boolean {
  return (c.req.header("accept") ?? "").toLowerCase().includes("application/json");
}

/** A page for the person: every value escaped (`html`). */
function page(title: string, message: string) {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title}</title>
    <style>
      body { font: 16px/1.5 system-ui, sans-serif; max-width: 34rem; margin: 4rem auto; padding: 0 1rem; color: #1d1d1f; }
    </style>
  </head>
  <body>
    <h1>${title}</h1>
    <p>${message}</p>
  </body>
</html>`;
}

type Status = 400 | 403 | 404 | 409 | 410 | 502 | 503;

/** A refusal: the error envelope for JSON, a page for a browser. */
function refusal(c: Context, status: Status, code: ErrorCode, message: string): Response | Promise<Response> {
  if (wantsJson(c)) return c.json(errorEnvelope(code, message), status, pageHeaders);
  return c.html(page("Your account was not connected", message), status, pageHeaders);
}

function flowRefusal(c: Context, refused: FlowRefusal, usedCode: { status: 403 | 409; code: ErrorCode }): Response | Promise<Response> {
  switch (refused.reason) {
    case "not_found":
      return refusal(c, 409, "flow_used", refused.message);
    case "expired":
      return refusal(c, 410, "flow_expired", refused.message);
    case "used":
      return refusal(c, usedCode.status, usedCode.code, refused.message);
    case "unreadable":
      return refusal(c, 503, "misconfigured", refused.message);
  }
}

/** The callback's checks that fail before the flow is taken (nothing consumed), and those that end it. */
const callbackFailures: Partial<Record<OAuthFailureCode, { status: Status; code: ErrorCode; endsFlow: boolean }>> = {
  state_mismatch: { status: 400, code: "validation_error", endsFlow: false },
  issuer_mismatch: { status: 400, code: "issuer_mismatch", endsFlow: false },
  missing_code: { status: 400, code: "missing_code", endsFlow: false },
  authorization_denied: { status: 403, code: "authorization_denied", endsFlow: true },
  authorization_error: { status: 400, code: "authorization_error", endsFlow: true },
};

/** Secure everywhere but a plain-http localhost, where browsers would not keep a Secure cookie. */
function cookieIsSecure(c: Context): boolean {
  const url = new URL(c.req.url);
  return !(url.protocol === "http:" && isLoopbackHost(url.hostname));
}

/** One cookie per flow, so two flows begun in one browser do not overwrite each other's. */
const cookieName = (flowId: string) => `switchboard-oauth-${flowId}`;

const cookieOptions = (c: Context, maxAge: number) => {
  const base = { httpOnly: true, sameSite: "Lax", path: "/oauth", maxAge } as const;
  return cookieIsSecure(c) ? { ...base, secure: true, prefix: "secure" as const } : base;
};

function readBrowserSecret(c: Context, flowId: string): string | undefined {
  return cookieIsSecure(c) ? getCookie(c, cookieName(flowId), "secure") : getCookie(c, cookieName(flowId));
}

function clearBrowserSecret(c: Context, flowId: string): void {
  setCookie(c, cookieName(flowId), "", cookieOptions(c, 0));
}

/** The origin people and authorization servers reach the gateway at: `PUBLIC_URL`, else this request's. */
function publicOrigin(env: AppEnv, requestUrl: string): string {
  const configured = env.PUBLIC_URL;
  return new URL(typeof configured === "string" && configured !== "" ? configured : requestUrl).origin;
}

async function stores(env: AppEnv): Promise<{ flows: FlowStore; connections: ConnectionStore }> {
  const cipher = await tokenCipherFor(env);
  const database = getDatabase(env.DB);
  return { flows: new FlowStore(database, cipher), connections: new ConnectionStore(database, cipher) };
}

/**
 * Tells the agents whose calls waited for this account that it is connected:
 * the flow's own call, and every other call still waiting for the same
 * person and connection (a second call that needed it waited on this flow).
 * Each agent resumes a call once, under its lock. The account stays
 * connected whatever happens to the calls.
 */
async function resumeWaitingCalls(env: AppEnv, flow: { waiting?: FlowWaiter; entityId: string; connectionKey: string }, origin: string): Promise<void> {
  const waiting = new Map<string, FlowWaiter>();
  if (flow.waiting !== undefined) waiting.set(flow.waiting.toolCallId, flow.waiting);
  for (const call of await callsWaitingForAccount(getDatabase(env.DB), flow.entityId, flow.connectionKey)) waiting.set(call.toolCallId, call);
  await Promise.all(
    [...waiting.values()].map(async (call) => {
      try {
        await agentStub(env, call.agentId).resumeAccountCall(call.toolCallId, origin);
      } catch (error) {
        // The call then ends at its deadline (the person sees the account connected, and can ask again).
        console.error("could not resume a call that waited for an account", call.toolCallId, error);
      }
    }),
  );
}

/** The stores, or the refusal a gateway without a usable `ACCOUNTS_KEYS` gives (named, never its value). */
async function storesOr(c: Context, env: AppEnv): Promise<{ ok: true; value: Awaited<ReturnType<typeof stores>> } | { ok: false; response: Response | Promise<Response> }> {
  try {
    return { ok: true, value: await stores(env) };
  } catch (error) {
    if (error instanceof AccountsKeysError) return { ok: false, response: refusal(c, 503, "misconfigured", error.message) };
    throw error;
  }
}

/** A query the schema refuses: the envelope or a page, 400, naming what is wrong (never echoing a value). */
const badQuery = (
  result: { success: true } | { success: false; error: { issues: readonly { path: PropertyKey[]; message: string }[] } },
  c: Context,
): Response | Promise<Response> | undefined => {
  if (result.success) return undefined;
  const problems = result.error.issues.map((issue) => `${issue.path.map(String).join(".") || "query"}: ${issue.message}`).join("; ");
  return refusal(c, 400, "validation_error", `This link is not one the gateway made (${problems})`);
};

export const oauthRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: clientMetadataPath,
      operationId: "getClientMetadataDocument",
      summary: "The gateway's OAuth Client ID Metadata Document",
      tags: ["accounts"],
      ...routeAccess("anyone"),
      description: "Authorization servers that take Client ID Metadata Documents fetch it: its `client_id` is this document's URL.",
      responses: {
        200: jsonContent(
          z
            .object({
              client_id: z.string(),
              client_name: z.string(),
              client_uri: z.string(),
              redirect_uris: z.array(z.string()),
              grant_types: z.array(z.string()),
              response_types: z.array(z.string()),
              token_endpoint_auth_method: z.literal("none"),
            })
            .openapi("ClientMetadataDocument"),
          "The document",
        ),
      },
    }),
    (c) => c.json(clientMetadataDocument(publicOrigin(c.env, c.req.url)), 200, { "cache-control": "public, max-age=3600" }),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/oauth/start/{flowId}",
      operationId: "startAccountConnection",
      summary: "Open a link to connect an account",
      tags: ["accounts"],
      ...routeAccess("anyone"),
      description:
        "The link a person is given to connect an account. Its token works once: the browser that opens it gets a cookie that only the callback of this flow accepts, and is sent on to the authorization server.",
      request: { params: StartParams, query: StartQuery },
      responses: {
        302: { description: "To the authorization server; sets the flow's cookie", headers: { location: { schema: { type: "string" } } } },
        400: htmlContent("Not a link the gateway made"),
        403: htmlContent("The link was opened already, or its token is not this flow's (`invalid_link`)"),
        404: htmlContent("No such flow"),
        410: htmlContent("The flow expired (`flow_expired`)"),
        503: htmlContent("The accounts key is missing or wrong (`misconfigured`)"),
      },
    }),
    async (c) => {
      const { flowId } = c.req.valid("param");
      const { t } = c.req.valid("query");
      const opened = await storesOr(c, c.env);
      if (!opened.ok) return opened.response;
      const started = await opened.value.flows.start(flowId, t);
      if (!started.ok) {
        if (started.reason === "not_found") return refusal(c, 404, "not_found", started.message);
        return flowRefusal(c, started, { status: 403, code: "invalid_link" });
      }
      const maxAge = Math.max(1, Math.floor((Date.parse(started.expiresAt) - Date.now()) / 1000));
      setCookie(c, cookieName(flowId), started.browserSecret, cookieOptions(c, maxAge));
      for (const [name, value] of Object.entries(pageHeaders)) c.header(name, value);
      return c.redirect(started.authorizationUrl, 302);
    },
    badQuery,
  )
  .openapi(
    createRoute({
      method: "get",
      path: oauthCallbackPath,
      operationId: "finishAccountConnection",
      summary: "Where an authorization server sends the person back",
      tags: ["accounts"],
      ...routeAccess("anyone"),
      description:
        "Needs the cookie the flow's start link set in this browser. Checks state, then iss, then the error or the code; takes the flow once, exchanges the code and stores the tokens. A page for browsers; JSON with `Accept: application/json`.",
      request: { query: CallbackQuery },
      responses: {
        200: {
          content: { "text/html": { schema: z.string().openapi({ description: "Connected <service>. You can close this tab." }) }, "application/json": { schema: Connected } },
          description: "The account is connected",
        },
        400: htmlContent("Bad or oversize parameters, no code, or an issuer that is not the flow's (`validation_error`, `missing_code`, `issuer_mismatch`, `authorization_error`)"),
        403: htmlContent("Another browser than the one that opened the link (`wrong_browser`), or the person said no (`authorization_denied`)"),
        404: htmlContent("The person the flow was for is gone"),
        409: htmlContent("The flow was completed already, or never existed (`flow_used`)"),
        410: htmlContent("The flow expired (`flow_expired`)"),
        502: htmlContent("The token endpoint refused the code or could not be reached (`token_request_failed`)"),
        503: htmlContent("The accounts key is missing or wrong (`misconfigured`)"),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const url = new URL(c.req.url);
      if (url.search.length > maxCallbackQueryLength) return refusal(c, 400, "validation_error", `The callback's query is longer than ${maxCallbackQueryLength} characters`);
      if (query.code === undefined && query.error === undefined) return refusal(c, 400, "missing_code", "The callback carries neither a code nor an error");
      const opened = await storesOr(c, c.env);
      if (!opened.ok) return opened.response;
      const { flows, connections } = opened.value;

      const found = await flows.find(query.state);
      if (!found.ok) return flowRefusal(c, found, { status: 409, code: "flow_used" });
      const { flow: stored } = found;
      const browserSecret = readBrowserSecret(c, stored.id);
      if (browserSecret === undefined || !(await flows.isBrowser(found, browserSecret))) {
        return refusal(
          c,
          403,
          "wrong_browser",
          "This sign-in was started in another browser (or its link was never opened here): open the link you were given in the browser you sign in with",
        );
      }

      const checked = await checkCallback(url.searchParams, stored.flow);
      if (!checked.ok) {
        const mapped = callbackFailures[checked.error.code] ?? { status: 400, code: "validation_error", endsFlow: false };
        if (mapped.endsFlow && (await flows.take(stored.id, browserSecret))) clearBrowserSecret(c, stored.id);
        return refusal(c, mapped.status, mapped.code, checked.error.message);
      }
      // Exactly one callback gets past here for a flow, however many race.
      if (!(await flows.take(stored.id, browserSecret))) return refusal(c, 409, "flow_used", "This sign-in was completed already");
      clearBrowserSecret(c, stored.id);

      const finished = await finishFlow(url.searchParams, stored.flow, { http: oauthHttp({ policy: urlPolicyOf(c.env) }), env: c.env });
      if (!finished.ok) return refusal(c, 502, "token_request_failed", finished.error.message);
      const identity = { entityId: stored.entityId, connectionKey: stored.connectionKey };
      const saved = await connections.save(identity, finished.value, { issuer: stored.flow.server.issuer ?? null, clientId: stored.flow.registration.clientId });
      if (!saved.ok) return refusal(c, 404, "not_found", "The person this sign-in was for no longer exists");
      // Tool calls waited for this account: their agents send the requests now, once each (this callback alone took the flow).
      await resumeWaitingCalls(c.env, stored, publicOrigin(c.env, c.req.url));

      if (wantsJson(c)) return c.json({ connected: true as const, ...identity }, 200, pageHeaders);
      const service = stored.serviceName ?? stored.connectionKey;
      return c.html(page(`Connected ${service}`, `Connected ${service}. You can close this tab.`), 200, pageHeaders);
    },
    badQuery,
  );
