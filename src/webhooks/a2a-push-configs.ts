/**
 * The push notification configs of A2A tasks in D1: written by the A2A face
 * (`CreateTaskPushNotificationConfig` and the others), read by the agent
 * object when one of its tasks changes (`a2a-task-push.ts`) and again before
 * each attempt, so a deleted config gets nothing more and its credentials
 * stay in D1 alone (never in the object's retry rows).
 *
 * The credentials (the token and the authentication's credentials) are
 * sealed at rest as one blob with the accounts key, as connected accounts'
 * tokens are (`accounts/token-cipher.ts`: AES-256-GCM under the first key of
 * `ACCOUNTS_KEYS`, any key opens), bound to the config's task and id so a
 * blob copied to another row does not open. Rows written before sealing
 * keep theirs in the plain columns and are read as they are until the
 * config is written again.
 */
import { and, asc, count, eq, getTableColumns, sql } from "drizzle-orm";
import { z } from "zod";
import { AccountsKeysError, type SealBinding, type TokenCipher, tokenCipherFor } from "../accounts/token-cipher";
import type { Database } from "../db/client";
import { parseStoredJson } from "../db/parse-stored-json";
import { a2aPushConfigs } from "../db/schema";

export type A2aPushConfig = typeof a2aPushConfigs.$inferSelect;

/** What a config holds in secret: sent with each push, shown back to its caller, never kept in clear. */
export type PushCredentials = { token: string | null; authCredentials: string | null };

const SealedCredentials = z.object({ token: z.string().nullable(), authCredentials: z.string().nullable() });

const bindingOf = (config: Pick<A2aPushConfig, "taskId" | "id">): SealBinding => ({ purpose: "a2a-push-config", context: [config.taskId, config.id] });

/**
 * The row's secret columns for `credentials`: sealed, the plain columns
 * empty. Without credentials nothing is sealed (and no key is needed).
 * Throws `AccountsKeysError` when there is something to seal and
 * `ACCOUNTS_KEYS` is missing or malformed.
 */
export async function sealPushCredentials(
  env: { ACCOUNTS_KEYS?: unknown },
  config: Pick<A2aPushConfig, "taskId" | "id">,
  credentials: PushCredentials,
): Promise<Pick<A2aPushConfig, "token" | "authCredentials" | "sealedCredentials" | "keyId">> {
  const empty = { token: null, authCredentials: null, sealedCredentials: null, keyId: null };
  if (credentials.token === null && credentials.authCredentials === null) return empty;
  const sealed = await (await tokenCipherFor(env)).sealText(JSON.stringify(credentials), bindingOf(config));
  return { ...empty, sealedCredentials: sealed.blob, keyId: sealed.keyId };
}

/** The config's credentials, opened; a row written before sealing gives its plain columns. A failure says why, never what the blob holds. */
export async function openPushCredentials(env: { ACCOUNTS_KEYS?: unknown }, config: A2aPushConfig): Promise<({ ok: true } & PushCredentials) | { ok: false; message: string }> {
  if (config.sealedCredentials === null) return { ok: true, token: config.token, authCredentials: config.authCredentials };
  let cipher: TokenCipher;
  try {
    cipher = await tokenCipherFor(env);
  } catch (error) {
    if (error instanceof AccountsKeysError)
      return { ok: false, message: `The credentials of push notification config "${config.id}" cannot be opened: ACCOUNTS_KEYS ${error.problem}` };
    throw error;
  }
  const opened = await cipher.openText(config.sealedCredentials, bindingOf(config));
  if (!opened.ok) {
    const why =
      opened.code === "unknown_key"
        ? `they were sealed with key "${config.keyId}", which ACCOUNTS_KEYS no longer holds`
        : opened.code === "not_authentic"
          ? "they were altered, belong to another config, or the key under their key id changed"
          : "they are not in a form this gateway writes";
    return { ok: false, message: `The credentials of push notification config "${config.id}" do not open: ${why}` };
  }
  const parsed = parseStoredJson(SealedCredentials, opened.text);
  if (!parsed.ok) return { ok: false, message: `The credentials of push notification config "${config.id}" open but are not in a form this gateway reads` };
  return { ok: true, ...parsed.value };
}

/** At most this many configs per task. */
export const maxPushConfigsPerTask = 10;

export async function getPushConfig(database: Database, taskId: string, id: string): Promise<A2aPushConfig | undefined> {
  return (
    await database
      .select()
      .from(a2aPushConfigs)
      .where(and(eq(a2aPushConfigs.taskId, taskId), eq(a2aPushConfigs.id, id)))
      .limit(1)
  )[0];
}

export async function listPushConfigs(database: Database, taskId: string): Promise<A2aPushConfig[]> {
  return database
    .select()
    .from(a2aPushConfigs)
    .where(eq(a2aPushConfigs.taskId, taskId))
    .orderBy(asc(a2aPushConfigs.createdAt), asc(a2aPushConfigs.id))
    .limit(maxPushConfigsPerTask);
}

/**
 * Stores `row` (replacing a config of the same id, as creating it again with
 * new details does) unless its task already has the most it may have: one
 * statement, so concurrent requests cannot pass the count together. False
 * when the limit refused it.
 */
export async function putPushConfig(database: Database, row: A2aPushConfig): Promise<boolean> {
  const values = sql.join(
    Object.entries(getTableColumns(a2aPushConfigs)).map(([name, column]) => sql.param(row[name as keyof A2aPushConfig], column)),
    sql`, `,
  );
  const others = database
    .select({ stored: count() })
    .from(a2aPushConfigs)
    .where(and(eq(a2aPushConfigs.taskId, row.taskId), sql`${a2aPushConfigs.id} <> ${row.id}`));
  const { taskId: _task, id: _id, ...changed } = row;
  const stored = await database
    .insert(a2aPushConfigs)
    .select(sql`select ${values} where (${others}) < ${maxPushConfigsPerTask}`)
    .onConflictDoUpdate({ target: [a2aPushConfigs.taskId, a2aPushConfigs.id], set: changed })
    .returning({ id: a2aPushConfigs.id });
  return stored.length > 0;
}

/** Deletes one config; deleting one that is not there is not an error (the protocol asks for idempotent deletes). */
export async function deletePushConfig(database: Database, taskId: string, id: string): Promise<void> {
  await database.delete(a2aPushConfigs).where(and(eq(a2aPushConfigs.taskId, taskId), eq(a2aPushConfigs.id, id)));
}

export const deletePushConfigsOfAgent = (database: Database, agentId: string) => database.delete(a2aPushConfigs).where(eq(a2aPushConfigs.agentId, agentId));
