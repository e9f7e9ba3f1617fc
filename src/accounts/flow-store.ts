/**
 * OAuth flows kept durably in D1 (`oauth_flows`) between the link a person
 * opens and the authorization server's callback, so a flow survives a
 * restart, and used once:
 *
 * - nothing in a row opens the flow to whoever reads it: the `state`, the
 *   one-time start token and the browser's cookie secret are stored as
 *   SHA-256 hashes; the PKCE verifier, the registration (a dynamic one may
 *   hold a client secret) and the authorization URL (it carries the state)
 *   are sealed together with the accounts key (`TokenCipher.sealText`);
 * - the start link works once: opening it swaps the start token's hash for
 *   the hash of a new secret the browser keeps in a cookie (one conditional
 *   UPDATE), and only that browser can complete the flow;
 * - completing it is one conditional DELETE … RETURNING: of a replayed or
 *   concurrent callback, exactly one finds the row;
 * - a flow lives 15 minutes; an expired one is refused, and deleted when it
 *   is looked at and whenever a flow is created.
 */
import { and, desc, eq, gt, isNotNull, lte } from "drizzle-orm";
import { z } from "zod";
import { bytesToBase64Url } from "../base64";
import type { Database } from "../db/client";
import { oauthFlows } from "../db/schema";
import { createId } from "../ids";
import { parseJsonSafely } from "../json";
import { AuthorizationServer } from "./oauth-discovery";
import { newState, type OAuthFlow } from "./oauth-flow";
import { OAuthRegistration } from "./oauth-registration";
import type { SealBinding, TokenCipher } from "./token-cipher";

/** How long a person has between the card and the callback. */
export const flowLifetimeMs = 15 * 60_000;

/** What waits on a flow: the tool call to resume once the account is connected. */
export type FlowWaiter = { agentId: string; toolCallId: string };

export type NewFlow = {
  entityId: string;
  connectionKey: string;
  serviceName?: string;
  /** What `beginFlow` returned: kept until the callback. */
  flow: OAuthFlow;
  authorizationUrl: string;
  waiting?: FlowWaiter;
  lifetimeMs?: number;
  now?: number;
};

/** A flow as the callback uses it: the `state` is the one the callback carried (its hash matched). */
export type StoredFlow = {
  id: string;
  entityId: string;
  connectionKey: string;
  serviceName: string | null;
  waiting: FlowWaiter | undefined;
  expiresAt: string;
  flow: OAuthFlow;
};

export type StartedFlow = { ok: true; authorizationUrl: string; browserSecret: string; expiresAt: string };
/** `not_found`: no such flow (or completed); `expired`; `used`: the start link was opened already, or the token is not its. */
export type FlowRefusal = { ok: false; reason: "not_found" | "expired" | "used" | "unreadable"; message: string };

/** What is sealed: the secrets of a flow and the URL that carries its state. */
const SealedSecrets = z.object({ codeVerifier: z.string().min(1), registration: OAuthRegistration, authorizationUrl: z.string() });

type Row = typeof oauthFlows.$inferSelect;

const encoder = new TextEncoder();

/** SHA-256, base64url: how a flow's secrets are stored and looked up. */
export async function secretHash(secret: string): Promise<string> {
  return bytesToBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(secret))));
}

const bindingOf = (row: Pick<Row, "id" | "entityId" | "connectionKey">): SealBinding => ({ purpose: "oauth-flow", context: [row.id, row.entityId, row.connectionKey] });

const refusals = {
  not_found: "This sign-in link does not exist, or its account was connected already",
  expired: "This sign-in link has expired: ask for a new one",
  used: "This sign-in link was opened already (each link works once, in one browser): ask for a new one",
} as const;

const refuse = (reason: keyof typeof refusals): FlowRefusal => ({ ok: false, reason, message: refusals[reason] });

export class FlowStore {
  constructor(
    private readonly database: Database,
    private readonly cipher: TokenCipher,
  ) {}

  /**
   * Keeps a new flow; returns its id and its start token (in plain only
   * here: give it to the person the flow is for). Expired flows are swept
   * first. `unknown_entity` when the entity does not exist.
   */
  async create(input: NewFlow): Promise<{ ok: true; flowId: string; startToken: string; expiresAt: string } | { ok: false; reason: "unknown_entity" }> {
    const now = input.now ?? Date.now();
    await this.sweep(now);
    const id = createId("flw");
    const startToken = newState();
    const expiresAt = new Date(now + (input.lifetimeMs ?? flowLifetimeMs)).toISOString();
    const secrets: z.infer<typeof SealedSecrets> = { codeVerifier: input.flow.codeVerifier, registration: input.flow.registration, authorizationUrl: input.authorizationUrl };
    const sealed = await this.cipher.sealText(JSON.stringify(secrets), bindingOf({ id, entityId: input.entityId, connectionKey: input.connectionKey }));
    try {
      await this.database.insert(oauthFlows).values({
        id,
        entityId: input.entityId,
        connectionKey: input.connectionKey,
        serviceName: input.serviceName ?? null,
        stateHash: await secretHash(input.flow.state),
        startTokenHash: await secretHash(startToken),
        sealedSecrets: sealed.blob,
        keyId: sealed.keyId,
        server: JSON.stringify(input.flow.server),
        clientId: input.flow.registration.clientId,
        resource: input.flow.resource ?? null,
        scopes: input.flow.scopes.join(" "),
        redirectUri: input.flow.redirectUri,
        agentId: input.waiting?.agentId ?? null,
        toolCallId: input.waiting?.toolCallId ?? null,
        createdAt: new Date(now).toISOString(),
        expiresAt,
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      if (/FOREIGN KEY constraint failed/i.test(cause)) return { ok: false, reason: "unknown_entity" };
      // D1's own words only: drizzle's wrapping lists the parameters (the sealed blob and the hashes among them).
      throw new Error(`Could not store an OAuth flow: ${cause}`);
    }
    return { ok: true, flowId: id, startToken, expiresAt };
  }

  /**
   * A flow begun for the same person and connection and still open (nobody
   * has opened its link yet, or it is not past its expiry), made to last
   * until at least `until`: a second call that needs the same account waits
   * on it instead of beginning another. Undefined when there is none.
   */
  async adoptOpen(entityId: string, connectionKey: string, until: number, now = Date.now()): Promise<{ flowId: string; expiresAt: string; scopes: string[] } | undefined> {
    const current = await this.#openRow(entityId, connectionKey, now);
    if (current === undefined) return undefined;
    const wanted = new Date(until).toISOString();
    if (current.expiresAt >= wanted) return { flowId: current.id, expiresAt: current.expiresAt, scopes: splitScopes(current.scopes) };
    // Extended only while it is still there and open: a flow completed in between is not brought back.
    const extended = await this.database
      .update(oauthFlows)
      .set({ expiresAt: wanted })
      .where(and(eq(oauthFlows.id, current.id), gt(oauthFlows.expiresAt, new Date(now).toISOString())))
      .returning({ id: oauthFlows.id })
      .get();
    return extended === undefined ? undefined : { flowId: current.id, expiresAt: wanted, scopes: splitScopes(current.scopes) };
  }

  /** The open flow for this person and connection (the latest to expire), read only. */
  async openFlow(
    entityId: string,
    connectionKey: string,
    now = Date.now(),
  ): Promise<{ flowId: string; expiresAt: string; scopes: string[]; serviceName: string | null } | undefined> {
    const current = await this.#openRow(entityId, connectionKey, now);
    return current && { flowId: current.id, expiresAt: current.expiresAt, scopes: splitScopes(current.scopes), serviceName: current.serviceName };
  }

  #openRow(entityId: string, connectionKey: string, now: number) {
    return this.database
      .select({ id: oauthFlows.id, expiresAt: oauthFlows.expiresAt, scopes: oauthFlows.scopes, serviceName: oauthFlows.serviceName })
      .from(oauthFlows)
      .where(and(eq(oauthFlows.entityId, entityId), eq(oauthFlows.connectionKey, connectionKey), gt(oauthFlows.expiresAt, new Date(now).toISOString())))
      .orderBy(desc(oauthFlows.expiresAt))
      .get();
  }

  /**
   * The start link opened: the start token is spent and the flow bound to a
   * new browser secret (returned, for the cookie), in one conditional
   * UPDATE, so a link opened twice or twice at once binds one browser.
   */
  async start(flowId: string, startToken: string, now = Date.now()): Promise<StartedFlow | FlowRefusal> {
    const browserSecret = newState();
    const started = await this.database
      .update(oauthFlows)
      .set({ startTokenHash: null, browserHash: await secretHash(browserSecret), startedAt: new Date(now).toISOString() })
      .where(and(eq(oauthFlows.id, flowId), eq(oauthFlows.startTokenHash, await secretHash(startToken)), gt(oauthFlows.expiresAt, new Date(now).toISOString())))
      .returning()
      .get();
    if (started === undefined) {
      const row = await this.database.select({ expiresAt: oauthFlows.expiresAt }).from(oauthFlows).where(eq(oauthFlows.id, flowId)).get();
      if (row === undefined) return refuse("not_found");
      if (row.expiresAt <= new Date(now).toISOString()) {
        await this.database.delete(oauthFlows).where(and(eq(oauthFlows.id, flowId), lte(oauthFlows.expiresAt, new Date(now).toISOString())));
        return refuse("expired");
      }
      return refuse("used");
    }
    const secrets = await this.secretsOf(started);
    if (!secrets.ok) return secrets;
    return { ok: true, authorizationUrl: secrets.value.authorizationUrl, browserSecret, expiresAt: started.expiresAt };
  }

  /**
   * A new start token for the flow's own person (`entityId` must be the
   * flow's): the token before it stops working, so only the latest link
   * given out opens the flow. The start link is never stored: this is how
   * a person who was shown a card (which carries no link) gets one.
   */
  async reissueStart(
    flowId: string,
    entityId: string,
    now = Date.now(),
  ): Promise<{ ok: true; startToken: string; expiresAt: string; serviceName: string | null; connectionKey: string; scopes: string[] } | FlowRefusal> {
    const startToken = newState();
    const reissued = await this.database
      .update(oauthFlows)
      .set({ startTokenHash: await secretHash(startToken) })
      .where(and(eq(oauthFlows.id, flowId), eq(oauthFlows.entityId, entityId), gt(oauthFlows.expiresAt, new Date(now).toISOString())))
      .returning()
      .get();
    if (reissued === undefined) {
      const row = await this.database.select({ entityId: oauthFlows.entityId, expiresAt: oauthFlows.expiresAt }).from(oauthFlows).where(eq(oauthFlows.id, flowId)).get();
      // Another person's flow is as good as none: its existence is not told.
      if (row === undefined || row.entityId !== entityId) return refuse("not_found");
      return refuse("expired");
    }
    return {
      ok: true,
      startToken,
      expiresAt: reissued.expiresAt,
      serviceName: reissued.serviceName,
      connectionKey: reissued.connectionKey,
      scopes: reissued.scopes.split(" ").filter((scope) => scope !== ""),
    };
  }

  /** The flow whose `state` this is, opened; an expired one is deleted and refused. Nothing is consumed. */
  async find(state: string, now = Date.now()): Promise<{ ok: true; flow: StoredFlow; browserHash: string | null } | FlowRefusal> {
    const row = await this.database
      .select()
      .from(oauthFlows)
      .where(eq(oauthFlows.stateHash, await secretHash(state)))
      .get();
    if (row === undefined) return refuse("not_found");
    if (row.expiresAt <= new Date(now).toISOString()) {
      await this.database.delete(oauthFlows).where(and(eq(oauthFlows.id, row.id), lte(oauthFlows.expiresAt, new Date(now).toISOString())));
      return refuse("expired");
    }
    const secrets = await this.secretsOf(row);
    if (!secrets.ok) return secrets;
    const server = AuthorizationServer.safeParse(jsonValue(row.server));
    if (!server.success) return { ok: false, reason: "unreadable", message: "This sign-in's stored authorization server is not in a form this gateway reads" };
    const flow: OAuthFlow = {
      state,
      codeVerifier: secrets.value.codeVerifier,
      redirectUri: row.redirectUri,
      scopes: row.scopes.split(" ").filter((scope) => scope !== ""),
      resource: row.resource ?? undefined,
      server: server.data,
      registration: secrets.value.registration,
    };
    const waiting = row.agentId !== null && row.toolCallId !== null ? { agentId: row.agentId, toolCallId: row.toolCallId } : undefined;
    return {
      ok: true,
      browserHash: row.browserHash,
      flow: { id: row.id, entityId: row.entityId, connectionKey: row.connectionKey, serviceName: row.serviceName, waiting, expiresAt: row.expiresAt, flow },
    };
  }

  /** Whether `browserSecret` (from the cookie) is the one the flow's start link gave, compared as hashes in constant time. */
  async isBrowser(found: { browserHash: string | null }, browserSecret: string | undefined): Promise<boolean> {
    if (found.browserHash === null || browserSecret === undefined || browserSecret === "") return false;
    return sameHash(await secretHash(browserSecret), found.browserHash);
  }

  /**
   * Takes the flow for completion: one conditional DELETE of the row, still
   * bound to that browser and not expired. True for exactly one caller,
   * however many callbacks race; false for every other.
   */
  async take(flowId: string, browserSecret: string, now = Date.now()): Promise<boolean> {
    const taken = await this.database
      .delete(oauthFlows)
      .where(
        and(
          eq(oauthFlows.id, flowId),
          isNotNull(oauthFlows.browserHash),
          eq(oauthFlows.browserHash, await secretHash(browserSecret)),
          gt(oauthFlows.expiresAt, new Date(now).toISOString()),
        ),
      )
      .returning({ id: oauthFlows.id });
    return taken.length === 1;
  }

  /** Deletes the flows past their expiry; how many. */
  async sweep(now = Date.now()): Promise<number> {
    const swept = await this.database
      .delete(oauthFlows)
      .where(lte(oauthFlows.expiresAt, new Date(now).toISOString()))
      .returning({ id: oauthFlows.id });
    return swept.length;
  }

  private async secretsOf(row: Row): Promise<{ ok: true; value: z.infer<typeof SealedSecrets> } | FlowRefusal> {
    const opened = await this.cipher.openText(row.sealedSecrets, bindingOf(row));
    const secrets = opened.ok ? SealedSecrets.safeParse(jsonValue(opened.text)) : undefined;
    if (secrets?.success !== true) return { ok: false, reason: "unreadable", message: "This sign-in's stored secrets do not open (the accounts key changed?): ask for a new link" };
    return { ok: true, value: secrets.data };
  }
}

const splitScopes = (text: string) => text.split(" ").filter((scope) => scope !== "");

function jsonValue(text: string): unknown {
  const parsed = parseJsonSafely(text);
  return parsed.ok ? parsed.value : undefined;
}

/** Two hashes of the same length compared without an early exit. */
function sameHash(left: string, right: string): boolean {
  if (left.length !== right.length) return false;
  let difference = 0;
  for (let index = 0; index < left.length; index += 1) difference |= left.charCodeAt(index) ^ right.charCodeAt(index);
  return difference === 0;
}
